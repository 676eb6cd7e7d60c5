/**
 * The one HTTP client of paytx, on undici (loaded lazily). JSON in and out, any 2xx accepted,
 * connect and total timeouts, and retries that never repeat a request that may have reached
 * the service: GETs are retried on network errors, 5xx and 429; a POST only when the connection
 * failed before a single byte was sent.
 */
import type {Dispatcher} from 'undici'

import {NetworkError, ResponseError, ServiceError} from '../errors.js'
import {type UndiciParts, loadUndici} from './undici-parts.js'
import {redactBody, redactHeaders, scrubSecrets} from '../secrets/redact.js'

export type HttpMethod = 'GET' | 'POST'

export interface HttpClientOptions {
  /** Time allowed to open the TCP/TLS connection. */
  connectTimeoutMs?: number
  /** Time allowed for one attempt, from sending to the last byte of the answer. */
  timeoutMs?: number
  /** Attempts in all for a request that may be retried. */
  maxTries?: number
  /** Receives the --verbose request/response log, already redacted. */
  log?: (line: string) => void
  /** Header names whose values are credentials (the profile's API key header). */
  secretHeaderNames?: readonly string[]
  /** Values scrubbed from every log line and error message (keys, PAN). */
  secrets?: readonly (string | undefined)[]
  dispatcher?: Dispatcher
  sleep?: (ms: number) => Promise<void>
  random?: () => number
  /** Base of the exponential back-off, in ms. */
  backoffBaseMs?: number
}

export interface HttpRequest {
  method: HttpMethod
  url: string
  headers?: Record<string, string>
  body?: unknown
}

export interface HttpResponse<T = unknown> {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: T
  durationMs: number
  tries: number
}

/** Errors raised while connecting: nothing of the request can have been sent. */
const CONNECT_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
])

const MAX_RETRY_AFTER_MS = 30_000

function errorCode(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as {code?: unknown}).code
    if (typeof code === 'string') return code
    current = (current as {cause?: unknown}).cause
  }
  return undefined
}

/** Joins a base address and a path; a base ending in `/v1` never yields `/v1/v1`. */
export function joinUrl(base: string, path: string): string {
  let root = base.replace(/\/+$/, '')
  if (path.startsWith('/v1/') || path === '/v1') root = root.replace(/\/v1$/, '')
  return `${root}${path}`
}

