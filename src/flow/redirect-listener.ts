/**
 * The flow's one-shot local listener on 127.0.0.1: it catches the browser's redirect back from
 * the approval page and, on the same port, the transaction's webhooks.
 *
 * Both paths carry a random token, so no other redirect or webhook is accepted: a request on any
 * other path gets 404, a redirect without the expected `transaction_id` gets 400, and whatever is
 * not a request the listener can read gets its 4xx too (request-shape.ts: 405, 414, 431, 400 for
 * a query or a body a redirect does not have); each is counted, answered with a short plain page,
 * and the listener keeps waiting. The browser is answered with a small page saying the payment
 * finished and where the result is. Every answer closes its connection: one request each.
 */
import {randomBytes} from 'node:crypto'
import type {IncomingMessage, Server, ServerResponse} from 'node:http'

import {BodyTooLargeError, readCappedBody} from '../http/body.js'
import {escapeHtml, renderHtmlDocument} from '../http/html.js'
import {MAX_JSON_NESTING, jsonNestingDepth} from '../http/json-nesting.js'
import {listen} from '../http/listen.js'
import {DuplicateDetector} from '../webhooks/duplicates.js'
import {WEBHOOK_BODY_LIMIT_BYTES, type WebhookEvent, readWebhookEvent, serviceMovedOn} from '../webhooks/event.js'
import {MAX_URL_LENGTH, answerParseErrors, queryProblem} from './request-shape.js'

export const LISTENER_HOST = '127.0.0.1'
/** How much of a refused request's path the log of refusals shows. */
const SHOWN_PATH_LENGTH = 120

export interface RedirectReceived {
  transactionId?: string
  /** The `error` query parameter, decoded. */
  error?: string
  /** Every query parameter as received, decoded. */
  query: Record<string, string>
  receivedAt: string
}

/** A webhook the flow's listener accepted. */
export interface FlowListenerWebhook extends WebhookEvent {
  receivedAt: string
  /** Where `status` comes from: the body, or (a body without one) the transaction read from the service when it came. */
  statusFrom?: 'webhook' | 'service'
  /** A status read from the service was reached after the webhook came: not the one it was sent for. */
  movedOn?: boolean
  /** The same delivery arrived before: the same transaction id and status, carried by the body (webhooks/duplicates.ts). */
  duplicate: boolean
}

/** A transaction's status as the service reports it, and when it was reached (last_status_update). */
export interface StatusReading {
  status: string
  updatedAt?: string
}

export interface RejectedRequest {
  method: string
  /** The path without its query, with the token replaced so it never lands in logs. */
  path: string
  status: number
  reason: string
}

/** What the browser's landing page says about the payment, when the flow could read it in time. */
export interface LandingOutcome {
  status: string
  success: boolean
  final: boolean
}

export interface RedirectListenerOptions {
  /** 0 or undefined picks a free port. */
  port?: number
  /** The landing page waits this long for `describeOutcome`. */
  landingWaitMs?: number
  /** Asked once per accepted redirect, so the landing page can show the status. */
  describeOutcome?: (redirect: RedirectReceived) => Promise<LandingOutcome | undefined>
  onRejected?: (request: RejectedRequest) => void
  onWebhook?: (webhook: FlowListenerWebhook) => void
  /**
   * Reads the transaction's status from the service, for a webhook whose body carries none (the
   * service's clients re-fetch on every webhook). Undefined when it cannot be read.
   */
  readStatus?: (transactionId: string) => Promise<StatusReading | undefined>
}

export interface RedirectListener {
  port: number
  /** The address passed as `details.redirect_url`. */
  redirectUrl: string
  /** The address passed as `webhook_transaction_update`. */
  webhookUrl: string
  /** The transaction whose redirect is accepted; set once the transaction is started. */
  expectTransaction(id: string): void
  /** Resolves with the first accepted redirect; rejects when the signal aborts or the listener closes. */
  waitForRedirect(signal?: AbortSignal): Promise<RedirectReceived>
  redirect(): RedirectReceived | undefined
  webhooks(): FlowListenerWebhook[]
  rejected(): RejectedRequest[]
  /** Stops listening and frees the port; in-flight answers get a moment to finish. */
  close(): Promise<void>
}

