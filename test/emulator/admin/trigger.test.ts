/**
 * The admin endpoints that drive a transaction: trigger a status (along the state table, or
 * forced), resend webhooks, read the timeline. Driven over HTTP as a script in any language would.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {STATUSES, type TransactionStatus} from '../../../src/api/contract.js'
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js'
import {ALLOWED_MOVES, movesMarkdownTable} from '../../../src/emulator/admin/index.js'
import {ROOT} from '../../helpers/cli.js'
import {emulatorApi} from '../../helpers/emulator-api.js'
import {type RecordingServer, startRecordingServer} from '../../helpers/recording-server.js'
import {waitFor} from '../../helpers/wait-for.js'

let emulator: RunningEmulator
let receiver: RecordingServer
let api: ReturnType<typeof emulatorApi>

beforeAll(async () => {
  receiver = await startRecordingServer(() => ({status: 200}))
  emulator = await startEmulator({port: 0, settleAfterMs: 60_000, pendingForMs: 60_000, webhookUrl: `${receiver.url}/hooks`, webhookBackoffMs: 20, webhookAttempts: 2})
  api = emulatorApi(emulator)
})
afterAll(async () => {
  await emulator.close()
  await receiver.close()
})

const trigger = (id: string, body: Record<string, unknown>, headers = api.apiHeaders) => api.post(`${emulator.url}/_emulator/transactions/${id}/trigger`, body, headers)
const resend = (id: string, body: Record<string, unknown> = {}) => api.post(`${emulator.url}/_emulator/transactions/${id}/resend`, body)
const record = async (id: string) => (await api.get(`/_emulator/transactions/${id}`)).body
const webhooksFor = (id: string) => receiver.requests.filter((request) => request.body?.id === id)

/** A status from which the state table allows a move to `status`, other than INITIATED itself. */
function startingPointFor(status: TransactionStatus): TransactionStatus | undefined {
  if (ALLOWED_MOVES.INITIATED.includes(status)) return undefined
  return STATUSES.find((from) => from !== 'INITIATED' && ALLOWED_MOVES.INITIATED.includes(from) && ALLOWED_MOVES[from].includes(status))
}

