/**
 * The webhook receiver behind `paytx webhook listen`: an HTTP server that accepts transaction
 * webhooks at a secret-token URL, records each one (before answering, so every acknowledged
 * webhook is on disk), answers at once, and only then re-fetches the transaction and forwards
 * the webhook. Results are reported in arrival order. Bad input of any kind is answered with a
 * 4xx and counted; it never stops the listener. Knows nothing of oclif.
 */
import {randomBytes, timingSafeEqual} from 'node:crypto'
import {type IncomingMessage, type Server, type ServerResponse, createServer} from 'node:http'

import type {Transaction} from '../api/schemas.js'
import {BodyTooLargeError, readCappedBody} from '../http/body.js'
import {listen} from '../http/listen.js'
import {crossSiteRequest, isOwnHost, listensOnLoopbackOnly} from '../http/own-host.js'
import {MAX_JSON_NESTING, jsonNestingDepth} from '../http/json-nesting.js'
import {headerRedactor, maskBodyInPlace, redactText} from '../secrets/redact.js'
import {DuplicateDetector} from './duplicates.js'
import {type WebhookEvent, readWebhookEvent} from './event.js'
import type {ForwardResult} from './forwarder.js'
import type {WebhookRecord, WebhookRecorder} from './recorder.js'
import {DISK_FULL_RETRY_AFTER_SECONDS, isDiskFull} from '../storage/disk-full.js'
import {isoTimes} from '../iso-times.js'

export const WEBHOOK_PATH = '/webhooks'
export const DEFAULT_WEBHOOK_PORT = 4020
/**
 * The shortest --token that is not warned about: 16 characters of a random token are out of
 * reach of guessing; a word such as `dev-token` is the first thing a hostile page would try.
 */
export const MIN_TOKEN_LENGTH = 16
/** How many re-fetches and forwards run at the same time; the rest wait their turn. */
const FOLLOW_UP_CONCURRENCY = 8

export interface WebhookListenerOptions {
  host: string
  port: number
  /** The secret the URL must carry (`?key=<token>` or `/webhooks/<token>`); undefined accepts any path. */
  token?: string
  maxBodyBytes: number
  recorder?: WebhookRecorder
  /** Reads the transaction from the service (`--fetch`). */
  fetchTransaction?: (id: string) => Promise<Transaction>
  /** Passes the webhook on to the merchant's endpoint (`--forward-to`). */
  forward?: (rawBody: Buffer, rawHeaders: readonly string[]) => Promise<ForwardResult>
  /** Each webhook, malformed ones included, in the order they arrived, once their follow-ups ended. */
  onWebhook: (report: WebhookReport) => void
  /** Requests refused before they were read as webhooks: from a web page, wrong path or token, method, size. */
  onRejected: (rejection: Rejection) => void
  /** Recording failed: the sender was answered 503 (a full disk) or 500, so that it sends again. */
  onRecordFailure?: (error: Error, answer: {status: 500 | 503; diskFull: boolean}) => void
  /** Header names whose values are credentials, redacted in the save file. */
  secretHeaderNames?: readonly string[]
  now?: () => Date
}

export interface ServiceView {
  /** The status the service reports: the trustworthy one. */
  status?: string
  /** When the service says that status was reached (the transaction's last_status_update). */
  updatedAt?: string
  /** Why the transaction could not be read. */
  error?: string
}

export interface AcknowledgedWebhook {
  kind: 'webhook'
  seq: number
  receivedAt: string
  event: WebhookEvent
  /** The same delivery was received before: the same transaction id and status, carried by the body (duplicates.ts). */
  duplicate: boolean
  service?: ServiceView
  forward?: ForwardResult
}

export interface MalformedWebhook {
  kind: 'malformed'
  seq: number
  receivedAt: string
  raw: string
  bytes: number
  error: string
}

export type WebhookReport = AcknowledgedWebhook | MalformedWebhook

export interface Rejection {
  status: 403 | 404 | 405 | 413
  method: string
  /** The request path without its query string. */
  path: string
  reason: string
}

