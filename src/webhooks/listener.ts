/**
 * The webhook receiver behind `paytx webhook listen`: an HTTP server that accepts transaction
 * webhooks at a secret-token URL, records each one (before answering, so every acknowledged
 * webhook is on disk), answers at once, and only then re-fetches the transaction and forwards
 * the webhook. Results are reported in arrival order. Bad input of any kind is answered with a
 * 4xx and counted; it never stops the listener. Knows nothing of oclif.
 */
import {randomBytes, timingSafeEqual} from 'node:crypto'
import {type IncomingMessage, type Server, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import type {Transaction} from '../api/contract.js'
import {MAX_JSON_NESTING, jsonNestingDepth} from '../http/json-nesting.js'
import {redactBody, redactHeaders, redactText} from '../secrets/redact.js'
import {DuplicateDetector, type WebhookEvent, readWebhookEvent} from './event.js'
import type {ForwardResult} from './forwarder.js'
import type {WebhookRecord, WebhookRecorder} from './recorder.js'

export const WEBHOOK_PATH = '/webhooks'
export const DEFAULT_WEBHOOK_PORT = 4020
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024
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
  /** Requests refused before they were read as webhooks: wrong path or token, method, size. */
  onRejected: (rejection: Rejection) => void
  /** Recording failed (disk full, ...): the sender was answered 500 so it can retry. */
  onRecordFailure?: (error: Error) => void
  /** Header names whose values are credentials, redacted in the save file. */
  secretHeaderNames?: readonly string[]
  now?: () => Date
}

export interface ServiceView {
  /** The status the service reports: the trustworthy one. */
  status?: string
  /** Why the transaction could not be read. */
  error?: string
}