/** The `error` parameter is encodeURIComponent text; a second decoding undoes double encoding. */
function decodeErrorParam(value: string): string {
  try {
    return /%[0-9A-Fa-f]{2}/.test(value) ? decodeURIComponent(value) : value
  } catch {
    return value
  }
}

export function landingPage(redirect: RedirectReceived, outcome: LandingOutcome | undefined): string {
  let headline = 'Payment finished'
  if (redirect.error !== undefined) headline = 'The payment page reported a problem'
  else if (outcome && (outcome.final || outcome.success)) headline = outcome.success ? 'Payment finished: success' : 'Payment finished: not a success'
  const problem = redirect.error === undefined ? '' : `<p class="error" id="error">${escapeHtml(redirect.error)}</p>\n`
  const status = outcome
    ? `<p>Status: <span class="status" id="status">${escapeHtml(outcome.status)}</span>${
        outcome.final || outcome.success ? '' : ' (not final yet; the terminal keeps waiting)'
      }</p>\n`
    : ''
  return renderHtmlDocument(
    `paytx: ${headline}`,
    `<p class="brand">paytx flow</p>
<div class="panel">
<h1 id="headline">${escapeHtml(headline)}</h1>
${problem}${status}<p>Transaction <code id="transaction">${escapeHtml(redirect.transactionId ?? '(none)')}</code></p>
<p class="lead">The terminal running <code>paytx flow</code> has the result, read from the service. You can close this tab.</p>
</div>`,
  )
}

type Rejecter = (req: IncomingMessage, res: ServerResponse, status: number, reason: string, headers?: Record<string, string>) => void

/** A request that says it carries a body (a redirect has none). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0')
}

/**
 * The redirect side: which transaction's redirect is accepted, the first one accepted, those
 * waiting for it, and the landing page the browser gets.
 */
class RedirectCatcher {
  private expectedId: string | undefined
  private accepted: RedirectReceived | undefined
  private landing: Promise<LandingOutcome | undefined> | undefined
  private readonly waiters = new Set<{resolve: (r: RedirectReceived) => void; reject: (e: Error) => void}>()

  constructor(
    private readonly reject: Rejecter,
    private readonly describeOutcome: RedirectListenerOptions['describeOutcome'],
    private readonly landingWaitMs: number,
  ) {}

  expect(id: string): void {
    this.expectedId = id
  }

  received(): RedirectReceived | undefined {
    return this.accepted
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return this.reject(req, res, 405, 'Only GET is accepted on the redirect address.', {allow: 'GET, HEAD'})
    if (hasBody(req)) return this.reject(req, res, 400, 'A redirect carries no body.')
    const problem = queryProblem(url.search)
    if (problem) return this.reject(req, res, 400, `The query is not one the payment page sends: ${problem}.`)
    const query = Object.fromEntries(url.searchParams)
    const transactionId = query.transaction_id || undefined
    const error = query.error === undefined ? undefined : decodeErrorParam(query.error)
    if (!this.expectedId) return this.reject(req, res, 400, 'No transaction is expected yet.')
    // A problem redirect may come without an id; with an id it must be ours.
    if (transactionId !== this.expectedId && !(error !== undefined && transactionId === undefined)) {
      return this.reject(req, res, 400, transactionId ? 'This redirect is for another transaction.' : 'The redirect has no transaction_id.')
    }
    const accepted = this.accept({transactionId, error, query, receivedAt: new Date().toISOString()})
    const outcome = await this.outcomeFor(accepted)
    res.writeHead(200, {'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close'})
    res.end(req.method === 'HEAD' ? undefined : landingPage(accepted, outcome))
  }

  /** The first accepted redirect wins; a reload of the landing page shows the same one. */
  private accept(redirect: RedirectReceived): RedirectReceived {
    if (this.accepted) return this.accepted
    this.accepted = redirect
    for (const waiter of this.waiters) waiter.resolve(redirect)
    this.waiters.clear()
    return redirect
  }