export interface WebhookCounts {
  /** Webhooks answered 2xx. */
  received: number
  duplicates: number
  malformed: number
  rejected: number
  rejectedByStatus: Record<string, number>
}

export interface WebhookListener {
  /** The address to give the service. */
  url: string
  host: string
  port: number
  counts(): WebhookCounts
  /**
   * Stops accepting, lets running re-fetches and forwards finish for up to `graceMs` (reports
   * the rest as interrupted), reports every webhook still waiting, and closes the save file.
   */
  close(graceMs?: number): Promise<WebhookCounts>
}

/** A token that is safe in a URL path and query without escaping. */
export function generateWebhookToken(): string {
  return randomBytes(16).toString('base64url')
}

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
}

export function webhookUrl(host: string, port: number, token?: string): string {
  const shownHost = host.includes(':') ? `[${host}]` : host
  return `http://${shownHost}:${port}${WEBHOOK_PATH}${token ? `?key=${encodeURIComponent(token)}` : ''}`
}

/** Compares in constant time (for a given length), so the token cannot be guessed a character at a time. */
function tokenMatches(candidate: string | null | undefined, expected: Buffer): boolean {
  if (candidate === null || candidate === undefined) return false
  const given = Buffer.from(candidate)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text)
  } catch {
    return undefined
  }
}

function splitTarget(target: string): {path: string; query: string} {
  const queryAt = target.indexOf('?')
  return queryAt === -1 ? {path: target, query: ''} : {path: target.slice(0, queryAt), query: target.slice(queryAt + 1)}
}

/**
 * Whether a request path and query carry the token: `/webhooks?key=<token>` or
 * `/webhooks/<token>`. Without a token every path is accepted.
 */
function tokenCheck(token: string | undefined): (path: string, query: string) => boolean {
  if (token === undefined) return () => true
  const expectedToken = Buffer.from(token)
  const expectedQuery = Buffer.from(`key=${encodeURIComponent(token)}`)
  return (path, query) => {
    if (path === WEBHOOK_PATH) {
      // The usual request carries nothing but `key=<token>`: compared without parsing the query.
      if (query.length === expectedQuery.length) return tokenMatches(query, expectedQuery)
      return tokenMatches(new URLSearchParams(query).get('key'), expectedToken)
    }
    if (path.startsWith(`${WEBHOOK_PATH}/`)) return tokenMatches(safeDecode(path.slice(WEBHOOK_PATH.length + 1)), expectedToken)
    return false
  }
}

/** What the save file says about a request before its body and answer are known. */
type RecordHead = Omit<WebhookRecord, 'body' | 'raw' | 'answered'>

/** The one header of most answers, as Node takes a header list (the same array for every answer). */
const JSON_CONTENT_TYPE = ['content-type', 'application/json']

function answerJson(res: ServerResponse, status: number, body: string, headers?: Record<string, string>): void {
  res.writeHead(status, headers ? {'content-type': 'application/json', ...headers} : JSON_CONTENT_TYPE)
  res.end(body)
}

/** Runs follow-up work a few at a time; `stop` drops what has not started. */
class FollowUpQueue {
  private running = 0
  private readonly waiting: (() => void)[] = []
  private stopped = false

  constructor(private readonly concurrency: number) {}

  async run<T>(task: () => Promise<T>, whenStopped: T): Promise<T> {
    if (this.running >= this.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve))
    if (this.stopped) return whenStopped
    this.running++
    try {
      return await task()
    } finally {
      this.running--
      this.waiting.shift()?.()
    }
  }

  stop(): void {
    this.stopped = true
    for (const start of this.waiting.splice(0)) start()
  }
}

/**
 * Hands reports on in arrival order: a finished report waits for the ones before it. A sequence
 * number whose webhook could not be recorded is finished with nothing to report. Duplicates are
 * marked here, in arrival order, by what the body carries: never by the status read back from
 * the service, which may have moved on since the webhook came (duplicates.ts).
 */
class ArrivalOrder {
  private nextSeq = 1
  private nextToReport = 1
  private readonly finished = new Map<number, WebhookReport | undefined>()
  private readonly duplicates = new DuplicateDetector()

  constructor(
    private readonly counts: WebhookCounts,
    private readonly deliver: (report: WebhookReport) => void,
  ) {}

