import {createRequire} from 'node:module'
import {existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {type EmulatorEvent, startEmulator} from '../../../src/emulator/index.js'
import {EmulatorStore} from '../../../src/emulator/store/index.js'
import {emulatorApi} from '../../helpers/emulator-api.js'
import {type RecordingServer, startRecordingServer} from '../../helpers/recording-server.js'
import {waitFor} from '../../helpers/wait-for.js'

const PAN = '4000000000000259'

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'paytx-emulator-store-'))
}

/** Every file of the store (the database and its WAL), as text, to look for what must not be there. */
function storeBytes(dir: string): string {
  return readdirSync(dir)
    .map((name) => readFileSync(join(dir, name)).toString('latin1'))
    .join('\n')
}

/** Webhook requests the receiver answered, per transaction and status. */
function deliveredCounts(receiver: RecordingServer, answered: Set<RecordingServer['requests'][number]>): Map<string, number> {
  const counts = new Map<string, number>()
  for (const request of receiver.requests) {
    if (!answered.has(request)) continue
    const key = `${request.body.id} ${request.body.status}`
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return counts
}

describe('the emulator store', () => {
  it('survives a restart, holds no PAN or CVV, is 0600, and carries out the moves due meanwhile', async () => {
    const dir = tempDir()
    const store = join(dir, 'emulator.db')
    const first = await startEmulator({port: 0, store, settleAfterMs: 300, abandonAfterMs: 60_000})
    const api = emulatorApi(first)
    const {customer, card, transaction: cardTx} = await api.startPayment('card', {pan: PAN, cvv: true})
    const settling = (await api.startPayment('dummy')).transaction
    await api.approve(settling.details.approval_url, {outcome: 'SETTLEMENT_COMPLETED'})
    const waiting = (await api.startPayment('dummy')).transaction
    expect(first.store).toBe(store)
    await first.close()

    const bytes = storeBytes(dir)
    expect(bytes).not.toContain(PAN)
    expect(bytes).not.toMatch(/cvv"?\s*:\s*"\d/i)
    expect(statSync(store).mode & 0o777).toBe(0o600)
    for (const name of readdirSync(dir)) expect(statSync(join(dir, name)).mode & 0o777, name).toBe(0o600)

    // The settlement fell due while no emulator ran: the next one's first read shows it.
    await new Promise((resolve) => setTimeout(resolve, 400))
    const second = await startEmulator({port: 0, store, settleAfterMs: 60_000, abandonAfterMs: 60_000})
    try {
      const api2 = emulatorApi(second)
      expect((await api2.transaction(settling.id)).body.status).toBe('SETTLEMENT_COMPLETED')
      const read = await api2.transaction(cardTx.id)
      expect(read.status).toBe(200)
      expect(read.body).toMatchObject({id: cardTx.id, card, customer: customer.id, amount: '1499', status: 'INITIATED'})
      // Approved where the emulator listens now.
      expect(read.body.details.approval_url).toBe(`${second.url}/v1/transaction/${cardTx.id}/authorize`)
      const again = await api2.start({amount: 5, customer: customer.id, payment_product: 'card', card, details: {redirect_url: 'https://s.example/'}})
      expect(again.status).toBe(200)
      // The CVV was given at start before the restart: the page still does not ask for it.
      const paid = await api2.approve(read.body.details.approval_url, {action: 'pay'})
      expect(paid.status).toBe(303)
      expect((await api2.transaction(cardTx.id)).body.status).toBe('PENDING')
      expect((await api2.transaction(waiting.id)).body.status).toBe('INITIATED')
    } finally {
      await second.close()
    }
    // The abandonment keeps the due time of the emulator that started the transaction.
    const third = await startEmulator({port: 0, store, abandonAfterMs: 30})
    try {
      expect((await emulatorApi(third).transaction(waiting.id)).body.status).toBe('INITIATED')
    } finally {
      await third.close()
    }
  })

  it('keeps the webhook address of the default payment profile, and --webhook-url replaces it', async () => {
    const store = join(tempDir(), 'emulator.db')
    const profileWebhook = () => {
      const opened = EmulatorStore.open(store)
      try {
        return opened.paymentProfiles()[0].webhook_transaction_update
      } finally {
        opened.close()
      }
    }
    await (await startEmulator({port: 0, store, webhookUrl: 'http://127.0.0.1:9/first'})).close()
    await (await startEmulator({port: 0, store})).close()
    expect(profileWebhook()).toBe('http://127.0.0.1:9/first')
    await (await startEmulator({port: 0, store, webhookUrl: 'http://127.0.0.1:9/third'})).close()
    expect(profileWebhook()).toBe('http://127.0.0.1:9/third')
  })

  it('after a restart with a settlement due and a webhook pending, carries out both exactly once', async () => {
    const store = join(tempDir(), 'emulator.db')
    let available = false
    const answered = new Set<RecordingServer['requests'][number]>()
    const receiver = await startRecordingServer((request) => {
      if (!available) return {status: 503, json: {busy: true}}
      answered.add(request)
      return {status: 200, json: {ok: true}}
    })
    try {
      const first = await startEmulator({port: 0, store, settleAfterMs: 300, webhookUrl: `${receiver.url}/hooks`, webhookBackoffMs: 400, webhookAttempts: 5, assumptions: {webhookPayload: 'full'}})
      const api = emulatorApi(first)
      const {transaction} = await api.startPayment('dummy')
      await api.approve(transaction.details.approval_url, {outcome: 'SETTLEMENT_COMPLETED'})
      // The first webhook is refused: it and the ones queued behind it are pending at the restart.
      await waitFor(() => receiver.requests.length > 0, 'a first, refused attempt')
      await first.close()
      const refusedBeforeRestart = receiver.requests.length

      available = true
      await new Promise((resolve) => setTimeout(resolve, 500))
      const events: EmulatorEvent[] = []
      const second = await startEmulator({port: 0, store, settleAfterMs: 60_000, assumptions: {webhookPayload: 'full'}, onEvent: (event) => events.push(event)})
      try {
        await waitFor(() => answered.size === 4, 'every status delivered once', 8000)
        const log = (await emulatorApi(second).get(`/_emulator/webhooks?transaction=${transaction.id}`)).body.deliveries
        // Once the emulator has stopped, nothing more can arrive: a repeated delivery or a second
        // settlement would have shown by then.
        await second.close()
        const counts = deliveredCounts(receiver, answered)
        expect([...counts.keys()].sort()).toEqual(
          ['INITIATED', 'IN_PROGRESS', 'SETTLEMENT_COMPLETED', 'SETTLEMENT_REQUESTED'].map((status) => `${transaction.id} ${status}`).sort(),
        )
        expect([...counts.values()]).toEqual([1, 1, 1, 1])
        expect(receiver.requests.length - refusedBeforeRestart).toBe(4)
        const settled = events.filter((event) => event.event === 'status' && event.to === 'SETTLEMENT_COMPLETED')
        expect(settled).toHaveLength(1)
        expect(log.map((delivery: {state: string}) => delivery.state)).toEqual(['delivered', 'delivered', 'delivered', 'delivered'])
      } finally {
        await second.close()
      }
    } finally {
      await receiver.close()
    }
  })

  it('shared by two emulators: each move is applied once and each webhook delivered once', async () => {
    const store = join(tempDir(), 'emulator.db')
    const answered = new Set<RecordingServer['requests'][number]>()
    const receiver = await startRecordingServer((request) => {
      answered.add(request)
      return {status: 200, json: {ok: true}}
    })
    const events: EmulatorEvent[] = []
    const settings = {port: 0, store, settleAfterMs: 150, webhookUrl: `${receiver.url}/hooks`, assumptions: {webhookPayload: 'full' as const}, onEvent: (event: EmulatorEvent) => events.push(event)}
    const one = await startEmulator(settings)
    const two = await startEmulator(settings)
    try {
      const ids: string[] = []
      for (let i = 0; i < 10; i++) {
        const api = emulatorApi(i % 2 === 0 ? one : two)
        const {transaction} = await api.startPayment('dummy')
        // Approved on the other emulator: the store is what they share.
        await emulatorApi(i % 2 === 0 ? two : one).approve(transaction.details.approval_url.replace(/^http:\/\/[^/]+/, (i % 2 === 0 ? two : one).url), {
          outcome: 'SETTLEMENT_COMPLETED',
        })
        ids.push(transaction.id)
      }
      await waitFor(() => answered.size === 40, 'four webhooks for each of ten transactions', 10_000)
      // Once both have stopped, nothing more can arrive: a second delivery would have shown by then.
      await Promise.all([one.close(), two.close()])
      const counts = deliveredCounts(receiver, answered)
      expect(counts.size).toBe(40)
      expect(new Set(counts.values())).toEqual(new Set([1]))
      const settlements = events.filter((event) => event.event === 'status' && event.to === 'SETTLEMENT_COMPLETED')
      expect(settlements.map((event) => (event as {transaction: string}).transaction).sort()).toEqual([...ids].sort())
    } finally {
      await one.close()
      await two.close()
      await receiver.close()
    }
  })

  it('accepts the organisations and payment profiles it is given, and refuses others', async () => {
    const organisation = '3f1c2a9e-0000-4000-8000-00000000000a'
    const paymentProfile = '3f1c2a9e-0000-4000-8000-00000000000b'
    const emulator = await startEmulator({port: 0, organisations: [organisation], paymentProfiles: [{id: paymentProfile}]})
    try {
      const api = emulatorApi(emulator)
      const customer = await api.createCustomer({organisation})
      expect(customer.status).toBe(200)
      const started = await api.start({amount: 10, customer: customer.body.id, payment_product: 'dummy', payment_profile: paymentProfile, details: {redirect_url: 'https://s.example/'}})
      expect(started.status).toBe(200)
      expect(started.body.payment_profile).toBe(paymentProfile)

      const unknownOrganisation = await api.createCustomer({organisation: '3f1c2a9e-0000-4000-8000-0000000000ff'})
      expect(unknownOrganisation.status).toBe(400)
      expect(unknownOrganisation.body.details['body.organisation']).toMatch(/not an organisation of this emulator/)
      const unknownProfile = await api.start({
        amount: 10,
        customer: customer.body.id,
        payment_product: 'dummy',
        payment_profile: '3f1c2a9e-0000-4000-8000-0000000000fe',
        details: {redirect_url: 'https://s.example/'},
      })
      expect(unknownProfile.status).toBe(400)
      expect(unknownProfile.body.details['body.payment_profile']).toBe('no payment profile has this id')

      // The admin route adds one to the running emulator's store.
      const later = '3f1c2a9e-0000-4000-8000-00000000000c'
      const added = await api.post(`${emulator.url}/_emulator/payment-profiles`, {id: later, webhook_transaction_update: 'http://127.0.0.1:9/hooks'})
      expect(added.status).toBe(200)
      expect(added.body).toMatchObject({id: later, organisation: emulator.organisation, webhook_transaction_update: 'http://127.0.0.1:9/hooks'})
      const withLater = await api.start({amount: 10, customer: customer.body.id, payment_product: 'dummy', payment_profile: later, details: {redirect_url: 'https://s.example/'}})
      expect(withLater.status).toBe(200)
      const unauthenticated = await api.post(`${emulator.url}/_emulator/organisations`, {id: later}, {'content-type': 'application/json'})
      expect(unauthenticated.status).toBe(401)
    } finally {
      await emulator.close()
    }
  })

  it('imports a 0.1 JSON state file given as the store once, keeping the JSON file beside it', async () => {
    const dir = tempDir()
    const path = join(dir, 'state.json')
    const now = new Date().toISOString()
    const customer = {id: 'c0ffee00-0000-4000-8000-000000000001', first_name: 'Jana', last_name: 'Jansen', status: 'unverified'}
    const transaction = {
      id: 'c0ffee00-0000-4000-8000-000000000002',
      payment_profile: '7d3c2a10-5b1e-4f6a-8c2d-9e0b4d000001',
      customer: customer.id,
      payment_product: 'dummy',
      amount: '250',
      status: 'SETTLEMENT_COMPLETED',
      status_reason: 'settled',
      details: {redirect_url: 'https://s.example/', approval_url: 'http://127.0.0.1:1/old'},
      created_at: now,
      last_status_update: now,
    }
    const legacy = JSON.stringify({
      paytx_emulator_state: 1,
      saved_at: now,
      payment_profiles: [{id: transaction.payment_profile, organisation: '0a0f2c55-6c8e-4c51-9b0e-3e7a1d000001', name: 'default', webhook_transaction_update: '', created_at: now}],
      customers: [customer],
      cards: [],
      transactions: [{transaction, cvvGiven: false}],
      webhook_deliveries: [],
    })
    writeFileSync(path, legacy)
    const log: string[] = []
    const emulator = await startEmulator({port: 0, store: path, log: (line) => log.push(line)})
    try {
      expect(log.join('\n')).toContain(`the JSON file is kept as ${path}.v0.1.json`)
      const read = await emulatorApi(emulator).transaction(transaction.id)
      expect(read.body).toMatchObject({id: transaction.id, status: 'SETTLEMENT_COMPLETED', amount: '250'})
    } finally {
      await emulator.close()
    }
    expect(readFileSync(`${path}.v0.1.json`, 'utf8')).toBe(legacy)
    expect(readFileSync(path).subarray(0, 15).toString()).toBe('SQLite format 3')
    // Once: the next start opens the store it became.
    const again = await startEmulator({port: 0, store: path})
    await again.close()
    expect(existsSync(`${path}.v0.1.json`)).toBe(true)
  })

  const foreignSqlite = (path: string) => {
    const Libsql = createRequire(import.meta.url)('libsql')
    const db = new Libsql(path)
    db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES (\'mine\')')
    db.close()
  }

  it.each([
    ['random bytes', (path: string) => writeFileSync(path, 'this is not a database, just some text that is long enough'), /is not an emulator store \(not an SQLite database\)/],
    ['another program’s SQLite database', foreignSqlite, /is an SQLite database of another program/],
    ['JSON that is not 0.1 state', (path: string) => writeFileSync(path, '{"hello": "world"}'), /is a JSON file, not an emulator store: it has no "paytx_emulator_state": 1 marker/],
    [
      'a damaged SQLite file',
      (path: string) => writeFileSync(path, Buffer.concat([Buffer.from('SQLite format 3\u0000', 'latin1'), Buffer.alloc(4080, 0x5a)])),
      /is not an emulator store/,
    ],
  ])('refuses %s with exit 2 and leaves it untouched', async (_name, write, message) => {
    const dir = tempDir()
    const path = join(dir, 'store.db')
    write(path)
    const before = readFileSync(path)
    const names = readdirSync(dir)
    await expect(startEmulator({port: 0, store: path})).rejects.toMatchObject({name: 'StoreError', exitCode: 2, message: expect.stringMatching(message)})
    expect(readFileSync(path).equals(before)).toBe(true)
    expect(readdirSync(dir)).toEqual(names)
  })

  it('reports a store it cannot create', async () => {
    const path = join(tempDir(), 'missing-folder', 'emulator.db')
    await expect(startEmulator({port: 0, store: path})).rejects.toMatchObject({name: 'StoreError', exitCode: 2, message: expect.stringMatching(/cannot be created: its folder .*missing-folder does not exist/)})
  })
})
