import {mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {startEmulator} from '../../src/emulator/index.js'
import {emulatorApi} from '../helpers/emulator-api.js'
import {waitFor} from '../helpers/wait-for.js'

const PAN = '4000000000000259'

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'paytx-emulator-state-'))
}

describe('the state file', () => {
  it('survives a restart, holds no PAN or CVV, and re-arms the timed moves', async () => {
    const dir = tempDir()
    const stateFile = join(dir, 'state.json')
    const first = await startEmulator({port: 0, stateFile, settleAfterMs: 60_000, abandonAfterMs: 60_000})
    const api = emulatorApi(first)
    const {customer, card, transaction: cardTx} = await api.startPayment('card', {pan: PAN, cvv: true})
    const settling = (await api.startPayment('dummy')).transaction
    await api.approve(settling.details.approval_url, {outcome: 'SETTLEMENT_COMPLETED'})
    const waiting = (await api.startPayment('dummy')).transaction
    await first.close()

    const text = readFileSync(stateFile, 'utf8')
    expect(text).not.toContain(PAN)
    expect(text).not.toMatch(/cvv"?\s*:\s*"\d/i)
    expect(text).not.toContain('"123"')
    expect(statSync(stateFile).mode & 0o777).toBe(0o600)
    expect(readdirSync(dir)).toEqual(['state.json'])

    const second = await startEmulator({port: 0, stateFile, settleAfterMs: 30, abandonAfterMs: 60_000})
    try {
      const api2 = emulatorApi(second)
      const read = await api2.transaction(cardTx.id)
      expect(read.status).toBe(200)
      expect(read.body).toMatchObject({id: cardTx.id, card, customer: customer.id, amount: '1499', status: 'INITIATED'})
      // Approved where the emulator listens now.
      expect(read.body.details.approval_url).toBe(`${second.url}/v1/transaction/${cardTx.id}/authorize`)
      // The stored customer and card are usable for new transactions.
      const again = await api2.start({amount: 5, customer: customer.id, payment_product: 'card', card, details: {redirect_url: 'https://s.example/'}})
      expect(again.status).toBe(200)
      // The CVV was given at start before the restart: the page still does not ask for it.
      const paid = await api2.approve(read.body.details.approval_url, {action: 'pay'})
      expect(paid.status).toBe(303)
      expect((await api2.transaction(cardTx.id)).body.status).toBe('PENDING')
      // Timers follow the new settings from each transaction's last change.
      await waitFor(async () => (await api2.transaction(settling.id)).body.status === 'SETTLEMENT_COMPLETED', 'settlement after restart')
      expect((await api2.transaction(waiting.id)).body.status).toBe('INITIATED')
    } finally {
      await second.close()
    }
    const third = await startEmulator({port: 0, stateFile, abandonAfterMs: 30})
    try {
      await waitFor(async () => (await emulatorApi(third).transaction(waiting.id)).body.status === 'ABANDONED', 'abandonment after restart')
    } finally {
      await third.close()
    }
    const saved = JSON.parse(readFileSync(stateFile, 'utf8'))
    expect(saved.transactions.find((t: any) => t.transaction.id === settling.id).transaction.status).toBe('SETTLEMENT_COMPLETED')
  })

  it('keeps the webhook address of the default payment profile, and --webhook-url replaces it', async () => {
    const stateFile = join(tempDir(), 'state.json')
    const first = await startEmulator({port: 0, stateFile, webhookUrl: 'http://127.0.0.1:9/first'})
    await first.close()
    const second = await startEmulator({port: 0, stateFile})
    await second.close()
    expect(JSON.parse(readFileSync(stateFile, 'utf8')).payment_profiles[0].webhook_transaction_update).toBe('http://127.0.0.1:9/first')
    const third = await startEmulator({port: 0, stateFile, webhookUrl: 'http://127.0.0.1:9/third'})
    await third.close()
    expect(JSON.parse(readFileSync(stateFile, 'utf8')).payment_profiles[0].webhook_transaction_update).toBe('http://127.0.0.1:9/third')
  })

  it.each([
    ['not JSON', '{"paytx_emulator_state": 1, "customers": [', /is not valid JSON/],
    ['JSON of something else', '{"hello": "world"}', /is not emulator state: it has no "paytx_emulator_state": 1 marker/],
    ['a broken list', JSON.stringify({paytx_emulator_state: 1, payment_profiles: [], customers: {}, cards: [], transactions: [], webhook_deliveries: []}), /"customers" is not a list/],
  ])('reports a file that is %s and leaves it untouched', async (_name, content, message) => {
    const stateFile = join(tempDir(), 'state.json')
    writeFileSync(stateFile, content)
    await expect(startEmulator({port: 0, stateFile})).rejects.toMatchObject({name: 'StateFileError', exitCode: 2, message: expect.stringMatching(message)})
    expect(readFileSync(stateFile, 'utf8')).toBe(content)
  })

  it('reports a state file it cannot write at start', async () => {
    const stateFile = join(tempDir(), 'missing-folder', 'state.json')
    await expect(startEmulator({port: 0, stateFile})).rejects.toMatchObject({name: 'StateFileError', exitCode: 2, message: expect.stringMatching(/cannot be written \(ENOENT\)/)})
  })
})