  take(): number {
    return this.nextSeq++
  }

  finish(seq: number, done: WebhookReport | undefined): void {
    this.finished.set(seq, done)
    while (this.finished.has(this.nextToReport)) {
      const ready = this.finished.get(this.nextToReport)
      this.finished.delete(this.nextToReport)
      this.nextToReport++
      if (!ready) continue
      if (ready.kind === 'webhook') {
        ready.duplicate = this.duplicates.isDuplicate(ready.event)
        if (ready.duplicate) this.counts.duplicates++
      }
      this.deliver(ready)
    }
  }
}

/**
 * The re-fetch (`--fetch`) and forward (`--forward-to`) of each acknowledged webhook, run after
 * the sender was answered; `done` gets the webhook once both ended or were interrupted.
 */
class FollowUps {
  private readonly queue = new FollowUpQueue(FOLLOW_UP_CONCURRENCY)
  private readonly pending = new Map<number, {settled: Promise<void>; interrupt: () => void}>()

  constructor(
    private readonly fetchTransaction: WebhookListenerOptions['fetchTransaction'],
    private readonly forward: WebhookListenerOptions['forward'],
    private readonly done: (webhook: AcknowledgedWebhook) => void,
  ) {}

  get wanted(): boolean {
    return Boolean(this.fetchTransaction || this.forward)
  }

  start(webhook: AcknowledgedWebhook, rawBody: Buffer, rawHeaders: string[]): void {
    let interrupt = () => {}
    const interrupted = new Promise<void>((resolve) => (interrupt = resolve))
    const settled = Promise.race([Promise.all([this.refetch(webhook), this.passOn(webhook, rawBody, rawHeaders)]), interrupted]).then(() => {
      if (this.fetchTransaction && !webhook.service) webhook.service = {error: 'interrupted before the service answered'}
      if (this.forward && !webhook.forward) webhook.forward = {url: '', error: 'interrupted before the endpoint answered', duration_ms: 0}
      this.pending.delete(webhook.seq)
      this.done(webhook)
    })
    this.pending.set(webhook.seq, {settled, interrupt})
  }

  /** Lets running follow-ups finish for up to `graceMs`, then interrupts the rest (they are reported as such). */
  async settle(graceMs: number): Promise<void> {
    if (this.pending.size === 0) return
    let timer: NodeJS.Timeout | undefined
    const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))
    await Promise.race([Promise.all([...this.pending.values()].map((entry) => entry.settled)), graceOver])
    clearTimeout(timer)
    this.queue.stop()
    const left = [...this.pending.values()]
    for (const entry of left) entry.interrupt()
    await Promise.all(left.map((entry) => entry.settled))
  }

  private async refetch(webhook: AcknowledgedWebhook): Promise<void> {
    const fetchTransaction = this.fetchTransaction
    if (!fetchTransaction) return
    const id = webhook.event.transactionId
    if (id === undefined) {
      webhook.service = {error: 'the webhook carries no transaction id'}
      return
    }
    const view = await this.queue.run(
      () =>
        fetchTransaction(id).then(
          (tx): ServiceView => ({
            status: typeof tx.status === 'string' ? tx.status : undefined,
            ...(typeof tx.last_status_update === 'string' ? {updatedAt: tx.last_status_update} : {}),
          }),
          (error: Error): ServiceView => ({error: error.message}),
        ),
      {error: 'interrupted before it was read'},
    )
    webhook.service ??= view
  }

  private async passOn(webhook: AcknowledgedWebhook, rawBody: Buffer, rawHeaders: string[]): Promise<void> {
    const forward = this.forward
    if (!forward) return
    const result = await this.queue.run(() => forward(rawBody, rawHeaders), undefined)
    webhook.forward ??= result
  }
}

/**
 * The request handlers: route and refuse, read the body, record it, answer, then hand the webhook
 * to its follow-ups or straight to the arrival order.
 */
