/**
 * Local commands that find no emulator run one in-process over the shared store, so ids from one
 * command work in the next and two flows at once both succeed. kill -9 and two emulator processes
 * on one store are in test/e2e/emulator-shared-store.test.ts.
 */

import {describe, expect, it} from 'vitest'

import {EMULATOR_DEFAULTS} from '../../../src/test-mode/emulator-defaults.js'
import {parseJsonOutput, tempConfigDir} from '../../helpers/cli.js'
import {runCommand} from '../../helpers/run-command.js'
import {freePort, isListening} from '../../helpers/ports.js'
import {waitFor} from '../../helpers/wait-for.js'

describe('one store shared by every paytx process', () => {
  it("the README's flow, then `paytx status <id>` in a new process: found, and settled", async () => {
    const configDir = tempConfigDir()
    const base = `http://127.0.0.1:${await freePort()}`
    const env = {PAYTX_BASE_URL: base, PAYTX_H2H_URL: `${base}/h2h`}
    const flow = await runCommand(['flow', '--product', 'dummy', '--amount', '1499', '--approve', 'SETTLEMENT_COMPLETED', '--json'], {configDir, env})
    expect(flow.exitCode, flow.stderr).toBe(0)
    const {transactionId} = parseJsonOutput(flow)
    expect(transactionId).toMatch(/^[0-9a-f-]{36}$/)
    const status = await runCommand(['status', transactionId, '--json'], {configDir, env})
    expect(status.exitCode, status.stderr).toBe(0)
    expect(parseJsonOutput(status)).toMatchObject({id: transactionId, status: 'SETTLEMENT_COMPLETED', amount: '1499'})

    // A flow that stops at the settlement request: the settlement falls due with no emulator running,
    // and the next command's emulator carries it out.
    const early = await runCommand(['flow', '--product', 'dummy', '--amount', '700', '--approve', 'SETTLEMENT_COMPLETED', '--until', 'final', '--json'], {configDir, env})
    expect(early.exitCode, early.stderr).toBe(0)
    const requested = parseJsonOutput(early)
    expect(requested.status).toBe('SETTLEMENT_REQUESTED')
    await new Promise((resolve) => setTimeout(resolve, EMULATOR_DEFAULTS.settleAfterMs + 200))
    const later = await runCommand(['status', requested.transactionId, '--json'], {configDir, env})
    expect(later.exitCode, later.stderr).toBe(0)
    expect(parseJsonOutput(later)).toMatchObject({id: requested.transactionId, status: 'SETTLEMENT_COMPLETED'})
  }, 60_000)

  it('two flows at once on the local profile both succeed', async () => {
    const configDir = tempConfigDir()
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const env = {PAYTX_BASE_URL: base, PAYTX_H2H_URL: `${base}/h2h`}
    const args = ['flow', '--product', 'dummy', '--amount', '1499', '--approve', 'SETTLEMENT_COMPLETED', '--json']
    const first = runCommand(args, {configDir, env})
    // The second starts once the first one's emulator is up, and outlives it.
    await waitFor(() => isListening(port), "the first flow's emulator to listen")
    const second = runCommand([...args.slice(0, 3), '--amount', '2500', '--approve', 'SETTLEMENT_COMPLETED', '--json'], {configDir, env})
    const results = await Promise.all([first, second])
    for (const result of results) expect(result.exitCode, result.stdout + result.stderr).toBe(0)
    const summaries = results.map((result) => parseJsonOutput(result))
    expect(summaries.map((summary) => summary.status)).toEqual(['SETTLEMENT_COMPLETED', 'SETTLEMENT_COMPLETED'])
    // Both are in the one store: a third process finds them.
    for (const summary of summaries) {
      const status = await runCommand(['status', summary.transactionId, '--json'], {configDir, env})
      expect(status.exitCode, status.stderr).toBe(0)
    }
  }, 90_000)

  it("the emulator a command runs accepts the local profile's own organisation and payment profile", async () => {
    const configDir = tempConfigDir()
    const organisation = '3f1c2a9e-0000-4000-8000-000000000201'
    const paymentProfile = '3f1c2a9e-0000-4000-8000-000000000202'
    const base = `http://127.0.0.1:${await freePort()}`
    const added = await runCommand(['profile', 'add', 'mine', '--env', 'local', '--base-url', base, '--h2h-url', `${base}/h2h`, '--organisation', organisation, '--payment-profile', paymentProfile], {configDir})
    expect(added.exitCode, added.stderr).toBe(0)
    const flow = await runCommand(['flow', '--profile', 'mine', '--product', 'dummy', '--amount', '100', '--approve', 'SETTLEMENT_REQUESTED', '--json'], {configDir})
    expect(flow.exitCode, flow.stdout + flow.stderr).toBe(0)
    const summary = parseJsonOutput(flow)
    expect(summary.transaction).toMatchObject({payment_profile: paymentProfile, status: 'SETTLEMENT_REQUESTED'})
    const customer = await runCommand(['customer', 'create', '--profile', 'mine', '--no-input', '--json', '--title', 'mr', '--first-name', 'Piet', '--last-name', 'Pieters',
      '--email-address', 'piet@example.com', '--phone-number', '+31612345679', '--street-address', 'Dam', '--postal-code', '1012 JS', '--city', 'Amsterdam', '--country-code', 'NL'], {configDir})
    expect(customer.exitCode, customer.stdout + customer.stderr).toBe(0)
    expect(parseJsonOutput(customer).organisation).toBe(organisation)
    // An id neither the store nor the profile knows is still refused.
    const unknown = await runCommand(['transaction', 'start', '--profile', 'mine', '--json', '--customer', parseJsonOutput(customer).id, '--product', 'dummy', '--amount', '100',
      '--payment-profile', '3f1c2a9e-0000-4000-8000-0000000002ff', '--redirect-url', 'https://shop.example/back'], {configDir})
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stdout).toContain('no payment profile has this id')
  }, 60_000)
})
