/**
 * `paytx transaction status <id> --wait` against the emulator, through settlement and beyond. The
 * emulator runs on a manual clock: a transaction settles when the test moves the clock, never
 * because a slow machine took long to start the CLI.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {sampleCustomer} from '../../src/flow/sample-customer.js'
import {parseJsonOutput, runCli, startCli} from '../helpers/cli.js'
import {ManualClock} from '../helpers/manual-clock.js'

const SETTLE_AFTER_MS = 2_500
const clock = new ManualClock(Date.now())
let emulator: RunningEmulator
const env = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl})

beforeAll(async () => {
  emulator = await startEmulator({port: 0, settleAfterMs: SETTLE_AFTER_MS, webhookAttempts: 1, clock})
})
afterAll(() => emulator.close())

async function api(path: string, body: unknown): Promise<any> {
  const response = await fetch(`${emulator.url}${path}`, {
    method: 'POST',
    headers: {'content-type': 'application/json', [emulator.apiKeyHeader]: emulator.apiKey},
    body: JSON.stringify(body),
  })
  expect(response.status).toBe(200)
  return response.json()
}

/** A dummy transaction completed on its approval page with the outcome; returns its id. */
async function dummyTransaction(outcome: string): Promise<string> {
  const customer = await api('/v1/customer', sampleCustomer(emulator.organisation))
  const tx = await api('/v1/transaction/start', {
    payment_profile: emulator.paymentProfileId,
    amount: 1499,
    customer: customer.id,
    payment_product: 'dummy',
    details: {redirect_url: 'http://127.0.0.1:9/return'},
  })
  const answer = await fetch(tx.details.approval_url, {method: 'POST', body: new URLSearchParams({outcome}), redirect: 'manual'})
  expect(answer.status).toBe(303)
  return tx.id
}

describe('paytx transaction status --wait', () => {
  it('waits through SETTLEMENT_REQUESTED to SETTLEMENT_COMPLETED with --until settled, printing each change', async () => {
    const id = await dummyTransaction('SETTLEMENT_COMPLETED')
    const cli = startCli(['transaction', 'status', id, '--wait', '--until', 'settled', '--wait-timeout', '20s'], {env: env()})
    await cli.waitForStderr(/^SETTLEMENT_REQUESTED .*\(now\)$/m)
    clock.advance(SETTLE_AFTER_MS)
    const result = await cli.done
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toMatch(/^SETTLEMENT_REQUESTED \(not final, success\) +\(now\)$/m)
    expect(result.stderr).toMatch(/^SETTLEMENT_REQUESTED → SETTLEMENT_COMPLETED \(final, success\) +\(after [\d.]+ m?s\)$/m)
    expect(result.stdout).toMatch(/^Status +SETTLEMENT_COMPLETED \(final, success\)$/m)
    expect(result.stdout).not.toContain('→')
  })

  it('stops at SETTLEMENT_REQUESTED without --until settled, and prints one JSON object with --json', async () => {
    const id = await dummyTransaction('SETTLEMENT_REQUESTED')
    const result = await runCli(['status', id, '--wait', '--json'], {env: env()})
    expect(result.code, result.stderr).toBe(0)
    const tx = parseJsonOutput(result)
    expect(tx).toMatchObject({id, status: 'SETTLEMENT_REQUESTED', amount: '1499'})
    expect(result.stderr).toMatch(/^SETTLEMENT_REQUESTED \(not final, success\) +\(now\)$/m)
  })

  it('exits 3 for a final status that is not a success', async () => {
    const id = await dummyTransaction('DECLINED')
    const result = await runCli(['status', id, '--wait'], {env: env()})
    expect(result.code).toBe(3)
    expect(result.stdout).toMatch(/^Status +DECLINED \(final, not a success\)$/m)
  })

  it('reports UNKNOWN loudly, waits through it and exits 4 when the time runs out', async () => {
    const id = await dummyTransaction('UNKNOWN')
    const started = Date.now()
    const result = await runCli(['status', id, '--wait', '--wait-timeout', '1500ms'], {env: env()})
    expect(result.code).toBe(4)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_500)
    expect(result.stderr).toMatch(/Warning: transaction \S+ is UNKNOWN: the service cannot determine its state at present \(critical\)/)
    expect(result.stderr).toMatch(/Warning: transaction \S+ is still UNKNOWN after 1\.5 s; not conclusive\. It stayed UNKNOWN \(critical\)/)
    expect(result.stdout).toMatch(/^Status +UNKNOWN/m)
  })

  it.each(['SIGINT', 'SIGTERM'] as const)('stops on %s with exit 130, naming the transaction', async (signal) => {
    const id = await dummyTransaction('UNKNOWN')
    const cli = startCli(['status', id, '--wait'], {env: env()})
    await cli.waitForStderr(/UNKNOWN.*\(now\)/)
    cli.child.kill(signal)
    const result = await cli.done
    expect(result.code).toBe(130)
    expect(result.stderr).toContain(`Interrupted while waiting for transaction ${id}.`)
    expect(result.stdout).toBe('')
  })

  it('refuses --until and --wait-timeout without --wait, and a bad duration, with exit 2', async () => {
    const id = await dummyTransaction('DECLINED')
    const until = await runCli(['status', id, '--until', 'settled'], {env: env()})
    expect(until.code).toBe(2)
    expect(until.stderr).toContain('--wait')
    const bad = await runCli(['status', id, '--wait', '--wait-timeout', 'soon'], {env: env()})
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--wait-timeout must be a duration greater than 0, such as 90s, 10m or 1h (got "soon")')
  })
})
