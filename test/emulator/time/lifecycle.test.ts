import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import type {Product} from '../../../src/api/contract.js'
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js'
import {DUMMY_OUTCOMES, SOFORT_TEST_BANKS, TEST_CARDS, TEST_CARD_CVV, approvalFormFields} from '../../../src/test-mode/outcomes.js'
import {emulatorApi} from '../../helpers/emulator-api.js'
import {ManualClock} from '../../helpers/manual-clock.js'
import {type RecordingServer, startRecordingServer} from '../../helpers/recording-server.js'
import {waitFor} from '../../helpers/wait-for.js'

const SETTLE = 3000
const PENDING_FOR = 5000
const ABANDON = 60_000

/** What happens after completing the page: the status at once, then after each time step. */
interface Expectation {
  now: string
  later: {afterMs: number; status: string}[]
}

const SETTLES: Expectation = {now: 'SETTLEMENT_REQUESTED', later: [{afterMs: SETTLE - 1, status: 'SETTLEMENT_REQUESTED'}, {afterMs: 1, status: 'SETTLEMENT_COMPLETED'}]}
const PENDS: Expectation = {
  now: 'PENDING',
  later: [
    {afterMs: PENDING_FOR - 1, status: 'PENDING'},
    {afterMs: 1, status: 'SETTLEMENT_REQUESTED'},
    {afterMs: SETTLE, status: 'SETTLEMENT_COMPLETED'},
  ],
}
const stays = (status: string): Expectation => ({now: status, later: [{afterMs: 10 * ABANDON, status}]})

const DUMMY_EXPECTATIONS: Record<(typeof DUMMY_OUTCOMES)[number], Expectation> = {
  SETTLEMENT_COMPLETED: SETTLES,
  SETTLEMENT_REQUESTED: stays('SETTLEMENT_REQUESTED'),
  PENDING: PENDS,
  DECLINED: stays('DECLINED'),
  CANCELLED: stays('CANCELLED'),
  FAILED: stays('FAILED'),
  ABANDONED: stays('ABANDONED'),
  UNKNOWN: stays('UNKNOWN'),
}
const CARD_EXPECTATIONS: Record<string, Expectation> = {SETTLEMENT_COMPLETED: SETTLES, PENDING: PENDS, DECLINED: stays('DECLINED'), FAILED: stays('FAILED')}
const SUCCESS = new Set(['SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED'])