class WebhookReceiver {
  readonly counts: WebhookCounts = {received: 0, duplicates: 0, malformed: 0, rejected: 0, rejectedByStatus: {}}
  /** Set when the listener stops: new requests are refused with 503. */
  closing = false
  /** Where it listens, set once listening: what a request's Origin and (without a token) Host must name. */
  address = {url: '', loopbackOnly: true}
  readonly followUps: FollowUps
  private readonly accepts: (path: string, query: string) => boolean
  private readonly arrivals: ArrivalOrder
  private readonly redactHeaders: (headers: IncomingMessage['headers']) => Record<string, string>
  private readonly now: () => Date
  private readonly isoTime = isoTimes()

  constructor(private readonly options: WebhookListenerOptions) {
    this.accepts = tokenCheck(options.token)
    this.arrivals = new ArrivalOrder(this.counts, options.onWebhook)
    this.followUps = new FollowUps(options.fetchTransaction, options.forward, (webhook) => this.arrivals.finish(webhook.seq, webhook))
    this.redactHeaders = headerRedactor(['cookie', 'proxy-authorization', ...(options.secretHeaderNames ?? [])])
    this.now = options.now ?? (() => new Date())
  }

  snapshot(): WebhookCounts {
    return {...this.counts, rejectedByStatus: {...this.counts.rejectedByStatus}}
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    req.on('error', () => {})
    const {path, query} = splitTarget(req.url ?? '/')
    if (this.closing) return refuseWhileClosing(res)
    // The token must not end up in the save file or a report when it came in the path.
    const shownPath = this.options.token !== undefined && path.startsWith(`${WEBHOOK_PATH}/`) ? `${WEBHOOK_PATH}/{token}` : path
    // Before the token is looked at: a web page learns nothing from the answer, whatever it guessed.
    const fromWebPage = this.fromWebPage(req)
    if (fromWebPage) return this.reject(req, res, shownPath, 403, fromWebPage)
    if (!this.accepts(path, query)) return this.reject(req, res, path, 404, 'no webhook endpoint here (wrong path or token)')
    if (req.method !== 'POST') return this.reject(req, res, shownPath, 405, `method ${req.method} not allowed; webhooks are POSTed`, {allow: 'POST'})
    const limit = this.options.maxBodyBytes
    readCappedBody(req, limit).then(
      (body) => this.receiveBody(req, res, shownPath, body),
      (error: Error) => {
        if (error instanceof BodyTooLargeError) this.reject(req, res, shownPath, 413, `body larger than ${limit} bytes`)
      },
    )
  }

  /**
   * Why the request is refused as one a web page sent, or undefined. A webhook comes from a
   * server, which sends no Origin and no Sec-Fetch-Site: any request naming another site is
   * refused, token or not (a weak token can be guessed). Without a token, the Host must also
   * name this listener while it listens on loopback, against a page reaching it by DNS
   * rebinding in a browser that sends no Origin. With a token the Host is not checked: a tunnel
   * of the user's own brings its public name, which only the token admits.
   */
  private fromWebPage(req: IncomingMessage): string | undefined {
    const crossSite = crossSiteRequest(req.headers, this.address.url)
    if (crossSite) return crossSite
    if (this.options.token === undefined && this.address.loopbackOnly && !isOwnHost(req.headers.host, this.address.url)) {
      return 'its Host is not this listener\'s address (a web page reaching it under another name?)'
    }
    return undefined
  }

  private reject(req: IncomingMessage, res: ServerResponse, path: string, status: Rejection['status'], reason: string, extra: Record<string, string> = {}): void {
    this.counts.rejected++
    this.counts.rejectedByStatus[status] = (this.counts.rejectedByStatus[status] ?? 0) + 1
    // Closing the connection spares reading a body nobody wants.
    answerJson(res, status, JSON.stringify({error: reason}), {connection: 'close', ...extra})
    this.options.onRejected({status, method: req.method ?? '', path, reason})
  }