describe('POST /_emulator/transactions/<id>/trigger', () => {
  it.each(STATUSES.filter((status) => status !== 'INITIATED'))('moves a transaction to %s, records it and sends its webhook', async (status) => {
    const {transaction} = await api.startPayment('dummy')
    const via = startingPointFor(status)
    if (via) expect((await trigger(transaction.id, {status: via})).status).toBe(200)
    const moved = await trigger(transaction.id, {status, reason: `because ${status}`})
    expect(moved.status, moved.text).toBe(200)
    expect(moved.body).toMatchObject({from: via ?? 'INITIATED', to: status, forced: false, transaction: {id: transaction.id, status, status_reason: `because ${status}`}})
    expect(moved.body.deliveries).toHaveLength(1)
    expect(moved.body.deliveries[0]).toMatchObject({status, url: `${receiver.url}/hooks`})
    expect((await api.transaction(transaction.id)).body.status).toBe(status)
    const delivered = async () => {
      const {deliveries} = await record(transaction.id)
      return deliveries.every((delivery: {state: string}) => delivery.state === 'delivered') && deliveries
    }
    const deliveries = await waitFor(delivered, `the ${status} webhook delivered`)
    expect(deliveries.at(-1)).toMatchObject({id: moved.body.deliveries[0].id, status, state: 'delivered'})
    expect(webhooksFor(transaction.id)).toHaveLength(deliveries.length)
    const {status_changes: changes} = await record(transaction.id)
    expect(changes.at(-1)).toMatchObject({from: via ?? 'INITIATED', to: status, reason: `because ${status}`, by: 'trigger'})
  })

  it('refuses moves the state table does not allow (409), changing nothing, and makes them with force', async () => {
    const {transaction} = await api.startPayment('dummy')
    expect((await trigger(transaction.id, {status: 'DECLINED'})).status).toBe(200)
    await waitFor(() => webhooksFor(transaction.id).length === 2, 'INITIATED and DECLINED webhooks')
    for (const status of ['SETTLEMENT_COMPLETED', 'PENDING', 'DECLINED', 'INITIATED']) {
      const refused = await trigger(transaction.id, {status})
      expect(refused.status).toBe(409)
      expect(refused.body.details['body.status']).toMatch(status === 'DECLINED' ? /already DECLINED/ : /DECLINED, a final status: it moves nowhere/)
    }
    expect((await api.transaction(transaction.id)).body.status).toBe('DECLINED')
    expect((await record(transaction.id)).status_changes.map((change: {to: string}) => change.to)).toEqual(['INITIATED', 'DECLINED'])

    const forced = await trigger(transaction.id, {status: 'INITIATED', force: true})
    expect(forced.status).toBe(200)
    expect(forced.body).toMatchObject({from: 'DECLINED', to: 'INITIATED', forced: true})
    await waitFor(() => webhooksFor(transaction.id).length === 3, 'the forced INITIATED webhook')
    expect((await record(transaction.id)).status_changes.at(-1)).toMatchObject({from: 'DECLINED', to: 'INITIATED', by: 'trigger --force'})
  })

  it('names what is wrong with the request: status, unknown id, no key', async () => {
    const {transaction} = await api.startPayment('dummy')
    const bad = await trigger(transaction.id, {status: 'PAID'})
    expect(bad.status).toBe(400)
    expect(bad.body.details['body.status']).toContain('must be one of INITIATED')
    expect((await trigger('00000000-0000-4000-8000-000000000000', {status: 'DECLINED'})).status).toBe(404)
    expect((await trigger(transaction.id, {status: 'DECLINED'}, {'content-type': 'application/json'})).status).toBe(401)
    expect((await api.transaction(transaction.id)).body.status).toBe('INITIATED')
  })

  it('a triggered status is followed by what follows it over time', async () => {
    const quick = await startEmulator({port: 0, settleAfterMs: 0})
    try {
      const quickApi = emulatorApi(quick)
      const {transaction} = await quickApi.startPayment('dummy')
      const moved = await quickApi.post(`${quick.url}/_emulator/transactions/${transaction.id}/trigger`, {status: 'SETTLEMENT_REQUESTED'})
      expect(moved.status).toBe(200)
      expect((await quickApi.transaction(transaction.id)).body.status).toBe('SETTLEMENT_COMPLETED')
    } finally {
      await quick.close()
    }
  })
})

describe('POST /_emulator/transactions/<id>/resend', () => {
  it('sends the last webhook again, every one with all, and to another address with to', async () => {
    const {transaction} = await api.startPayment('dummy')
    await trigger(transaction.id, {status: 'IN_PROGRESS'})
    await waitFor(() => webhooksFor(transaction.id).length === 2, 'two webhooks')
    const statusesSent = async () => (await record(transaction.id)).deliveries.map((delivery: {status: string}) => delivery.status)

    const last = await resend(transaction.id)
    expect(last.status).toBe(200)
    expect(last.body.deliveries.map((delivery: {status: string}) => delivery.status)).toEqual(['IN_PROGRESS'])
    await waitFor(() => webhooksFor(transaction.id).length === 3, 'the resent webhook')
    expect(webhooksFor(transaction.id)[2].rawBody).toBe(webhooksFor(transaction.id)[1].rawBody)
    expect(await statusesSent()).toEqual(['INITIATED', 'IN_PROGRESS', 'IN_PROGRESS'])

    const all = await resend(transaction.id, {all: true})
    expect(all.body.deliveries.map((delivery: {status: string}) => delivery.status)).toEqual(['INITIATED', 'IN_PROGRESS', 'IN_PROGRESS'])
    await waitFor(() => webhooksFor(transaction.id).length === 6, 'every webhook again')

    const other = await startRecordingServer(() => ({status: 204}))
    try {
      const elsewhere = await resend(transaction.id, {to: `${other.url}/elsewhere`})
      expect(elsewhere.body.deliveries).toMatchObject([{status: 'IN_PROGRESS', url: `${other.url}/elsewhere`}])
      await waitFor(() => other.requests.length === 1, 'the webhook at the other address')
      expect(other.requests[0]).toMatchObject({method: 'POST', path: '/elsewhere', body: {type: 'transaction', id: transaction.id}})
      expect(webhooksFor(transaction.id)).toHaveLength(6)
    } finally {
      await other.close()
    }
  })

  it('refuses a bad address, an unknown transaction, and nowhere to send', async () => {
    const {transaction} = await api.startPayment('dummy')
    expect((await resend(transaction.id, {to: 'not a url'})).status).toBe(400)
    expect((await resend('00000000-0000-4000-8000-000000000000')).status).toBe(404)
    const silent = await startEmulator({port: 0})
    try {
      const silentApi = emulatorApi(silent)
      const {transaction: unsent} = await silentApi.startPayment('dummy')
      const nowhere = await silentApi.post(`${silent.url}/_emulator/transactions/${unsent.id}/resend`, {})
      expect(nowhere.status).toBe(409)
      expect(nowhere.body.details['body.to']).toContain('has no webhook address')
    } finally {
      await silent.close()
    }
  })
})