  private outcomeFor(redirect: RedirectReceived): Promise<LandingOutcome | undefined> {
    if (!this.describeOutcome) return Promise.resolve(undefined)
    this.landing ??= this.describeOutcome(redirect).catch(() => undefined)
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), this.landingWaitMs)))
    return Promise.race([this.landing, timeout]).finally(() => clearTimeout(timer))
  }

  wait(signal: AbortSignal | undefined, closed: boolean): Promise<RedirectReceived> {
    if (this.accepted) return Promise.resolve(this.accepted)
    if (closed) return Promise.reject(new Error('The redirect listener is closed.'))
    return new Promise<RedirectReceived>((resolve, rejectWait) => {
      if (signal?.aborted) {
        rejectWait(signal.reason)
        return
      }
      const onAbort = () => {
        this.waiters.delete(waiter)
        rejectWait(signal!.reason)
      }
      const waiter = {
        resolve: (redirect: RedirectReceived) => {
          signal?.removeEventListener('abort', onAbort)
          resolve(redirect)
        },
        reject: (error: Error) => {
          signal?.removeEventListener('abort', onAbort)
          rejectWait(error)
        },
      }
      this.waiters.add(waiter)
      signal?.addEventListener('abort', onAbort, {once: true})
    })
  }

  stopWaiting(): void {
    for (const waiter of this.waiters) waiter.reject(new Error('The redirect listener is closed.'))
    this.waiters.clear()
  }
}

/**
 * The webhook side: every webhook accepted, listed in the order received (one whose status is
 * still being read holds back those after it), with repeats of a delivery marked.
 */
class WebhookInbox {
  readonly received: FlowListenerWebhook[] = []
  private readonly duplicates = new DuplicateDetector()
  /** Settles once every webhook received so far is listed. */
  private listed: Promise<void> = Promise.resolve()

  constructor(
    private readonly reject: Rejecter,
    private readonly onWebhook: RedirectListenerOptions['onWebhook'],
    private readonly readStatus: RedirectListenerOptions['readStatus'],
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return this.reject(req, res, 405, 'Only POST is accepted on the webhook address.', {allow: 'POST'})
    let body: unknown
    try {
      const text = (await readCappedBody(req, WEBHOOK_BODY_LIMIT_BYTES)).toString('utf8')
      if (jsonNestingDepth(text) > MAX_JSON_NESTING) return this.reject(req, res, 400, `The body is nested deeper than ${MAX_JSON_NESTING} levels.`)
      body = JSON.parse(text)
    } catch (error) {
      if (error instanceof BodyTooLargeError) return this.reject(req, res, 413, error.message)
      if (error instanceof SyntaxError) return this.reject(req, res, 400, 'The body is not JSON.')
      throw error
    }
    const event = readWebhookEvent(body)
    // Judged by what the body carries, in the order received, before any status is read.
    const webhook: FlowListenerWebhook = {...event, receivedAt: new Date().toISOString(), duplicate: this.duplicates.isDuplicate(event)}
    res.writeHead(200, {'content-type': 'application/json', connection: 'close'})
    res.end('{"received":true}')
    const known = this.withStatus(webhook)
    // Listed once its status is known, so that no one reads a webhook whose status is on its way.
    const listed = Promise.all([this.listed, known]).then(() => {
      this.received.push(webhook)
      this.onWebhook?.(webhook)
    })
    this.listed = listed.catch(() => undefined)
    await listed
  }

  /** The body's status, or the one read from the service when the webhook came (and whether it had moved on by then). */
  private async withStatus(webhook: FlowListenerWebhook): Promise<void> {
    if (webhook.status !== undefined) {
      webhook.statusFrom = 'webhook'
      return
    }
    if (webhook.transactionId === undefined || !this.readStatus) return
    const reading = await this.readStatus(webhook.transactionId).catch(() => undefined)
    if (reading === undefined) return
    Object.assign(webhook, {status: reading.status, statusFrom: 'service', movedOn: serviceMovedOn({}, webhook.receivedAt, reading)})
  }
}

function answerServerError(res: ServerResponse): void {
  if (!res.headersSent) res.writeHead(500, {connection: 'close'})
  res.end()
}

/**
 * The request's target as a URL: a path (origin form), or a whole http address (absolute form,
 * which HTTP/1.1 servers must take too); undefined for anything else (`*`, `//host/...` read as
 * a host, a bare word).
 */