  /** A whole body arrived: record it, answer, and report it (a body that is not JSON as malformed). */
  private receiveBody(req: IncomingMessage, res: ServerResponse, path: string, body: Buffer): void {
    if (this.closing) return refuseWhileClosing(res)
    const seq = this.arrivals.take()
    const entry: RecordHead = {seq, received_at: this.arrivalTime(), method: 'POST', path, headers: this.redactHeaders(req.headers)}
    const text = body.toString('utf8')
    if (jsonNestingDepth(text) > MAX_JSON_NESTING) {
      const answer = `the body is nested deeper than ${MAX_JSON_NESTING} levels`
      this.receiveMalformed(res, entry, text, body.length, {answer, error: answer})
      return
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      this.receiveMalformed(res, entry, text, body.length, {answer: 'the body is not valid JSON', error: (error as Error).message})
      return
    }
    this.receiveWebhook(res, entry, parsed, body, req.rawHeaders)
  }

  /** When the webhook arrived, as saved and reported (ISO 8601). */
  private arrivalTime(): string {
    return this.isoTime(this.now().getTime())
  }

  /** Scrubbed like a JSON body before it is saved or shown; the parser's message quotes it too. */
  private receiveMalformed(res: ServerResponse, entry: RecordHead, text: string, bytes: number, problem: {answer: string; error: string}): void {
    const raw = redactText(text)
    this.record({...entry, raw, answered: 400}, res, () => {
      this.counts.malformed++
      answerJson(res, 400, JSON.stringify({error: problem.answer}))
      this.arrivals.finish(entry.seq, {kind: 'malformed', seq: entry.seq, receivedAt: entry.received_at, raw, bytes, error: redactText(problem.error)})
    })
  }

  private receiveWebhook(res: ServerResponse, entry: RecordHead, parsed: unknown, body: Buffer, rawHeaders: string[]): void {
    const redacted = maskBodyInPlace(parsed)
    this.record({...entry, body: redacted, answered: 200}, res, () => {
      this.counts.received++
      answerJson(res, 200, '{"received":true}')
      const webhook: AcknowledgedWebhook = {kind: 'webhook', seq: entry.seq, receivedAt: entry.received_at, event: readWebhookEvent(redacted), duplicate: false}
      if (this.followUps.wanted) this.followUps.start(webhook, body, rawHeaders)
      else this.arrivals.finish(entry.seq, webhook)
    })
  }

  /**
   * Calls `then` once the entry is in the save file. When it could not be written, the sender is
   * answered so that it sends again: 503 with Retry-After for a full disk (the next write works
   * once space is freed), 500 otherwise.
   */
  private record(entry: WebhookRecord, res: ServerResponse, then: () => void): void {
    const {recorder} = this.options
    if (!recorder) return then()
    recorder.append(entry, (error) => {
      if (!error) return then()
      const diskFull = isDiskFull(error)
      if (diskFull) {
        answerJson(res, 503, '{"error":"could not record the webhook: the disk is full; send it again later"}', {'retry-after': String(DISK_FULL_RETRY_AFTER_SECONDS)})
      } else {
        answerJson(res, 500, '{"error":"could not record the webhook"}')
      }
      this.options.onRecordFailure?.(error, {status: diskFull ? 503 : 500, diskFull})
      this.arrivals.finish(entry.seq, undefined)
    })
  }
}

function refuseWhileClosing(res: ServerResponse): void {
  answerJson(res, 503, '{"error":"the listener is stopping"}', {connection: 'close'})
}

export async function startWebhookListener(options: WebhookListenerOptions): Promise<WebhookListener> {
  const receiver = new WebhookReceiver(options)
  const server: Server = createServer({keepAliveTimeout: 5000}, (req, res) => receiver.handle(req, res))
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n')
    else socket.destroy()
  })
  const address = await listen(server, {host: options.host, port: options.port})
  const host = options.host === 'localhost' ? 'localhost' : address.address
  const url = webhookUrl(host, address.port, options.token)
  receiver.address = {url, loopbackOnly: listensOnLoopbackOnly(options.host)}

  return {
    url,
    host,
    port: address.port,
    counts: () => receiver.snapshot(),
    async close(graceMs = 2000) {
      receiver.closing = true
      // Webhooks already read are written and answered before any connection is cut.
      options.recorder?.flush()
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      await receiver.followUps.settle(graceMs)
      server.closeAllConnections()
      await stopped
      options.recorder?.close()
      return receiver.snapshot()
    },
  }
}
