/**
 * `paytx transaction status <id> --wait` stopped by SIGINT and SIGTERM (exit 130); the rest is in
 * test/commands/transaction/status-wait.test.ts.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {sampleCustomer} from '../../src/flow/sample-customer.js'
import {startCli} from '../helpers/cli.js'

let emulator: RunningEmulator
const env = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl})

beforeAll(async () => {
  emulator = await startEmulator({port: 0, settleAfterMs: 2_500, pendingForMs: 600, webhookAttempts: 1})
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
})
