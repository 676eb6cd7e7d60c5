/**
 * The duplicate rule against the emulator's real status moves: a payment driven to
 * SETTLEMENT_COMPLETED sends INITIATED, IN_PROGRESS, SETTLEMENT_REQUESTED and
 * SETTLEMENT_COMPLETED once each, and the receivers (`webhook listen`'s listener and the flow's)
 * read each transaction back through a re-read that stalls until every webhook is in, so that
 * by the time it answers the status has moved on. Nothing may be called a duplicate that the
 * emulator did not send twice, nothing may go missing, and the order received is kept; a
 * delivery the emulator does send twice (its `duplicate` fault) is marked.
 */
import {afterEach, describe, expect, it} from 'vitest'

import {type EmulatorEvent, type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import type {FaultRule} from '../../src/emulator/faults/index.js'
import {type FlowListenerWebhook, startRedirectListener} from '../../src/flow/redirect-listener.js'
import {renderWebhookLine, webhookLine} from '../../src/output/webhook.js'
import {approvalFormFields} from '../../src/test-mode/outcomes.js'
import {type WebhookListener, type WebhookReport, startWebhookListener} from '../../src/webhooks/listener.js'
import {emulatorApi} from '../helpers/emulator-api.js'
import {waitFor} from '../helpers/wait-for.js'

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const MOVES = ['INITIATED', 'IN_PROGRESS', 'SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED']

async function emulatorSendingTo(url: string, options: {payload?: 'full'; faults?: FaultRule[]} = {}) {
  const events: EmulatorEvent[] = []
  const emulator: RunningEmulator = await startEmulator({
    port: 0,
    settleAfterMs: 0,
    webhookUrl: url,
    webhookBackoffMs: 20,
    ...(options.payload ? {assumptions: {webhookPayload: options.payload}} : {}),
    ...(options.faults ? {faults: {rules: options.faults, seed: 1}} : {}),
    onEvent: (event) => events.push(event),
  })
  cleanups.push(() => emulator.close())
  /** The statuses of the webhooks the emulator sent and had answered, in the order sent. */
  const sent = () => events.flatMap((event) => (event.event === 'webhook' && event.outcome === 'delivered' ? [event.status] : []))
  return {emulator, api: emulatorApi(emulator), sent}
}

/**
 * A person paying: the page opened once the first webhook is in, approved once the second is,
 * so that the emulator's moves come one after another as a real payment's do.
 */
async function payToSettlement(api: ReturnType<typeof emulatorApi>, received: () => number): Promise<string> {
  const {transaction} = await api.startPayment('dummy')
  await waitFor(() => received() >= 1, 'the INITIATED webhook')
  expect((await api.openApproval(transaction.details.approval_url)).status).toBe(200)
  await waitFor(() => received() >= 2, 'the IN_PROGRESS webhook')
  expect((await api.approve(transaction.details.approval_url, approvalFormFields('dummy', 'SETTLEMENT_COMPLETED')!)).status).toBe(303)
  return transaction.id
}

/** `webhook listen`'s listener, whose re-read of each transaction answers only once `release()` holds. */
async function stalledListener(release: () => boolean, read: (id: string) => Promise<unknown>) {
  const reports: WebhookReport[] = []
  const listener: WebhookListener = await startWebhookListener({
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: 1 << 20,
    fetchTransaction: async (id) => {
      await waitFor(release, 'the re-read to be let through')
      return (await read(id)) as never
    },
    onWebhook: (report) => reports.push(report),
    onRejected: () => undefined,
  })
  cleanups.push(() => listener.close(0))
  return {listener, reports}
}

describe('webhook listen: duplicates are deliveries sent again, never statuses read again', () => {
  it('minimal bodies and a stalled re-read: four webhooks, four lines in order, none a duplicate, each read status said to be read', async () => {
    let reader: ((id: string) => Promise<unknown>) | undefined
    let listenerRef: WebhookListener | undefined
    const {listener, reports} = await stalledListener(
      () => listenerRef !== undefined && listenerRef.counts().received >= 4,
      (id) => reader!(id),
    )
    listenerRef = listener
    const {api, sent} = await emulatorSendingTo(listener.url)
    reader = async (id) => (await api.transaction(id)).body
    const id = await payToSettlement(api, () => listener.counts().received)

    await waitFor(() => reports.length >= 4, 'four reports')
    await waitFor(() => sent().length >= MOVES.length, 'the emulator noting every delivery')
    expect(sent()).toEqual(MOVES)
    const lines = reports.map((report) => webhookLine(report))
    expect(lines.map((line) => line.seq)).toEqual([1, 2, 3, 4])
    expect(lines.map((line) => (line.event === 'webhook' ? [line.transaction_id, line.status, line.duplicate] : line))).toEqual(MOVES.map(() => [id, null, false]))
    expect(listener.counts().duplicates).toBe(0)
    // Every re-read answered after the payment settled: the status is the service's, read late,
    // and the first two lines say the service had moved on since they came.
    expect(lines.map((line) => (line.event === 'webhook' ? line.service_status : undefined))).toEqual(MOVES.map(() => 'SETTLEMENT_COMPLETED'))
    expect(lines.map((line) => (line.event === 'webhook' ? line.moved_on : undefined))).toEqual([true, true, expect.any(Boolean), false])
    const shown = lines.map((line) => renderWebhookLine(line))
    expect(shown[0]).toMatch(/  SETTLEMENT_COMPLETED \(read from the service, which had moved on since the webhook came\)$/)
    expect(shown[3]).toMatch(/  SETTLEMENT_COMPLETED \(read from the service when it came\)$/)
    expect(shown.join('\n')).not.toContain('duplicate')
  })

  it('full bodies and a stalled re-read: each line shows the status its webhook carried, in the order sent', async () => {
    let listenerRef: WebhookListener | undefined
    let reader: ((id: string) => Promise<unknown>) | undefined
    const {listener, reports} = await stalledListener(() => listenerRef !== undefined && listenerRef.counts().received >= 4, (id) => reader!(id))
    listenerRef = listener
    const {api, sent} = await emulatorSendingTo(listener.url, {payload: 'full'})
    reader = async (id) => (await api.transaction(id)).body
    await payToSettlement(api, () => listener.counts().received)

    await waitFor(() => reports.length >= 4, 'four reports')
    await waitFor(() => sent().length >= MOVES.length, 'the emulator noting every delivery')
    expect(sent()).toEqual(MOVES)
    const lines = reports.map((report) => webhookLine(report))
    expect(lines.map((line) => (line.event === 'webhook' ? [line.status, line.duplicate, line.moved_on] : line))).toEqual([
      ['INITIATED', false, true],
      ['IN_PROGRESS', false, true],
      ['SETTLEMENT_REQUESTED', false, true],
      ['SETTLEMENT_COMPLETED', false, false],
    ])
    expect(renderWebhookLine(lines[0])).toMatch(/  INITIATED \(the service has moved on: now SETTLEMENT_COMPLETED\)$/)
  })

  it('a delivery the emulator sends twice is marked duplicate, and only that one', async () => {
    const reports: WebhookReport[] = []
    const listener = await startWebhookListener({host: '127.0.0.1', port: 0, maxBodyBytes: 1 << 20, onWebhook: (report) => reports.push(report), onRejected: () => undefined})
    cleanups.push(() => listener.close(0))
    const {api, sent} = await emulatorSendingTo(listener.url, {payload: 'full', faults: [{fault: 'duplicate', webhook: {status: 'IN_PROGRESS'}}]})
    await payToSettlement(api, () => listener.counts().received)

    await waitFor(() => reports.length >= 5, 'five reports')
    // The emulator notes a delivery once its answer is in, which may be after the listener reported it.
    await waitFor(() => sent().length >= MOVES.length, 'the emulator noting every delivery')
    expect(sent()).toEqual(MOVES)
    expect(reports.map((report) => (report.kind === 'webhook' ? [report.event.status, report.duplicate] : report))).toEqual([
      ['INITIATED', false],
      ['IN_PROGRESS', false],
      ['IN_PROGRESS', true],
      ['SETTLEMENT_REQUESTED', false],
      ['SETTLEMENT_COMPLETED', false],
    ])
    expect(listener.counts().duplicates).toBe(1)
  })
})

describe('the flow’s listener: the same rule, the same order', () => {
  it('minimal bodies and a stalled status read: every webhook listed once, in the order received, none a duplicate', async () => {
    let api: ReturnType<typeof emulatorApi> | undefined
    let arrived = 0
    const listed: FlowListenerWebhook[] = []
    const listener = await startRedirectListener({
      readStatus: async (id) => {
        arrived++
        await waitFor(() => arrived >= 4, 'every webhook to be in')
        const transaction = (await api!.transaction(id)).body
        return {status: transaction.status, updatedAt: transaction.last_status_update}
      },
      onWebhook: (webhook) => listed.push(webhook),
    })
    cleanups.push(() => listener.close())
    const {api: emulatorClient, sent} = await emulatorSendingTo(listener.webhookUrl)
    api = emulatorClient
    await payToSettlement(api, () => arrived)

    await waitFor(() => listed.length >= 4, 'four webhooks listed')
    await waitFor(() => sent().length >= MOVES.length, 'the emulator noting every delivery')
    expect(sent()).toEqual(MOVES)
    expect(listener.webhooks()).toEqual(listed)
    expect(listed.map((hook) => hook.duplicate)).toEqual([false, false, false, false])
    expect(listed.map((hook) => hook.receivedAt)).toEqual(listed.map((hook) => hook.receivedAt).toSorted())
    expect(listed.map((hook) => [hook.status, hook.statusFrom])).toEqual(MOVES.map(() => ['SETTLEMENT_COMPLETED', 'service']))
    expect(listed.map((hook) => hook.movedOn)).toEqual([true, true, expect.any(Boolean), false])
  })

  it('a delivery sent twice is marked duplicate by the flow’s listener too', async () => {
    const listener = await startRedirectListener({})
    cleanups.push(() => listener.close())
    const {api} = await emulatorSendingTo(listener.webhookUrl, {payload: 'full', faults: [{fault: 'duplicate', webhook: {status: 'IN_PROGRESS'}}]})
    await payToSettlement(api, () => listener.webhooks().length)
    await waitFor(() => listener.webhooks().length >= 5, 'five webhooks')
    expect(listener.webhooks().map((hook) => [hook.status, hook.duplicate])).toEqual([
      ['INITIATED', false],
      ['IN_PROGRESS', false],
      ['IN_PROGRESS', true],
      ['SETTLEMENT_REQUESTED', false],
      ['SETTLEMENT_COMPLETED', false],
    ])
  })
})
