import {createServer} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {type EmulatorEvent, type RunningEmulator, startEmulator} from '../../../src/emulator/index.js'
import {emulatorApi} from '../../helpers/emulator-api.js'
import {ManualClock} from '../../helpers/manual-clock.js'
import {type RecordingServer, startRecordingServer} from '../../helpers/recording-server.js'
import {waitFor} from '../../helpers/wait-for.js'

/** A port nothing listens on: bound, noted, released. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as {port: number}
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('webhook delivery', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  async function setup(options: {receiverUrl?: string; attempts?: number; backoffMs?: number; clock?: ManualClock} = {}) {
    const receiver = await startRecordingServer(() => ({status: 200, json: {received: true}}))
    cleanups.push(() => receiver.close())
    const events: EmulatorEvent[] = []
    const lines: string[] = []
    const emulator: RunningEmulator = await startEmulator({
      port: 0,
      settleAfterMs: 60_000,
      webhookUrl: options.receiverUrl ?? `${receiver.url}/hooks?key=s3cret-token-value`,
      webhookAttempts: options.attempts ?? 4,
      webhookBackoffMs: options.backoffMs ?? 20,
      ...(options.clock ? {clock: options.clock} : {}),
      // These tests read each webhook's status from its body: the full payload.
      assumptions: {webhookPayload: 'full'},
      onEvent: (event) => events.push(event),
      log: (line) => lines.push(line),
    })
    cleanups.push(() => emulator.close())
    return {receiver, emulator, api: emulatorApi(emulator), events, lines}
  }

  const deliveryLog = async (emulator: RunningEmulator, transaction?: string): Promise<any[]> => {
    const answer = (await (await fetch(`${emulator.url}/_emulator/webhooks${transaction ? `?transaction=${transaction}` : ''}`)).json()) as {deliveries: any[]}
    return answer.deliveries
  }

  it('retries a receiver that first fails (500, then 503) with back-off, and logs every attempt', async () => {
    const {receiver, emulator, api, events, lines} = await setup()
    receiver.reply((r) => r.body?.status === 'INITIATED', {status: 500, text: 'boom'}, {status: 503, text: 'busy'})
    const started = Date.now()
    const {transaction} = await api.startPayment('dummy')
    const attempts = await waitFor(() => {
      const got = receiver.requests.filter((r) => r.body?.status === 'INITIATED')
      return got.length === 3 ? got : undefined
    }, 'three attempts')
    // Back-off of 20 ms, then 40 ms: the third attempt cannot come before 60 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(55)
    expect(attempts.every((r) => r.rawBody === attempts[0].rawBody)).toBe(true)

    const [delivery] = await waitFor(async () => {
      const log = await deliveryLog(emulator, transaction.id)
      return log[0]?.state === 'delivered' ? log : undefined
    }, 'the delivery to be logged as delivered')
    // Read without the API key, the address's token is hidden; the key's holder sees it whole.
    expect(delivery).toMatchObject({transaction: transaction.id, status: 'INITIATED', url: `${receiver.url}/hooks?key=…`, state: 'delivered'})
    const keyed = (await (await fetch(`${emulator.url}/_emulator/webhooks?transaction=${transaction.id}`, {headers: {[emulator.apiKeyHeader]: emulator.apiKey}})).json()) as {deliveries: any[]}
    expect(keyed.deliveries[0].url).toBe(`${receiver.url}/hooks?key=s3cret-token-value`)
    expect(delivery.attempts.map((a: any) => a.http_status)).toEqual([500, 503, 200])
    expect(delivery.attempts.map((a: any) => a.attempt)).toEqual([1, 2, 3])
    expect(delivery.delivered_at).toMatch(/Z$/)

    const webhookEvents = events.filter((e) => e.event === 'webhook' && e.transaction === transaction.id) as any[]
    expect(webhookEvents.map((e) => e.outcome)).toEqual(['retrying', 'retrying', 'delivered'])
    expect(webhookEvents.map((e) => e.retry_in_ms)).toEqual([20, 40, undefined])
    const webhookLines = lines.filter((line) => line.includes('webhook INITIATED'))
    expect(webhookLines).toHaveLength(3)
    expect(webhookLines[0]).toMatch(/attempt 1\/4: HTTP 500, retry in 20ms/)
    expect(webhookLines[2]).toMatch(/attempt 3\/4: HTTP 200, delivered/)
    // The receiver's secret token stays out of the terminal.
    for (const line of lines) expect(line).not.toContain('s3cret-token-value')
  })

  it('retries connection failures and gives up after the configured attempts', async () => {
    const port = await closedPort()
    const {emulator, api, events} = await setup({receiverUrl: `http://127.0.0.1:${port}/hooks`, attempts: 3, backoffMs: 5})
    const {transaction} = await api.startPayment('dummy')
    const [delivery] = await waitFor(async () => {
      const log = await deliveryLog(emulator, transaction.id)
      return log[0]?.state === 'failed' ? log : undefined
    }, 'the delivery to fail')
    expect(delivery.attempts).toHaveLength(3)
    expect(delivery.attempts.every((a: any) => a.error === 'ECONNREFUSED' && a.http_status === undefined)).toBe(true)
    expect(events.filter((e) => e.event === 'webhook').map((e: any) => e.outcome)).toEqual(['retrying', 'retrying', 'failed'])
  })

  it('keeps status order per transaction while an earlier delivery is retried, and never blocks the API', async () => {
    // The retry waits for the test's clock: the API must answer while it is still to come (a
    // bound of 140 ms on the answer also fails when a loaded machine is merely slow).
    const clock = new ManualClock(Date.now())
    const {receiver, api, events} = await setup({backoffMs: 150, clock})
    receiver.reply((r) => r.body?.status === 'INITIATED', {status: 500})
    const {transaction} = await api.startPayment('dummy')
    await waitFor(() => events.some((event) => event.event === 'webhook' && event.outcome === 'retrying'), 'the first attempt to fail')
    const done = await api.approve(transaction.details.approval_url, {outcome: 'DECLINED'})
    expect(done.status).toBe(303)
    expect(receiver.requests.map((r) => `${r.body.status}`)).toEqual(['INITIATED'])
    clock.advance(150)
    await waitFor(() => receiver.requests.length === 4, 'four deliveries')
    expect(receiver.requests.map((r) => `${r.body.status}`)).toEqual(['INITIATED', 'INITIATED', 'IN_PROGRESS', 'DECLINED'])
  })

  it('answers the API at once while a receiver hangs', async () => {
    // The receiver holds every webhook until the approval has been answered: an API that waited
    // for its webhook would never answer (a timed bound here depended on the machine's load).
    let answered!: () => void
    const approvalAnswered = new Promise<void>((resolve) => (answered = resolve))
    const hanging = await startRecordingServer(() => ({status: 200, heldUntil: approvalAnswered}))
    cleanups.push(() => hanging.close())
    const {api} = await setup({receiverUrl: `${hanging.url}/slow`})
    const {transaction} = await api.startPayment('dummy')
    await waitFor(() => hanging.requests.length > 0, 'the receiver to be holding a webhook')
    const done = await api.approve(transaction.details.approval_url, {outcome: 'CANCELLED'})
    answered()
    expect(done.status).toBe(303)
  })

  it('sends nothing when neither the transaction nor the payment profile has an address', async () => {
    const emulator = await startEmulator({port: 0})
    cleanups.push(() => emulator.close())
    const {transaction} = await emulatorApi(emulator).startPayment('dummy')
    expect(transaction.status).toBe('INITIATED')
    expect(await deliveryLog(emulator)).toEqual([])
  })
})