/** Parses Retry-After (seconds or an HTTP date) into milliseconds. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value
  if (!text) return undefined
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
}

export function statusLine(status: number): string {
  return STATUS_TEXT[status] ? `${status} ${STATUS_TEXT[status]}` : String(status)
}

function defaultHint(status: number, method: HttpMethod): string | undefined {
  if (status === 401 || status === 403) {
    return 'Check the API key of the profile (`paytx profile show`) or PAYTX_API_KEY, and that the key belongs to this environment.'
  }
  if (status === 404) return 'Check the id, and that the profile’s base URL points at the service (`paytx profile show`).'
  if (status === 429) return 'The service is rate limiting; wait a little and try again.'
  if (status >= 500) {
    return method === 'POST'
      ? 'The service failed; the request may still have been processed. Look it up before trying again (`paytx status <id>` for a transaction).'
      : 'The service failed; try again in a moment.'
  }
  return undefined
}

function bodySnippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat
}

export class HttpClient {
  private readonly options: Required<Pick<HttpClientOptions, 'connectTimeoutMs' | 'timeoutMs' | 'maxTries' | 'backoffBaseMs'>> &
    HttpClientOptions
  private undici?: UndiciParts
  private dispatcher?: Dispatcher
  private ownsDispatcher = false
  private readonly secrets: (string | undefined)[]

  constructor(options: HttpClientOptions = {}) {
    this.options = {connectTimeoutMs: 10_000, timeoutMs: 30_000, maxTries: 3, backoffBaseMs: 250, ...options}
    this.secrets = [...(options.secrets ?? [])]
  }

  /** Values learnt after construction (a PAN typed at a prompt) to scrub from logs and errors. */
  addSecrets(...values: (string | undefined)[]): void {
    this.secrets.push(...values)
  }

  private async load(): Promise<{undici: UndiciParts; dispatcher: Dispatcher}> {
    if (!this.undici) this.undici = await loadUndici()
    if (!this.dispatcher) {
      if (this.options.dispatcher) {
        this.dispatcher = this.options.dispatcher
      } else {
        this.dispatcher = this.undici.createAgent({connectTimeoutMs: this.options.connectTimeoutMs})
        this.ownsDispatcher = true
      }
    }
    return {undici: this.undici, dispatcher: this.dispatcher}
  }

  async close(): Promise<void> {
    if (this.dispatcher && this.ownsDispatcher) await this.dispatcher.close()
    this.dispatcher = undefined
  }

  /** Stops at once: requests still running fail instead of being waited for (Ctrl-C). */
  async destroy(): Promise<void> {
    const dispatcher = this.dispatcher
    this.dispatcher = undefined
    if (dispatcher && this.ownsDispatcher) await dispatcher.destroy()
  }

  private log(line: string): void {
    if (this.options.log) this.options.log(scrubSecrets(line, this.secrets))
  }

  private async sleep(ms: number): Promise<void> {
    if (this.options.sleep) return this.options.sleep(ms)
    await new Promise((resolve) => setTimeout(resolve, ms))
  }

  private backoff(attempt: number): number {
    const random = this.options.random ?? Math.random
    return Math.round(this.options.backoffBaseMs * 2 ** (attempt - 1) * (0.5 + random()))
  }

  async request<T = unknown>(req: HttpRequest): Promise<HttpResponse<T>> {
    const {undici, dispatcher} = await this.load()
    const headers: Record<string, string> = {accept: 'application/json', ...req.headers}
    let payload: string | undefined
    if (req.body !== undefined) {
      payload = JSON.stringify(req.body)
      headers['content-type'] = 'application/json'
    }
    const started = Date.now()
    const maxTries = req.method === 'GET' ? this.options.maxTries : Math.max(1, this.options.maxTries)

    for (let attempt = 1; ; attempt++) {
      this.log(`→ ${req.method} ${req.url}${attempt > 1 ? ` (try ${attempt} of ${maxTries})` : ''}`)
      for (const [name, value] of Object.entries(redactHeaders(headers, this.options.secretHeaderNames))) this.log(`  ${name}: ${value}`)
      if (req.body !== undefined) this.log(`  ${JSON.stringify(redactBody(req.body))}`)

      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(), this.options.timeoutMs)
      const attemptStarted = Date.now()
      let status: number
      let responseHeaders: Record<string, string | string[] | undefined>
      let text: string
      try {
        const target = new URL(req.url)
        const response = await undici.request(dispatcher, {
          origin: target.origin,
          path: `${target.pathname}${target.search}`,
          method: req.method,
          headers,
          body: payload,
          signal: controller.signal,
        })
        status = response.statusCode
        responseHeaders = response.headers
        text = await response.body.text()
      } catch (error) {
        clearTimeout(timer)
        const code = errorCode(error)
        const timedOut = controller.signal.aborted
        const connectFailed = !timedOut && code !== undefined && CONNECT_ERROR_CODES.has(code)
        // A destroyed client means paytx is stopping: no point in another try.
        const retriable = (req.method === 'GET' || connectFailed) && code !== 'UND_ERR_DESTROYED'
        this.log(`← ${timedOut ? `timed out after ${this.options.timeoutMs} ms` : `failed: ${code ?? (error as Error).message}`}`)
        if (retriable && attempt < maxTries) {
          await this.sleep(this.backoff(attempt))
          continue
        }
        throw this.networkError(req, error, {timedOut, connectFailed, code, tries: attempt})
      }
      clearTimeout(timer)
      const durationMs = Date.now() - attemptStarted
      this.log(`← ${statusLine(status)} in ${durationMs} ms`)

      let body: unknown
      let parsed = true
      if (text.length > 0) {
        try {
          body = JSON.parse(text)
        } catch {
          parsed = false
        }
      }
      this.log(`  ${parsed ? (text.length > 0 ? JSON.stringify(redactBody(body)) : '(empty body)') : bodySnippet(text)}`)

      const retriableStatus = status >= 500 || status === 429
      if (retriableStatus && req.method === 'GET' && attempt < maxTries) {
        const retryAfter = parseRetryAfter(responseHeaders['retry-after'])
        await this.sleep(retryAfter === undefined ? this.backoff(attempt) : Math.min(retryAfter, MAX_RETRY_AFTER_MS))
        continue
      }

      if (status >= 200 && status < 300) {
        if (!parsed) {
          throw new ResponseError(
            `The service answered ${statusLine(status)} to ${req.method} ${req.url}, but the body is not JSON: ${scrubSecrets(bodySnippet(text), this.secrets)}`,
            'Check that the profile’s base URL points at the service and not at another web server (`paytx profile show`).',
          )
        }
        return {status, headers: responseHeaders, body: body as T, durationMs: Date.now() - started, tries: attempt}
      }
      throw this.serviceError(req, status, parsed ? body : undefined, text)
    }
  }

  private serviceError(req: HttpRequest, status: number, body: unknown, text: string): ServiceError {
    const object = body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined
    const serviceMessage =
      typeof object?.message === 'string' ? object.message : text.length > 0 ? bodySnippet(text) : undefined
    const code = object?.code === undefined ? undefined : String(object.code)
    const details =
      object?.details && typeof object.details === 'object' && !Array.isArray(object.details)
        ? (object.details as Record<string, string | string[]>)
        : undefined
    const scrub = (s: string) => scrubSecrets(s, this.secrets)
    const message = `The service answered ${statusLine(status)} to ${req.method} ${new URL(req.url).pathname}${
      serviceMessage ? `: ${scrub(serviceMessage)}` : ''
    }`
    return new ServiceError({
      status,
      method: req.method,
      url: req.url,
      code,
      serviceMessage: serviceMessage === undefined ? undefined : scrub(serviceMessage),
      details: details ? (JSON.parse(scrub(JSON.stringify(redactBody(details)))) as Record<string, string | string[]>) : undefined,
      message,
      hint: defaultHint(status, req.method),
    })
  }

  private networkError(
    req: HttpRequest,
    error: unknown,
    info: {timedOut: boolean; connectFailed: boolean; code?: string; tries: number},
  ): NetworkError {
    const target = new URL(req.url)
    const where = `${target.protocol}//${target.host}`
    const tries = info.tries > 1 ? ` after ${info.tries} tries` : ''
    let message: string
    if (info.timedOut) message = `No answer from ${where} within ${this.options.timeoutMs} ms${tries}.`
    else if (info.code === 'ECONNREFUSED') message = `Could not connect to ${where}: connection refused${tries}.`
    else if (info.code === 'ENOTFOUND' || info.code === 'EAI_AGAIN') message = `Could not resolve the host ${target.hostname}${tries}.`
    else if (info.code === 'UND_ERR_CONNECT_TIMEOUT') message = `Could not connect to ${where} within ${this.options.connectTimeoutMs} ms${tries}.`
    else message = `The connection to ${where} failed (${info.code ?? (error as Error).message})${tries}.`

    const mayHaveReachedService = req.method !== 'GET' && !info.connectFailed
    let hint: string
    if (mayHaveReachedService) {
      hint =
        'The request may have reached the service, so it was not sent again. Check what happened before retrying (for a transaction: `paytx status <id>`; look for your merchant reference).'
    } else if (info.code === 'ECONNREFUSED' && ['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) {
      hint = 'Nothing listens there. Start the emulator with `paytx emulator start`, or pick another profile with --profile.'
    } else if (info.timedOut) {
      hint = 'Try again, or allow more time with --timeout.'
    } else {
      hint = 'Check your network and the profile’s addresses (`paytx profile show`), then try again.'
    }
    return new NetworkError(scrubSecrets(message, this.secrets), {hint, mayHaveReachedService, cause: error})
  }
}