export interface ReceivedWebhook {
  kind: 'webhook'
  seq: number
  receivedAt: string
  event: WebhookEvent
  /** The same (transaction id, status) was received before. */
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

export type WebhookReport = ReceivedWebhook | MalformedWebhook

export interface Rejection {
  status: 404 | 405 | 413
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

function flatHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value
  }
  return out
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

export async function startWebhookListener(options: WebhookListenerOptions): Promise<WebhookListener> {
  const now = options.now ?? (() => new Date())
  const expectedToken = options.token === undefined ? undefined : Buffer.from(options.token)
  const expectedQuery = options.token === undefined ? undefined : Buffer.from(`key=${encodeURIComponent(options.token)}`)
  const duplicates = new DuplicateDetector()
  const followUps = new FollowUpQueue(FOLLOW_UP_CONCURRENCY)
  const counts: WebhookCounts = {received: 0, duplicates: 0, malformed: 0, rejected: 0, rejectedByStatus: {}}
  const secretHeaders = ['cookie', 'proxy-authorization', ...(options.secretHeaderNames ?? [])]

  // Reports leave in arrival order: a finished report waits for the ones before it. A sequence
  // number whose webhook could not be recorded is finished with nothing to report.
  let nextSeq = 1
  let nextToReport = 1
  const finished = new Map<number, WebhookReport | undefined>()
  const pending = new Map<number, {settled: Promise<void>; interrupt: () => void}>()
  let closing = false

  function report(seq: number, done: WebhookReport | undefined): void {
    finished.set(seq, done)
    while (finished.has(nextToReport)) {
      const ready = finished.get(nextToReport)
      finished.delete(nextToReport)
      nextToReport++
      if (!ready) continue
      if (ready.kind === 'webhook') {
        const status = ready.event.status ?? ready.service?.status
        ready.duplicate = duplicates.isDuplicate({...ready.event, status})
        if (ready.duplicate) counts.duplicates++
      }
      options.onWebhook(ready)
    }
  }

  function accepts(path: string, query: string): boolean {
    if (!expectedToken) return true
    if (path === WEBHOOK_PATH) {
      // The usual request carries nothing but `key=<token>`: compared without parsing the query.
      if (expectedQuery && query.length === expectedQuery.length) return tokenMatches(query, expectedQuery)
      return tokenMatches(new URLSearchParams(query).get('key'), expectedToken)
    }
    if (path.startsWith(`${WEBHOOK_PATH}/`)) return tokenMatches(safeDecode(path.slice(WEBHOOK_PATH.length + 1)), expectedToken)
    return false
  }

  function reject(req: IncomingMessage, res: ServerResponse, path: string, status: Rejection['status'], reason: string, extra: Record<string, string> = {}): void {
    counts.rejected++
    counts.rejectedByStatus[status] = (counts.rejectedByStatus[status] ?? 0) + 1
    // Closing the connection spares reading a body nobody wants.
    res.writeHead(status, {'content-type': 'application/json', connection: 'close', ...extra})
    res.end(JSON.stringify({error: reason}))
    options.onRejected({status, method: req.method ?? '', path, reason})
  }

  /** Calls `then` once the entry is in the save file; answers 500 when it could not be written. */
  function record(seq: number, entry: WebhookRecord, res: ServerResponse, then: () => void): void {
    if (!options.recorder) return then()
    options.recorder.append(entry, (error) => {
      if (!error) return then()
      res.writeHead(500, {'content-type': 'application/json'})
      res.end('{"error":"could not record the webhook"}')
      options.onRecordFailure?.(error)
      report(seq, undefined)
    })
  }

  /** Re-fetches and forwards after the sender was answered; reports when both ended or were interrupted. */
  function follow(received: ReceivedWebhook, rawBody: Buffer, rawHeaders: string[]): void {
    const {fetchTransaction, forward} = options
    const id = received.event.transactionId
    const fetching = async () => {
      if (!fetchTransaction) return
      if (id === undefined) {
        received.service = {error: 'the webhook carries no transaction id'}
        return
      }
      const view = await followUps.run(
        () =>
          fetchTransaction(id).then(
            (tx): ServiceView => ({status: typeof tx.status === 'string' ? tx.status : undefined}),
            (error: Error): ServiceView => ({error: error.message}),
          ),
        {error: 'interrupted before it was read'},
      )
      received.service ??= view
    }
    const forwarding = async () => {
      if (!forward) return
      const result = await followUps.run(() => forward(rawBody, rawHeaders), undefined)
      received.forward ??= result
    }
    let interrupt = () => {}
    const interrupted = new Promise<void>((resolve) => (interrupt = resolve))
    const settled = Promise.race([Promise.all([fetching(), forwarding()]), interrupted]).then(() => {
      if (fetchTransaction && !received.service) received.service = {error: 'interrupted before the service answered'}
      if (forward && !received.forward) received.forward = {url: '', error: 'interrupted before the endpoint answered', duration_ms: 0}
      pending.delete(received.seq)
      report(received.seq, received)
    })
    pending.set(received.seq, {settled, interrupt})
  }

  function refuseWhileClosing(res: ServerResponse): void {
    res.writeHead(503, {'content-type': 'application/json', connection: 'close'})
    res.end('{"error":"the listener is stopping"}')
  }

  function handleBody(req: IncomingMessage, res: ServerResponse, path: string, body: Buffer): void {
    if (closing) return refuseWhileClosing(res)
    const seq = nextSeq++
    const receivedAt = now().toISOString()
    const headers = redactHeaders(flatHeaders(req.headers), secretHeaders)
    const text = body.toString('utf8')
    let parsed: unknown
    let problem: {answer: string; error: string} | undefined
    if (jsonNestingDepth(text) > MAX_JSON_NESTING) {
      const answer = `the body is nested deeper than ${MAX_JSON_NESTING} levels`
      problem = {answer, error: answer}
    } else {
      try {
        parsed = JSON.parse(text)
      } catch (error) {
        problem = {answer: 'the body is not valid JSON', error: (error as Error).message}
      }
    }
    if (problem) {
      // Scrubbed like a JSON body before it is saved or shown; the parser's message quotes it too.
      const raw = redactText(text)
      const {answer, error} = problem
      record(seq, {seq, received_at: receivedAt, method: 'POST', path, headers, raw, answered: 400}, res, () => {
        counts.malformed++
        res.writeHead(400, {'content-type': 'application/json'})
        res.end(JSON.stringify({error: answer}))
        report(seq, {kind: 'malformed', seq, receivedAt, raw, bytes: body.length, error: redactText(error)})
      })
      return
    }
    const redacted = redactBody(parsed)
    const rawHeaders = req.rawHeaders
    record(seq, {seq, received_at: receivedAt, method: 'POST', path, headers, body: redacted, answered: 200}, res, () => {
      counts.received++
      res.writeHead(200, {'content-type': 'application/json'})
      res.end('{"received":true}')
      const received: ReceivedWebhook = {kind: 'webhook', seq, receivedAt, event: readWebhookEvent(redacted), duplicate: false}
      if (options.fetchTransaction || options.forward) follow(received, body, rawHeaders)
      else report(seq, received)
    })
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    req.on('error', () => {})
    const target = req.url ?? '/'
    const queryAt = target.indexOf('?')
    const path = queryAt === -1 ? target : target.slice(0, queryAt)
    const query = queryAt === -1 ? '' : target.slice(queryAt + 1)
    if (closing) return refuseWhileClosing(res)
    if (!accepts(path, query)) {
      reject(req, res, path, 404, 'no webhook endpoint here (wrong path or token)')
      return
    }
    // The token must not end up in the save file when it came in the path.
    const shownPath = expectedToken && path !== WEBHOOK_PATH ? `${WEBHOOK_PATH}/{token}` : path
    if (req.method !== 'POST') {
      reject(req, res, shownPath, 405, `method ${req.method} not allowed; webhooks are POSTed`, {allow: 'POST'})
      return
    }
    const declared = Number(req.headers['content-length'])
    const tooLarge = `body larger than ${options.maxBodyBytes} bytes`
    if (Number.isFinite(declared) && declared > options.maxBodyBytes) {
      reject(req, res, shownPath, 413, tooLarge)
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let refused = false
    req.on('data', (chunk: Buffer) => {
      if (refused) return
      size += chunk.length
      if (size > options.maxBodyBytes) {
        refused = true
        chunks.length = 0
        reject(req, res, shownPath, 413, tooLarge)
        return
      }
      chunks.push(chunk)
    })
    req.on('end', () => {
      if (!refused) handleBody(req, res, shownPath, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))
    })
  }

  const server: Server = createServer({keepAliveTimeout: 5000}, handle)
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n')
    else socket.destroy()
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const host = options.host === 'localhost' ? 'localhost' : address.address

  return {
    url: webhookUrl(host, address.port, options.token),
    host,
    port: address.port,
    counts: () => ({...counts, rejectedByStatus: {...counts.rejectedByStatus}}),
    async close(graceMs = 2000) {
      closing = true
      // Webhooks already read are written and answered before any connection is cut.
      options.recorder?.flush()
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      if (pending.size > 0) {
        let timer: NodeJS.Timeout | undefined
        const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))
        await Promise.race([Promise.all([...pending.values()].map((entry) => entry.settled)), graceOver])
        clearTimeout(timer)
        followUps.stop()
        const left = [...pending.values()]
        for (const entry of left) entry.interrupt()
        await Promise.all(left.map((entry) => entry.settled))
      }
      server.closeAllConnections()
      await stopped
      options.recorder?.close()
      return {...counts, rejectedByStatus: {...counts.rejectedByStatus}}
    },
  }
}