describe('GET /_emulator/transactions', () => {
  it('lists recent transactions, newest first, and finds them by id, merchant reference or customer', async () => {
    const {transaction, customer} = await api.startPayment('dummy', {extra: {merchant_reference: 'order-find-me-7'}})
    const list = async (query: string) => (await api.get(`/_emulator/transactions${query}`)).body.transactions.map((tx: {id: string}) => tx.id)
    expect((await list('?limit=1'))[0]).toBe(transaction.id)
    expect(await list('?search=FIND-ME-7')).toEqual([transaction.id])
    expect(await list(`?search=${transaction.id.slice(0, 13)}`)).toEqual([transaction.id])
    expect(await list(`?search=${encodeURIComponent(customer.email_address)}`)).toContain(transaction.id)
    expect(await list('?search=no-such-thing-anywhere')).toEqual([])
    expect((await api.get('/_emulator/transactions', {})).status).toBe(401)
  })

  it.each([
    ['limit=1.5', 'limit', 'must be a whole number from 1 to 200'],
    ['limit=-1', 'limit', 'must be a whole number from 1 to 200'],
    ['limit=0', 'limit', 'must be a whole number from 1 to 200'],
    ['limit=201', 'limit', 'must be a whole number from 1 to 200'],
    ['limit=1e9', 'limit', 'must be a whole number from 1 to 200'],
    ['limit=99999999999999999999', 'limit', 'must be a whole number from 1 to 200'],
    ['limit=0x10', 'limit', 'must be a whole number from 1 to 200'],
    ['limit=ten', 'limit', 'must be a whole number from 1 to 200'],
    ['search=a%00b', 'search', 'must not contain control characters'],
    ['search=%00%00%00', 'search', 'must not contain control characters'],
    ['search=x%0Ay', 'search', 'must not contain control characters'],
    ['customer=%00', 'customer', 'must not contain control characters'],
    ['before=%7F', 'before', 'must not contain control characters'],
  ])('answers ?%s with 400 naming the parameter and what it allows', async (query, name, allowed) => {
    const answer = await api.get(`/_emulator/transactions?${query}`)
    expect(answer.status).toBe(400)
    expect(answer.body).toEqual({code: '400', message: `The query parameter ${name} is not valid: it ${allowed}.`, details: {[`query.${name}`]: allowed}})
  })

  it('takes an empty limit as the default, and 200 as the most', async () => {
    expect((await api.get('/_emulator/transactions?limit=')).status).toBe(200)
    expect((await api.get('/_emulator/transactions?limit=200')).status).toBe(200)
  })
})

describe('docs/emulator.md', () => {
  it('shows the state table the emulator applies', () => {
    expect(readFileSync(join(ROOT, 'docs', 'emulator.md'), 'utf8')).toContain(movesMarkdownTable())
  })
})
