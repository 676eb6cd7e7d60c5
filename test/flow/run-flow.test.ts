/**
 * runFlow's orchestration against a scripted service on 127.0.0.1 (the recording server): what
 * is sent, in what order, and what the result says. The end-to-end tests run it against the
 * emulator through the CLI.
 */

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {InputError, InterruptedError, outcomeExitCode} from '../../src/errors.js'
import {PaymentService} from '../../src/api/service.js'
import type {FlowEvent} from '../../src/flow/events.js'
import type {FlowOptions} from '../../src/flow/flow-options.js'
import {type FlowResult, runFlow} from '../../src/flow/run-flow.js'
import {builtinLocalProfile} from '../../src/profiles/presets.js'
import type {ResolvedProfile} from '../../src/profiles/resolve.js'
import {canBind} from '../helpers/ports.js'
import {type RecordedRequest, type RecordingServer, type Reply, startRecordingServer} from '../helpers/recording-server.js'

const TX_ID = 'tx-0001'

interface FakeState {
  status: string
  /** Statuses the transaction moves through on later reads after the approval. */
  later: string[]
  redirectUrl?: string
  webhookUrl?: string
  /** What the approval POST does: a status, or an error redirect. */
  onApprove: (form: URLSearchParams) => {status: string; error?: string}
}

async function startFakeService(state: FakeState): Promise<RecordingServer> {
  let server: RecordingServer
  const tx = () => ({
    id: TX_ID,
    amount: '1499',
    payment_product: 'dummy',
    status: state.status,
    status_reason: '',
    details: {redirect_url: state.redirectUrl, approval_url: `${server.url}/v1/transaction/${TX_ID}/authorize`},
    created_at: '2026-11-20T10:00:00.000Z',
    last_status_update: '2026-11-20T10:00:00.000Z',
  })
  const sendWebhook = (status: string) => {
    if (state.webhookUrl) fetch(state.webhookUrl, {method: 'POST', body: JSON.stringify({type: 'transaction', id: TX_ID, status})}).catch(() => undefined)
  }
  const advance = () => {
    const next = state.later.shift()
    if (next) {
      state.status = next
      sendWebhook(next)
    }
  }
  server = await startRecordingServer((req: RecordedRequest): Reply | undefined => {
    if (req.method === 'POST' && req.path === '/v1/customer') return {json: {id: 'cus-1', ...req.body}}
    if (req.method === 'POST' && req.path.startsWith('/h2h/tokenize/proxy/')) return {json: {id: 'card-1', last4: req.body.pan.slice(-4)}}
    if (req.method === 'POST' && req.path === '/v1/transaction/start') {
      state.redirectUrl = req.body.details.redirect_url
      state.webhookUrl = req.body.webhook_transaction_update
      return {json: tx()}
    }
    if (req.path === `/v1/transaction/${TX_ID}/authorize`) {
      if (req.method === 'GET') {
        state.status = 'IN_PROGRESS'
        return {text: '<form method="post"></form>', headers: {'content-type': 'text/html'}}
      }
      const decision = state.onApprove(new URLSearchParams(req.rawBody))
      state.status = decision.status
      sendWebhook(decision.status)
      const location = new URL(state.redirectUrl!)
      if (decision.error) location.searchParams.set('error', decision.error)
      else location.searchParams.set('transaction_id', TX_ID)
      return {status: 303, headers: {location: location.toString()}, text: ''}
    }
    if (req.path === `/v1/transaction/${TX_ID}/checkoutsuccess`) {
      const reading = {status: state.status, status_reason: '', success: ['SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED'].includes(state.status)}
      advance()
      return {json: reading}
    }
    if (req.path === `/v1/transaction/${TX_ID}`) return {json: tx()}
    return undefined
  })
  return server
}

function profileFor(server: RecordingServer, env: 'local' | 'sandbox' = 'local'): ResolvedProfile {
  return {name: env === 'local' ? 'local' : 'sandbox', profile: {...builtinLocalProfile(), env, base_url: server.url, h2h_url: `${server.url}/h2h`}, overrides: []}
}

/** The result with the exit code it leads to, as `paytx flow --json` prints it. */
function withExitCode(result: FlowResult) {
  return {exitCode: outcomeExitCode(result), ...result}
}

/** The kinds of events in order, webhooks and refused requests left out (they arrive at any moment). */
function sequence(events: readonly FlowEvent[]): string[] {
  return events.filter((event) => event.kind !== 'webhook-received' && event.kind !== 'request-refused').map((event) => event.kind === 'step-started' ? `${event.kind}:${event.step}` : event.kind)
}

