/**
 * `emulator verify` against a "sandbox" that is an emulator started with other readings
 * (--card-record request-names, --id-keys id), through the built CLI: the differences are known
 * in advance and each must name the assumption it touches; everything else must match.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runCli, tempConfigDir} from '../helpers/cli.js'
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'

describe('paytx emulator verify', () => {
  let sandbox: RunningEmulator
  let configDir: string
  beforeAll(async () => {
    sandbox = await startEmulator({port: 0, store: ':memory:', assumptions: {cardRecord: 'request-names', idKeys: 'id'}})
    configDir = tempConfigDir()
    for (const [name, env] of [['test', 'sandbox'], ['live', 'production']]) {
      const added = await runCli(
        ['profile', 'add', name, '--env', env, '--base-url', `${sandbox.url}/v1`, '--h2h-url', sandbox.proxyUrl, '--proxy-id', sandbox.proxyId, '--organisation', sandbox.organisation, '--payment-profile', sandbox.paymentProfileId, '--api-key-stdin', '--proxy-key-stdin'],
        {configDir, input: `${sandbox.apiKey}\n${sandbox.proxyKey}\n`},
      )
      expect(added.code, added.stderr).toBe(0)
    }
  })
  afterAll(() => sandbox.close())

  it('finds exactly the card record differences the other readings make, each naming its assumption, exit 5', async () => {
    const result = await runCli(['emulator', 'verify', '--profile', 'test', '--json', '--webhook-wait', '2s'], {configDir})
    expect(result.code, result.stderr).toBe(5)
    const report = parseJsonOutput(result)
    const byProbe = Object.fromEntries(report.probes.map((probe: any) => [probe.probe, probe]))
    expect(Object.keys(byProbe)).toEqual(['customer', 'card', 'transaction-start', 'transaction', 'checkoutsuccess', 'transaction-start-sofort', 'invalid-amount', 'invalid-customer', 'unknown-transaction', 'wrong-key'])
    for (const name of Object.keys(byProbe).filter((probe) => probe !== 'card')) expect(byProbe[name].differences, name).toEqual([])
    expect(byProbe['invalid-amount'].real.status).toBe(400)
    expect(byProbe['wrong-key'].real.status).toBe(401)
    const card = byProbe.card.differences
    expect(card).toContainEqual({probe: 'card', path: '_id', kind: 'only-emulator', class: 'breaking', real: 'absent', emulator: 'string', assumptions: ['id-keys', 'card-record']})
    expect(card).toContainEqual({probe: 'card', path: 'last4', kind: 'only-real', class: 'additive', real: 'string', emulator: 'absent', assumptions: ['card-record']})
    expect(card).toContainEqual({probe: 'card', path: 'last_four', kind: 'only-emulator', class: 'breaking', real: 'absent', emulator: 'string', assumptions: ['card-record']})
    expect(card.every((difference: any) => difference.assumptions.includes('card-record'))).toBe(true)
    // The webhook body's id keys (--id-keys id) are seen through the listener too.
    expect(report.behaviour).toEqual([expect.objectContaining({probe: 'webhook', path: '_id', assumptions: ['id-keys']})])
    expect(report.created.map((item: any) => item.what)).toEqual(['customer', 'card', 'transaction', 'transaction'])
  })

  it('says it in a report of at most 80 columns: both statuses, each difference, its class and assumption, the ids created', async () => {
    const result = await runCli(['emulator', 'verify', '--profile', 'test', '--webhook-wait', '2s'], {configDir})
    expect(result.stdout).toMatch(/^✔ POST \/customer \(a sample customer\) {2}HTTP 200 \/ 200 {2}same$/m)
    expect(result.stdout).toMatch(/^✖ POST \/tokenize\/proxy\/<id> \(the test card\) {2}HTTP 20\d \/ 20\d$/m)
    expect(result.stdout).toMatch(/^ {4}breaking {2}last_four: only the emulator sends it \(string\) {2}\[assumption:\n {14}card-record\]$/m)
    expect(result.stdout).toMatch(/^ {4}breaking {2}webhook body _id: only the emulator sends it \(string\)/m)
    expect(result.stdout).toMatch(/^Created on the service: customer [0-9a-f-]{36}/m)
    expect(result.stdout).toMatch(/breaking, \d+ value and \d+ additive differences between profile "test"/)
    for (const line of result.stdout.split('\n')) expect(line.length, line).toBeLessThan(80)
  })

  it.each([
    ['live', 'it refuses production profiles'],
    ['local', 'is the emulator itself'],
  ])('--profile %s: exit 2, says why', async (profile, message) => {
    const result = await runCli(['emulator', 'verify', '--profile', profile], {configDir})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(message)
  })
})