function requestTarget(raw: string): URL | undefined {
  try {
    if (raw.startsWith('/')) return new URL(`http://${LISTENER_HOST}${raw}`)
    if (/^http:\/\//i.test(raw)) return new URL(raw)
  } catch {
    // Not a URL at all: refused below like any other target.
  }
  return undefined
}

/** Sends the redirect to its catcher, webhooks to the inbox, and refuses any other path. */
function router(parts: {redirectPath: string; webhookPath: string; redirects: RedirectCatcher; inbox: WebhookInbox; reject: Rejecter}) {
  const {redirectPath, webhookPath, redirects, inbox, reject} = parts
  return (req: IncomingMessage, res: ServerResponse): void => {
    req.on('error', () => undefined)
    const raw = req.url ?? '/'
    // Node reads addresses up to its whole head's limit (16 KiB); the listener's own is shorter.
    if (raw.length > MAX_URL_LENGTH) return reject(req, res, 414, `The address is too long (at most ${MAX_URL_LENGTH} characters are read).`)
    const url = requestTarget(raw)
    if (!url) return reject(req, res, 400, 'The request target is not a path.')
    // HTTP/1.1 requires it; Node would answer 400 itself, without a page and without the log of refusals.
    if (req.headers.host === undefined && req.httpVersion === '1.1') return reject(req, res, 400, 'The request has no Host header.')
    if (url.pathname === redirectPath) {
      redirects.handle(req, res, url).catch(() => answerServerError(res))
    } else if (url.pathname === webhookPath) {
      inbox.handle(req, res).catch(() => answerServerError(res))
    } else if (url.pathname === '/favicon.ico') {
      // Browsers ask for it along with the landing page; not a stray redirect worth reporting.
      req.resume()
      res.writeHead(204, {connection: 'close'}).end()
    } else {
      req.resume()
      reject(req, res, 404, 'Not found.')
    }
  }
}

export async function startRedirectListener(options: RedirectListenerOptions = {}): Promise<RedirectListener> {
  const {createServer} = await import('node:http')
  const token = randomBytes(18).toString('base64url')
  const redirectPath = `/flow/${token}/redirect`
  const webhookPath = `/flow/${token}/webhook`
  const rejected: RejectedRequest[] = []
  let closed = false

  const record = (entry: RejectedRequest) => {
    rejected.push(entry)
    options.onRejected?.(entry)
  }
  const reject: Rejecter = (req, res, status, reason, headers = {}) => {
    const path = (req.url ?? '/').split('?')[0].split(token).join('<token>')
    // An address of kilobytes is shown by its start: the log is for people.
    record({method: req.method ?? '', path: path.length > SHOWN_PATH_LENGTH ? `${path.slice(0, SHOWN_PATH_LENGTH)}… (${path.length} characters)` : path, status, reason})
    res.writeHead(status, {'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', connection: 'close', ...headers})
    res.end(`${reason}\n`)
  }
  const redirects = new RedirectCatcher(reject, options.describeOutcome, options.landingWaitMs ?? 5_000)
  const inbox = new WebhookInbox(reject, options.onWebhook, options.readStatus)

  const server: Server = createServer({requireHostHeader: false}, router({redirectPath, webhookPath, redirects, inbox, reject}))
  answerParseErrors(server, ({method, status, reason}) => record({method, path: '(not read)', status, reason}))
  const {port} = await listen(server, {host: LISTENER_HOST, port: options.port ?? 0, freePortHint: 'Leave --port out to use a free one.'})
  const base = `http://${LISTENER_HOST}:${port}`

  return {
    port,
    redirectUrl: `${base}${redirectPath}`,
    webhookUrl: `${base}${webhookPath}`,
    expectTransaction: (id) => redirects.expect(id),
    waitForRedirect: (signal) => redirects.wait(signal, closed),
    redirect: () => redirects.received(),
    webhooks: () => [...inbox.received],
    rejected: () => [...rejected],
    async close() {
      if (closed) return
      closed = true
      redirects.stopWaiting()
      await closeServer(server)
    },
  }
}

/** Stops listening: idle connections at once, busy ones after a second at most. */
function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), 1_000)
    server.close(() => {
      clearTimeout(force)
      resolve()
    })
    server.closeIdleConnections()
  })
}