const baseOptions: FlowOptions = {
  product: 'dummy',
  amount: 1499,
  openBrowser: false,
  webhook: {mode: 'local'},
  waitTimeoutMs: 5_000,
  until: 'final',
}

const fastDeps = {redirectGraceMs: 50, webhookGraceMs: 500, pollInitialDelayMs: 10, pollMaxDelayMs: 20, redirectWatchDelayMs: 20}

describe('runFlow', () => {
  let server: RecordingServer
  let service: PaymentService
  let state: FakeState
  beforeEach(async () => {
    state = {status: 'INITIATED', later: [], onApprove: (form) => ({status: form.get('outcome') ?? 'FAILED'})}
    server = await startFakeService(state)
    service = new PaymentService({profileName: 'local', profile: profileFor(server).profile})
  })
  afterEach(async () => {
    await service.close()
    await server.close()
  })

  it('with --approve: customer, start, form POST, redirect to its own listener, verdict from the service', async () => {
    const events: FlowEvent[] = []
    const result = await runFlow(service, profileFor(server), {...baseOptions, approve: 'SETTLEMENT_REQUESTED', merchantReference: 'order-1'}, {...fastDeps, onEvent: (event) => events.push(event)})

    const paths = server.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`)
    expect(paths.slice(0, 4)).toEqual([
      'POST /v1/customer',
      'POST /v1/transaction/start',
      `GET /v1/transaction/${TX_ID}/authorize`,
      `POST /v1/transaction/${TX_ID}/authorize`,
    ])
    const start = server.requests[1].body
    expect(start).toMatchObject({amount: 1499, customer: 'cus-1', payment_product: 'dummy', merchant_reference: 'order-1', customer_ip: '127.0.0.1'})
    expect(start.payment_profile).toBe(builtinLocalProfile().payment_profile)
    expect(start.details.redirect_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/flow\/[\w-]+\/redirect$/)
    expect(start.webhook_transaction_update).toBe(start.details.redirect_url.replace(/redirect$/, 'webhook'))
    expect(server.requests[3].rawBody).toBe('outcome=SETTLEMENT_REQUESTED')
    expect(server.requests[0].body).toMatchObject({first_name: 'Jane', organisation: builtinLocalProfile().organisation})

    expect(withExitCode(result)).toMatchObject({
      exitCode: 0,
      profile: 'local',
      environment: 'local',
      customerId: 'cus-1',
      transactionId: TX_ID,
      product: 'dummy',
      amount: 1499,
      status: 'SETTLEMENT_REQUESTED',
      success: true,
      final: false,
      redirect: {received: true, transactionId: TX_ID},
      rejectedRequests: 0,
    })
    expect(result.webhooks.map((w) => w.status)).toEqual(['SETTLEMENT_REQUESTED'])
    expect(result.steps.map((s) => s.name)).toEqual(['customer', 'transaction', 'approval', 'redirect', 'status'])
    // The events, in order: each step announced, then what it found; the verdict last.
    expect(sequence(events)).toEqual([
      'step-started:customer',
      'customer-created',
      'step-started:transaction',
      'transaction-started',
      'step-started:approval',
      'approval-completed',
      'step-started:redirect',
      'redirect-received',
      'step-started:status',
      'verdict',
    ])
    expect(events).toContainEqual(expect.objectContaining({kind: 'customer-created', customerId: 'cus-1', profile: 'local'}))
    expect(events).toContainEqual(expect.objectContaining({kind: 'transaction-started', transactionId: TX_ID, status: 'INITIATED'}))
    expect(events).toContainEqual(expect.objectContaining({kind: 'approval-completed', outcome: 'SETTLEMENT_REQUESTED'}))
    expect(events).toContainEqual(expect.objectContaining({kind: 'redirect-received', transactionId: TX_ID}))
    expect(events).toContainEqual(expect.objectContaining({kind: 'webhook-received', status: 'SETTLEMENT_REQUESTED', duplicate: false}))
    expect(events.at(-1)).toMatchObject({kind: 'verdict', status: 'SETTLEMENT_REQUESTED', conclusive: true, final: false, success: true, waitTimeoutMs: 5_000})
    // Times count from the start of the flow and never go back; the result's timeline is the same list.
    const times = events.map((event) => event.elapsedMs)
    expect(times).toEqual([...times].sort((a, b) => a - b))
    expect(result.timeline).toEqual(events)
  })

  it('waits through SETTLEMENT_REQUESTED with until settled, polling the service', async () => {
    state.later = ['SETTLEMENT_REQUESTED', 'SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED']
    const result = await runFlow(service, profileFor(server), {...baseOptions, approve: 'SETTLEMENT_REQUESTED', until: 'settled'}, fastDeps)
    expect(withExitCode(result)).toMatchObject({exitCode: 0, status: 'SETTLEMENT_COMPLETED', final: true, success: true})
    expect(server.requests.filter((r) => r.path.endsWith('/checkoutsuccess')).length).toBeGreaterThanOrEqual(3)
    expect(result.webhooks.map((w) => w.status)).toContain('SETTLEMENT_COMPLETED')
  })

  it('gives exit 3 for a final failure and exit 4 when the status never becomes conclusive', async () => {
    const declined = await runFlow(service, profileFor(server), {...baseOptions, approve: 'DECLINED'}, fastDeps)
    expect(withExitCode(declined)).toMatchObject({exitCode: 3, status: 'DECLINED', final: true, success: false})

    state.status = 'INITIATED'
    const pending = await runFlow(service, profileFor(server), {...baseOptions, approve: 'UNKNOWN', waitTimeoutMs: 300}, fastDeps)
    expect(withExitCode(pending)).toMatchObject({exitCode: 4, status: 'UNKNOWN', final: false, success: false})
  })

  it('survives a wait that is over before the redirect is awaited (a slow approval under load)', async () => {
    const unhandled: unknown[] = []
    const record = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', record)
    try {
      const result = await runFlow(service, profileFor(server), {...baseOptions, approve: 'UNKNOWN', waitTimeoutMs: 1}, fastDeps)
      expect(withExitCode(result)).toMatchObject({exitCode: 4, status: 'UNKNOWN', redirect: {received: true, transactionId: TX_ID}})
      await new Promise((resolve) => setTimeout(resolve, 20))
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', record)
    }
  })

  it('drives the page through the injected browser opener like a person would', async () => {
    const opened: string[] = []
    const openUrl = async (url: string) => {
      opened.push(url)
      await fetch(url)
      const answer = await fetch(url, {method: 'POST', body: 'outcome=CANCELLED', headers: {'content-type': 'application/x-www-form-urlencoded'}, redirect: 'manual'})
      // a second, stray redirect to the wrong transaction is refused and counted
      await fetch(answer.headers.get('location')!.replace(TX_ID, 'someone-else'))
      await fetch(answer.headers.get('location')!)
      return {opened: true} as const
    }
    const result = await runFlow(service, profileFor(server), {...baseOptions, openBrowser: true}, {...fastDeps, openUrl})
    expect(opened).toEqual([`${server.url}/v1/transaction/${TX_ID}/authorize`])
    expect(withExitCode(result)).toMatchObject({exitCode: 3, status: 'CANCELLED', redirect: {received: true}, rejectedRequests: 1})
    expect(sequence(result.timeline).slice(4, 9)).toEqual(['step-started:approval', 'approval-opened', 'step-started:redirect', 'waiting', 'redirect-received'])
    expect(result.timeline).toContainEqual(expect.objectContaining({kind: 'request-refused', status: 400, method: 'GET'}))
  })

  it('says when no browser could be opened, shows the address and how long it waits, and still takes the redirect', async () => {
    const events: FlowEvent[] = []
    const openUrl = async (url: string) => {
      // The person opens the address by hand.
      setTimeout(async () => {
        const answer = await fetch(url, {method: 'POST', body: 'outcome=SETTLEMENT_REQUESTED', headers: {'content-type': 'application/x-www-form-urlencoded'}, redirect: 'manual'})
        await fetch(answer.headers.get('location')!)
      }, 30)
      return {opened: false, reason: 'BROWSER=/usr/bin/false exited with code 1'} as const
    }
    const result = await runFlow(service, profileFor(server), {...baseOptions, openBrowser: true}, {...fastDeps, openUrl, onEvent: (event) => events.push(event)})
    expect(withExitCode(result)).toMatchObject({exitCode: 0, status: 'SETTLEMENT_REQUESTED', redirect: {received: true}})
    const approvalUrl = `${server.url}/v1/transaction/${TX_ID}/authorize`
    expect(events).toContainEqual(expect.objectContaining({kind: 'approval-not-opened', url: approvalUrl, reason: 'BROWSER=/usr/bin/false exited with code 1'}))
    expect(events.some((event) => event.kind === 'approval-opened')).toBe(false)
    const waiting = events.find((event) => event.kind === 'waiting')
    expect(waiting).toMatchObject({for: 'redirect'})
    expect((waiting as {remainingMs: number}).remainingMs).toBeGreaterThan(4_000)
    expect((waiting as {remainingMs: number}).remainingMs).toBeLessThanOrEqual(5_000)
  })

  it('reports the error parameter of a problem redirect and still asks the service', async () => {
    state.onApprove = () => ({status: 'FAILED', error: 'Transaction already final'})
    const result = await runFlow(service, profileFor(server), {...baseOptions, approve: 'SETTLEMENT_REQUESTED'}, fastDeps)
    expect(withExitCode(result)).toMatchObject({exitCode: 3, status: 'FAILED', redirect: {received: true, error: 'Transaction already final'}})
    expect(result.timeline).toContainEqual(expect.objectContaining({kind: 'redirect-error', error: 'Transaction already final'}))
    expect(result.timeline.at(-1)).toMatchObject({kind: 'verdict', status: 'FAILED', conclusive: true, success: false})
  })

  it('ends the wait without a redirect when the service reports a final status', async () => {
    const openUrl = async () => {
      state.status = 'ABANDONED'
      return {opened: true} as const
    }
    const result = await runFlow(service, profileFor(server), {...baseOptions, openBrowser: true}, {...fastDeps, openUrl})
    expect(withExitCode(result)).toMatchObject({exitCode: 3, status: 'ABANDONED', redirect: {received: false}})
    expect(result.timeline).toContainEqual(expect.objectContaining({kind: 'redirect-missing', status: 'ABANDONED'}))
  }, 10_000)

  it('tokenizes the test card for the outcome on a card flow and never sends the PAN elsewhere', async () => {
    const result = await runFlow(service, profileFor(server), {...baseOptions, product: 'card', approve: 'DECLINED', cvv: '123'}, fastDeps)
    const tokenize = server.requests.find((r) => r.path.startsWith('/h2h/tokenize/proxy/'))!
    expect(tokenize.body).toMatchObject({customer: 'cus-1', pan: '4000000000000002', expiry_month: '12', holder_name: 'Jane Tester'})
    expect(tokenize.headers['tx-proxy-key']).toBe(builtinLocalProfile().proxy_key)
    expect(tokenize.headers['x-apikey']).toBeUndefined()
    const start = server.requests.find((r) => r.path === '/v1/transaction/start')!
    expect(start.body).toMatchObject({card: 'card-1', payment_product: 'card', details: {card_cvv: '123'}})
    expect(server.requests.filter((r) => r.rawBody.includes('4000000000000002'))).toHaveLength(1)
    expect(result).toMatchObject({cardId: 'card-1', cardLast4: '0002'})
    expect(sequence(result.timeline).slice(0, 4)).toEqual(['step-started:customer', 'customer-created', 'step-started:card', 'card-tokenized'])
    expect(result.timeline).toContainEqual(expect.objectContaining({kind: 'card-tokenized', cardId: 'card-1', last4: '0002', testCard: true}))
    expect(JSON.stringify(result.timeline)).not.toContain('4000000000000002')
  })

  it('on abort closes the listener, frees the port and names the transaction', async () => {
    const controller = new AbortController()
    let port = 0
    const openUrl = async (url: string) => {
      port = Number(new URL(server.requests.find((r) => r.path === '/v1/transaction/start')!.body.details.redirect_url).port)
      expect(url).toContain(TX_ID)
      setTimeout(() => controller.abort(new InterruptedError()), 50)
      return {opened: true} as const
    }
    const flow = runFlow(service, profileFor(server), {...baseOptions, openBrowser: true, signal: controller.signal}, {...fastDeps, openUrl})
    await expect(flow).rejects.toSatisfy((error: unknown) => error instanceof InterruptedError && error.message.includes(TX_ID))
    expect(await canBind(port)).toBe(true)
  })

  it('refuses --approve off the emulator and outcomes the page does not offer, sending nothing', async () => {
    await expect(runFlow(service, profileFor(server, 'sandbox'), {...baseOptions, approve: 'SETTLEMENT_COMPLETED'})).rejects.toMatchObject({
      flag: '--approve',
      exitCode: 2,
    })
    const wrong = runFlow(service, profileFor(server), {...baseOptions, product: 'sofort', approve: 'PENDING'})
    await expect(wrong).rejects.toBeInstanceOf(InputError)
    await expect(wrong).rejects.toThrow('allowed: SETTLEMENT_COMPLETED, DECLINED, CANCELLED')
    await expect(runFlow(service, profileFor(server), {...baseOptions, product: 'sofort', descriptor: 'Bestellung #1'})).rejects.toMatchObject({flag: '--descriptor'})
    expect(server.requests).toHaveLength(0)
  })
})