describe('the transaction state machine (injected clock)', () => {
  let clock: ManualClock
  let receiver: RecordingServer
  let emulator: RunningEmulator
  let api: ReturnType<typeof emulatorApi>

  beforeEach(async () => {
    clock = new ManualClock()
    receiver = await startRecordingServer(() => ({status: 200, json: {ok: true}}))
    emulator = await startEmulator({
      port: 0,
      clock,
      settleAfterMs: SETTLE,
      pendingForMs: PENDING_FOR,
      abandonAfterMs: ABANDON,
      webhookUrl: `${receiver.url}/hooks?key=secret-token`,
      // These tests read each webhook's status from its body: the full payload.
      assumptions: {webhookPayload: 'full'},
    })
    api = emulatorApi(emulator)
  })
  afterEach(async () => {
    await emulator.close()
    await receiver.close()
  })

  const statusOf = async (id: string) => (await api.transaction(id)).body.status as string
  const webhookStatuses = (id: string) => receiver.requests.filter((r) => r.body?.id === id).map((r) => r.body.status)

  /** Completes the page with the fields of `approvalFormFields` and follows the expectation over time. */
  async function completeAndFollow(product: Product, transaction: any, fields: Record<string, string>, expected: Expectation) {
    const opened = await api.openApproval(transaction.details.approval_url)
    expect(opened.status).toBe(200)
    expect(opened.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await statusOf(transaction.id)).toBe('IN_PROGRESS')
    const done = await api.approve(transaction.details.approval_url, fields)
    expect(done.status).toBe(303)
    expect(done.headers.get('location')).toBe(`https://shop.example/return?order=42&transaction_id=${transaction.id}`)
    expect(await statusOf(transaction.id)).toBe(expected.now)
    const seen = ['INITIATED', 'IN_PROGRESS', expected.now]
    for (const step of expected.later) {
      clock.advance(step.afterMs)
      const status = await statusOf(transaction.id)
      expect(status, `${product} after ${step.afterMs}ms`).toBe(step.status)
      if (seen.at(-1) !== status) seen.push(status)
    }
    const check = await api.checkoutSuccess(transaction.id)
    expect(check.body.success).toBe(SUCCESS.has(seen.at(-1)!))
    expect(check.body.status).toBe(seen.at(-1))
    // One webhook per status change, in order.
    await waitFor(() => webhookStatuses(transaction.id).length === seen.length, `${seen.length} webhooks`)
    expect(webhookStatuses(transaction.id)).toEqual(seen)
    return seen
  }

  it.each(DUMMY_OUTCOMES)('dummy outcome %s', async (outcome) => {
    const {transaction} = await api.startPayment('dummy')
    await completeAndFollow('dummy', transaction, approvalFormFields('dummy', outcome)!, DUMMY_EXPECTATIONS[outcome])
  })

  it.each(TEST_CARDS.map((card) => [card.pan, card.outcome] as const))('card %s pays to %s (CVV on the page)', async (pan, outcome) => {
    const {transaction} = await api.startPayment('card', {pan})
    await completeAndFollow('card', transaction, approvalFormFields('card', outcome)!, CARD_EXPECTATIONS[outcome])
  })

  it('card with card_cvv given pays without a CVV on the page; cancel cancels', async () => {
    const paid = await api.startPayment('card', {cvv: true})
    await completeAndFollow('card', paid.transaction, {action: 'pay'}, SETTLES)
    const cancelled = await api.startPayment('card')
    await completeAndFollow('card', cancelled.transaction, approvalFormFields('card', 'CANCELLED')!, stays('CANCELLED'))
  })

  it('card without card_cvv re-renders the page (400) when the CVV is missing, and stays IN_PROGRESS', async () => {
    const {transaction} = await api.startPayment('card')
    const answer = await api.approve(transaction.details.approval_url, {action: 'pay'})
    expect(answer.status).toBe(400)
    expect(answer.text).toMatch(/CVV/)
    expect(await statusOf(transaction.id)).toBe('IN_PROGRESS')
    const paid = await api.approve(transaction.details.approval_url, {action: 'pay', cvv: TEST_CARD_CVV})
    expect(paid.status).toBe(303)
  })

  it.each(SOFORT_TEST_BANKS.map((bank) => [bank.id, bank.outcome] as const))('sofort bank %s leads to %s and fills the sender', async (bankId, outcome) => {
    const {customer, transaction} = await api.startPayment('sofort')
    await completeAndFollow('sofort', transaction, {action: 'confirm', bank: bankId}, outcome === 'DECLINED' ? stays('DECLINED') : SETTLES)
    const bank = SOFORT_TEST_BANKS.find((b) => b.id === bankId)!
    const sender = (await api.transaction(transaction.id)).body.details.sender
    expect(sender).toMatchObject({country_code: 'DE', bic: bank.bic, bank_name: bank.name, bank_code: bank.bank_code, holder: `${customer.first_name} ${customer.last_name}`})
    expect(sender.account_number).toMatch(/^\d{10}$/)
    expect(sender.iban).toBe(`DE${sender.iban.slice(2, 4)}${bank.bank_code}${sender.account_number}`)
    expect(ibanValid(sender.iban)).toBe(true)
  })

  it('sofort cancel cancels and leaves the sender as it was, without a bank name', async () => {
    const {transaction} = await api.startPayment('sofort')
    await completeAndFollow('sofort', transaction, approvalFormFields('sofort', 'CANCELLED')!, stays('CANCELLED'))
    const sender = (await api.transaction(transaction.id)).body.details.sender
    expect(sender).toEqual(transaction.details.sender)
    expect(sender.bank_name).toBe('')
  })

  it('a script may complete with one POST without opening the page: it still passes IN_PROGRESS', async () => {
    const {transaction} = await api.startPayment('dummy')
    const done = await api.approve(transaction.details.approval_url, {outcome: 'DECLINED'})
    expect(done.status).toBe(303)
    await waitFor(() => webhookStatuses(transaction.id).length === 3, 'three webhooks')
    expect(webhookStatuses(transaction.id)).toEqual(['INITIATED', 'IN_PROGRESS', 'DECLINED'])
    const read = (await api.transaction(transaction.id)).body
    expect(read.status_reason).toBe('declined by the processor')
  })

  it('abandons INITIATED and IN_PROGRESS transactions after --abandon-after since their last change', async () => {
    const initiated = (await api.startPayment('dummy')).transaction
    clock.advance(ABANDON / 2)
    const opened = (await api.startPayment('sofort')).transaction
    await api.openApproval(opened.details.approval_url)
    clock.advance(ABANDON / 2 - 1)
    expect(await statusOf(initiated.id)).toBe('INITIATED')
    clock.advance(1)
    const abandoned = (await api.transaction(initiated.id)).body
    expect(abandoned.status).toBe('ABANDONED')
    expect(abandoned.status_reason).toBe('the approval was not completed within 1m')
    expect(abandoned.last_status_update).toBe(new Date(clock.now()).toISOString())
    expect(await statusOf(opened.id)).toBe('IN_PROGRESS')
    clock.advance(ABANDON / 2)
    expect(await statusOf(opened.id)).toBe('ABANDONED')
  })

  it('sends a page that can no longer complete back with error= (and shows an error page for an unknown id)', async () => {
    const {transaction} = await api.startPayment('dummy')
    await api.approve(transaction.details.approval_url, {outcome: 'FAILED'})
    const expectedError = `https://shop.example/return?order=42&transaction_id=${transaction.id}&error=${encodeURIComponent('The transaction is already FAILED; it cannot be approved again.')}`
    const again = await api.approve(transaction.details.approval_url, {outcome: 'SETTLEMENT_COMPLETED'})
    expect(again.status).toBe(303)
    expect(again.headers.get('location')).toBe(expectedError)
    const reopened = await api.openApproval(transaction.details.approval_url)
    expect(reopened.status).toBe(303)
    expect(reopened.headers.get('location')).toBe(expectedError)
    expect(await statusOf(transaction.id)).toBe('FAILED')

    const unknown = await api.openApproval(`${emulator.url}/v1/transaction/00000000-0000-4000-8000-000000000000/authorize`)
    expect(unknown.status).toBe(404)
    expect(unknown.headers.get('content-type')).toMatch(/^text\/html/)
    expect(unknown.text).toMatch(/Unknown transaction/)
  })

  it('rejects an approval POST that is not a form (415) and an unknown outcome (400), changing nothing', async () => {
    const {transaction} = await api.startPayment('dummy')
    const json = await fetch(transaction.details.approval_url, {method: 'POST', headers: {'content-type': 'application/json'}, body: '{"outcome":"DECLINED"}', redirect: 'manual'})
    expect(json.status).toBe(415)
    const bad = await api.approve(transaction.details.approval_url, {outcome: 'PAID'})
    expect(bad.status).toBe(400)
    expect(await statusOf(transaction.id)).toBe('IN_PROGRESS')
  })

  it('keeps the redirect URL’s own query and fragment when appending transaction_id', async () => {
    const {transaction} = await api.startPayment('dummy', {extra: {details: {redirect_url: 'https://shop.example/r?a=b%20c&x=#top'}}})
    const done = await api.approve(transaction.details.approval_url, {outcome: 'CANCELLED'})
    expect(done.headers.get('location')).toBe(`https://shop.example/r?a=b%20c&x=&transaction_id=${transaction.id}#top`)
  })

  it('with the full payload, sends type, id, _id, status and the transaction; per-transaction address first', async () => {
    const own = await startRecordingServer(() => ({status: 204}))
    try {
      const {transaction} = await api.startPayment('dummy', {extra: {webhook_transaction_update: `${own.url}/own`}})
      await api.approve(transaction.details.approval_url, {outcome: 'SETTLEMENT_COMPLETED'})
      clock.advance(SETTLE)
      await waitFor(() => own.requests.length === 4, 'four webhooks at the transaction’s address')
      expect(receiver.requests.filter((r) => r.body?.id === transaction.id)).toHaveLength(0)
      const last = own.requests[3]
      expect(last.method).toBe('POST')
      expect(last.path).toBe('/own')
      expect(last.headers['content-type']).toBe('application/json')
      expect(Object.keys(last.body).slice(0, 4)).toEqual(['type', 'id', '_id', 'status'])
      expect(last.body).toMatchObject({type: 'transaction', id: transaction.id, _id: transaction.id, status: 'SETTLEMENT_COMPLETED', amount: '1499'})
      const current = (await api.transaction(transaction.id)).body
      const {type, _id, ...rest} = last.body
      expect(rest).toEqual(current)
    } finally {
      await own.close()
    }
  })
})

describe('settling with no delay', () => {
  it('--settle-after 0 still makes two status changes, SETTLEMENT_REQUESTED then SETTLEMENT_COMPLETED', async () => {
    const receiver = await startRecordingServer(() => ({status: 200}))
    const emulator = await startEmulator({port: 0, settleAfterMs: 0, webhookUrl: `${receiver.url}/hooks`, assumptions: {webhookPayload: 'full'}})
    try {
      const api = emulatorApi(emulator)
      const {transaction} = await api.startPayment('dummy')
      await api.approve(transaction.details.approval_url, {outcome: 'SETTLEMENT_COMPLETED'})
      expect((await api.transaction(transaction.id)).body.status).toBe('SETTLEMENT_COMPLETED')
      await waitFor(() => receiver.requests.length === 4, 'four webhooks')
      expect(receiver.requests.map((r) => r.body.status)).toEqual(['INITIATED', 'IN_PROGRESS', 'SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED'])
    } finally {
      await emulator.close()
      await receiver.close()
    }
  })
})

function ibanValid(iban: string): boolean {
  const rearranged = `${iban.slice(4)}${iban.slice(0, 4)}`.replace(/[A-Z]/g, (ch) => String(ch.charCodeAt(0) - 55))
  return BigInt(rearranged) % 97n === 1n
}
