/**
 * The one HTTP client of paytx, on Node's own HTTP (`src/http/outgoing.ts`). JSON in and out, any
 * 2xx accepted, connect and total timeouts, and retries that never repeat a request that may have
 * reached the service (`shouldRetry`).
 */
import type {IncomingMessage} from 'node:http'

import {NetworkError, ResponseError, ServiceError} from '../errors.js'
import {Connections, OUTGOING_ERROR, OutgoingError, type ProxyFailure} from '../http/outgoing.js'
import type {RequestGate} from './request-gate.js'
import {MAX_JSON_NESTING, jsonNestingDepth} from '../http/json-nesting.js'
import {redactBody, redactHeaders, redactText, scrubSecrets} from '../secrets/redact.js'
import {commandLine} from '../terminal/invoked-name.js'
import {visibleText} from '../terminal/visible-text.js'

/** The methods paytx sends; only GET is ever retried after it may have reached the service. */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const
export type HttpMethod = (typeof HTTP_METHODS)[number]

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
  sleep?: (ms: number) => Promise<void>
  random?: () => number
  /** Base of the exponential back-off, in ms. */
  backoffBaseMs?: number
  /** Shared with the other requests of the command: bounds those in flight; a 429 to one holds them all back. */
  gate?: RequestGate
  /** An answer longer than this is cut off and reported instead of being read whole. */
  maxResponseBytes?: number
}

/** Far more than any answer of the service; `--max-response-size` or PAYTX_MAX_RESPONSE_BYTES raise it. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024

export interface HttpRequest {
  method: HttpMethod
  url: string
  headers?: Record<string, string>
  /** Sent as JSON. */
  body?: unknown
  /** JSON text sent byte for byte instead of `body` (`paytx api --input`). */
  rawBody?: string
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
  OUTGOING_ERROR.connectTimeout,
])

/**
 * TLS failures that trying again cannot mend: the service's certificate is not one Node trusts
 * for that name. What each means, for the message.
 */
const CERTIFICATE_PROBLEMS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'it is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its chain ends in a self-signed authority Node does not trust',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its issuer is not an authority Node trusts',
  UNABLE_TO_GET_ISSUER_CERT: 'its issuer is not an authority Node trusts',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its issuer is not an authority Node trusts',
  CERT_HAS_EXPIRED: 'it has expired',
  CERT_NOT_YET_VALID: 'it is not valid yet (check this machine’s clock)',
  CERT_REVOKED: 'it has been revoked',
  ERR_TLS_CERT_ALTNAME_INVALID: 'it was issued for another host name',
}

/** A Retry-After longer than this is not waited for in full. */
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
  200: 'OK',
  201: 'Created',
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
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
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
    return `Check the API key of the profile (\`${commandLine('profile show')}\`) or PAYTX_API_KEY, and that the key belongs to this environment.`
  }
  if (status === 404) return `Check the id, and that the profile’s base URL points at the service (\`${commandLine('profile show')}\`).`
  if (status === 429) return 'The service is rate limiting; wait a little and try again.'
  if (status >= 500) {
    return method !== 'GET'
      ? `The service failed; the request may still have been processed. Look it up before trying again (\`${commandLine('status <id>')}\` for a transaction).`
      : 'The service failed; try again in a moment.'
  }
  return undefined
}

/**
 * paytx never follows a redirect (the API key would go wherever it points), so a 3xx means the
 * base URL is not the API's own address.
 */
function redirectHint(location: string | undefined): string {
  return `paytx does not follow redirects, so that keys are sent nowhere else: the profile’s base URL is probably wrong${
    location ? '' : ' (the answer did not say where to)'
  }. Check it with \`${commandLine('profile show')}\` and set the right one with \`${commandLine('profile add <name> --base-url <url>')}\` or PAYTX_BASE_URL.`
}

/** A body that is not JSON, for the --verbose log: long pages are shown up to a bound. */
function verboseText(text: string): string {
  const shown = text.length > VERBOSE_TEXT_CHARS ? `${text.slice(0, VERBOSE_TEXT_CHARS)}\n  … (${text.length - VERBOSE_TEXT_CHARS} more characters)` : text
  return shown.replace(/\n/g, '\n  ')
}

const VERBOSE_TEXT_CHARS = 64 * 1024

function bodySnippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat
}

/** What one attempt came to, as far as retrying is concerned. */
export type AttemptOutcome =
  | {kind: 'answered'; status: number; retryAfterMs?: number}
  | {
      kind: 'failed'
      /** The connection failed while being opened: not a byte of the request was sent. */
      beforeSending: boolean
      /** The client was destroyed (paytx is stopping). */
      clientDestroyed?: boolean
      /** Trying again cannot help (the service's certificate is not trusted). */
      permanent?: boolean
    }

export interface RetryPolicy {
  /** Attempts in all. */
  maxTries: number
  /** Base of the exponential back-off, in ms. */
  backoffBaseMs: number
  /** A number in [0, 1) that spreads the back-off (jitter). */
  random: () => number
}

export type RetryDecision = {retry: false} | {retry: true; delayMs: number}

/**
 * Whether to try again after `attempt` (1 for the first), and after how long. GETs are retried on
 * network errors, 5xx and 429 (after Retry-After when the service sent one, capped, else after an
 * exponential back-off). A POST is retried only when its connection failed before anything was
 * sent: once a body may have reached the service, sending it again could charge twice.
 */
export function shouldRetry(method: HttpMethod, outcome: AttemptOutcome, attempt: number, policy: RetryPolicy): RetryDecision {
  if (attempt >= policy.maxTries) return {retry: false}
  const backoff = (): RetryDecision => ({retry: true, delayMs: Math.round(policy.backoffBaseMs * 2 ** (attempt - 1) * (0.5 + policy.random()))})
  if (outcome.kind === 'failed') {
    if (outcome.clientDestroyed || outcome.permanent) return {retry: false}
    return method === 'GET' || outcome.beforeSending ? backoff() : {retry: false}
  }
  if (method !== 'GET' || !(outcome.status >= 500 || outcome.status === 429)) return {retry: false}
  return outcome.retryAfterMs === undefined ? backoff() : {retry: true, delayMs: Math.min(outcome.retryAfterMs, MAX_RETRY_AFTER_MS)}
}

/** An attempt that got an answer, read whole (or up to the size limit). */
export interface Answer {
  kind: 'answered'
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  /** The body as JSON; undefined when empty or not JSON. */
  body: unknown
  isJson: boolean
  /** The body is JSON nested deeper than any answer of the service: it is not read as JSON. */
  tooDeep: boolean
  /** The body passed the size limit; `text` holds its beginning only. */
  overLimit: boolean
}

/** An attempt that got no answer, or only the beginning of one. */
interface Failure {
  kind: 'failed'
  error: unknown
  code?: string
  timedOut: boolean
  beforeSending: boolean
  /** The status line arrived, then the body stopped after this many bytes. */
  cutOff?: {status: number; bytes: number}
}

function retryView(attempt: Answer | Failure): AttemptOutcome {
  if (attempt.kind === 'failed') {
    return {kind: 'failed', beforeSending: attempt.beforeSending, clientDestroyed: attempt.code === OUTGOING_ERROR.destroyed, permanent: attempt.code !== undefined && (attempt.code in CERTIFICATE_PROBLEMS || attempt.code === 'EPROTO')}
  }
  return {kind: 'answered', status: attempt.status, retryAfterMs: parseRetryAfter(attempt.headers['retry-after'])}
}

function readAnswer(status: number, headers: Answer['headers'], text: string, overLimit: boolean): Answer {
  const answer = {kind: 'answered' as const, status, headers, text, overLimit, tooDeep: false}
  if (text.length === 0) return {...answer, body: undefined, isJson: true}
  // Checked before parsing, so that no later walk (redaction, printing) meets a body too deep for it.
  if (jsonNestingDepth(text) > MAX_JSON_NESTING) return {...answer, body: undefined, isJson: false, tooDeep: true}
  try {
    return {...answer, body: JSON.parse(text), isJson: true}
  } catch {
    return {...answer, body: undefined, isJson: false}
  }
}

/** The body as text, read until `limitBytes`; past it the rest is dropped and the connection closed. */
async function readCappedText(body: IncomingMessage, limitBytes: number, received: {bytes: number}): Promise<{text: string; overLimit: boolean}> {
  const chunks: Buffer[] = []
  for await (const chunk of body as AsyncIterable<Buffer>) {
    received.bytes += chunk.length
    if (received.bytes > limitBytes) {
      body.destroy()
      return {text: Buffer.concat(chunks).toString('utf8'), overLimit: true}
    }
    chunks.push(chunk)
  }
  return {text: Buffer.concat(chunks).toString('utf8'), overLimit: false}
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

function isHtml(headers: Answer['headers'], text: string): boolean {
  return /html/i.test(headerValue(headers['content-type']) ?? '') || /^\s*<(!doctype html|html)/i.test(text)
}

/** An HTML page (a proxy's 502) as one line: its title, else its first heading, else its first text. */
function htmlHeadline(html: string): string {
  const inner = (tag: string) => new RegExp(`<${tag}[^>]*>([\\s\\S]{0,2000}?)</${tag}>`, 'i').exec(html)?.[1]
  const text = (inner('title') ?? inner('h1') ?? html).replace(/<[^>]*>/g, ' ')
  return bodySnippet(text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&'))
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${bytes} bytes`
}

/**
 * The service's `details` as `path: message` entries, however it nests them: objects add their
 * keys to the path, an object with a `message` is that message, lists of strings stay lists.
 */
function flattenDetails(details: unknown): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  const add = (path: string, message: string) => {
    const existing = out[path]
    out[path] = existing === undefined ? message : [...(Array.isArray(existing) ? existing : [existing]), message]
  }
  const pending: {path: string; value: unknown}[] = [{path: '', value: details}]
  for (let next = pending.shift(); next; next = pending.shift()) {
    const {path, value} = next
    const at = (key: string | number) => (path === '' ? String(key) : `${path}.${key}`)
    if (value === null || value === undefined) continue
    if (typeof value !== 'object') {
      add(path || 'details', String(value))
    } else if (Array.isArray(value)) {
      if (value.every((item) => typeof item === 'string')) for (const item of value) add(path || 'details', item)
      else value.forEach((item, index) => pending.push({path: itemPath(item) ?? at(index), value: itemMessage(item) ?? item}))
    } else if (typeof (value as {message?: unknown}).message === 'string') {
      add(itemPath(value) ?? (path || 'details'), (value as {message: string}).message)
    } else {
      for (const [key, item] of Object.entries(value)) pending.push({path: at(key), value: item})
    }
  }
  return out
}

/** The field an entry of a details list names, as services write it (`field`, `path`, `name`). */
function itemPath(item: unknown): string | undefined {
  if (!item || typeof item !== 'object') return undefined
  const {field, path, name} = item as Record<string, unknown>
  const named = [field, path, name].find((value) => typeof value === 'string' || Array.isArray(value))
  return Array.isArray(named) ? named.map(String).join('.') : (named as string | undefined)
}

function itemMessage(item: unknown): string | undefined {
  const message = item && typeof item === 'object' ? (item as {message?: unknown}).message : undefined
  return typeof message === 'string' ? message : undefined
}

/** The proxy, not the service, failed: nothing reached the service, and the fix is the proxy's settings. */
function proxyError(failure: ProxyFailure, target: URL, cause: unknown): NetworkError {
  const where = `${target.protocol}//${target.host}`
  const variable = target.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY'
  let message: string
  let hint: string
  if (failure.invalid) {
    message = `The proxy setting ${failure.proxy} is not an http:// or https:// address.`
    hint = `Set ${variable} to the proxy's address, like http://proxy.example:3128, or add ${target.hostname} to NO_PROXY.`
  } else if (failure.status === 407) {
    message = `The proxy ${failure.proxy} asked for credentials (407 Proxy Authentication Required) before carrying the request to ${where}.`
    hint = `Put the proxy's user name and password in ${variable} (http://user:password@host:port; encode special characters), or check that the ones there are still valid.`
  } else if (failure.status !== undefined) {
    message = `The proxy ${failure.proxy} would not carry the request to ${where}: it answered ${statusLine(failure.status)}.`
    hint = `The proxy could not reach ${target.host} or does not allow it: ask whoever runs the proxy, or add ${target.hostname} to NO_PROXY if it is reachable without one.`
  } else {
    message = `Could not connect to the proxy ${failure.proxy}${failure.reason ? ` (${failure.reason})` : ''}.`
    hint = `Check ${variable} (and its lower-case form), that the proxy is running, and NO_PROXY for hosts that need none. Nothing was sent to ${where}.`
  }
  return new NetworkError(message, {hint, mayHaveReachedService: false, cause})
}

export class HttpClient {
  private readonly options: Required<Pick<HttpClientOptions, 'connectTimeoutMs' | 'timeoutMs' | 'maxTries' | 'backoffBaseMs' | 'maxResponseBytes'>> &
    HttpClientOptions
  private readonly retryPolicy: RetryPolicy
  private readonly connections: Connections
  /** `destroy()` was called: what fails from now on failed because paytx is stopping. */
  private stopping = false
  private readonly secrets: (string | undefined)[]

  constructor(options: HttpClientOptions = {}) {
    this.options = {connectTimeoutMs: 10_000, timeoutMs: 30_000, maxTries: 3, backoffBaseMs: 250, ...options, maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES}
    this.retryPolicy = {maxTries: this.options.maxTries, backoffBaseMs: this.options.backoffBaseMs, random: options.random ?? Math.random}
    this.secrets = [...(options.secrets ?? [])]
    this.connections = new Connections({connectTimeoutMs: this.options.connectTimeoutMs})
  }

  /** Values learnt after construction (a PAN typed at a prompt) to scrub from logs and errors. */
  addSecrets(...values: (string | undefined)[]): void {
    this.secrets.push(...values)
  }

  async close(): Promise<void> {
    this.connections.close()
  }

  /** Stops at once: requests still running fail instead of being waited for (Ctrl-C). */
  async destroy(): Promise<void> {
    this.stopping = true
    this.connections.destroy()
  }

  private log(line: string): void {
    if (this.options.log) this.options.log(scrubSecrets(line, this.secrets))
  }

  private async sleep(ms: number): Promise<void> {
    if (this.options.sleep) return this.options.sleep(ms)
    await new Promise((resolve) => setTimeout(resolve, ms))
  }

  /** Sends the request, retrying as `shouldRetry` allows; the answer of a 2xx as JSON, or a typed error. */
  async request<T = unknown>(req: HttpRequest): Promise<HttpResponse<T>> {
    const {answer, durationMs, tries} = await this.exchange(req)
    return this.accept<T>(req, answer, {durationMs, tries})
  }

  /**
   * Sends the request, retrying as `shouldRetry` allows, and returns the answer whatever its
   * status (`paytx api` shows error bodies too); only a request that got no answer throws.
   */
  async exchange(req: HttpRequest): Promise<{answer: Answer; durationMs: number; tries: number}> {
    const headers: Record<string, string> = {accept: 'application/json', ...req.headers}
    const payload = req.rawBody ?? (req.body === undefined ? undefined : JSON.stringify(req.body))
    if (payload !== undefined) headers['content-type'] ??= 'application/json'
    const started = Date.now()
    for (let attempt = 1; ; attempt++) {
      const leaveGate = await this.options.gate?.enter()
      this.logRequest(req, headers, attempt)
      const outcome = await this.attempt(req, headers, payload).finally(leaveGate)
      if (outcome.kind === 'answered' && outcome.overLimit) throw this.tooLargeError(req, outcome)
      const decision = shouldRetry(req.method, retryView(outcome), attempt, this.retryPolicy)
      if (decision.retry) {
        if (outcome.kind === 'answered' && outcome.status === 429) this.options.gate?.pauseFor(decision.delayMs)
        await this.sleep(decision.delayMs)
        continue
      }
      if (outcome.kind === 'failed') throw this.networkError(req, outcome, attempt)
      return {answer: outcome, durationMs: Date.now() - started, tries: attempt}
    }
  }

  private logRequest(req: HttpRequest, headers: Record<string, string>, attempt: number): void {
    this.log(`→ ${req.method} ${req.url}${attempt > 1 ? ` (try ${attempt} of ${this.options.maxTries})` : ''}`)
    for (const [name, value] of Object.entries(redactHeaders(headers, this.options.secretHeaderNames))) this.log(`  ${name}: ${value}`)
    if (req.rawBody !== undefined) this.log(`  ${redactText(req.rawBody)}`)
    else if (req.body !== undefined) this.log(`  ${JSON.stringify(redactBody(req.body))}`)
  }

  /** One try, bounded by the total timeout: the answer read whole, or why there was none. */
  private async attempt(req: HttpRequest, headers: Record<string, string>, payload: string | undefined): Promise<Answer | Failure> {
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), this.options.timeoutMs)
    const attemptStarted = Date.now()
    let answer: Answer
    let status: number | undefined
    const received = {bytes: 0}
    try {
      const response = await this.connections.send({url: req.url, method: req.method, headers, body: payload, signal: controller.signal})
      status = response.status
      const {text, overLimit} = await readCappedText(response.body, this.options.maxResponseBytes, received)
      answer = readAnswer(response.status, response.headers, text, overLimit)
    } catch (error) {
      const code = this.stopping ? OUTGOING_ERROR.destroyed : errorCode(error)
      const timedOut = controller.signal.aborted
      const cutOff = status === undefined ? undefined : {status, bytes: received.bytes}
      this.log(
        `← ${cutOff ? `${statusLine(cutOff.status)}, cut off after ${cutOff.bytes} bytes: ` : ''}${
          timedOut ? `timed out after ${this.options.timeoutMs} ms` : `failed: ${code ?? (error as Error).message}`
        }`,
      )
      const neverSent = error instanceof OutgoingError && !error.sent
      return {kind: 'failed', error, code, timedOut, cutOff, beforeSending: !timedOut && status === undefined && (neverSent || (code !== undefined && CONNECT_ERROR_CODES.has(code)))}
    } finally {
      clearTimeout(timer)
    }
    this.log(`← ${statusLine(answer.status)} in ${Date.now() - attemptStarted} ms`)
    this.log(`  ${answer.isJson ? (answer.text.length > 0 ? JSON.stringify(redactBody(answer.body)) : '(empty body)') : verboseText(answer.text)}`)
    return answer
  }

  /** A 2xx with a JSON body is the result; anything else becomes the error to show. */
  private accept<T>(req: HttpRequest, answer: Answer, totals: {durationMs: number; tries: number}): HttpResponse<T> {
    if (answer.status < 200 || answer.status >= 300) throw this.serviceError(req, answer)
    if (answer.tooDeep) {
      throw new ResponseError(
        `The service answered ${statusLine(answer.status)} to ${req.method} ${new URL(req.url).pathname} with a body paytx does not understand: it is nested deeper than ${MAX_JSON_NESTING} levels.`,
        `Check that the profile’s base URL points at the service (\`${commandLine('profile show')}\`).`,
      )
    }
    if (!answer.isJson) {
      throw new ResponseError(
        `The service answered ${statusLine(answer.status)} to ${req.method} ${req.url}, but the body is not JSON: ${scrubSecrets(bodySnippet(answer.text), this.secrets)}`,
        `Check that the profile’s base URL points at the service and not at another web server (\`${commandLine('profile show')}\`).`,
      )
    }
    return {status: answer.status, headers: answer.headers, body: answer.body as T, ...totals}
  }

  private tooLargeError(req: HttpRequest, answer: Answer): ResponseError {
    const limit = formatBytes(this.options.maxResponseBytes)
    return new ResponseError(
      `The service's answer (${statusLine(answer.status)}) to ${req.method} ${new URL(req.url).pathname} is larger than ${limit}: paytx stopped reading it there and used none of it.`,
      `If an answer that large is expected, raise the limit with PAYTX_MAX_RESPONSE_BYTES (in bytes; now ${this.options.maxResponseBytes}).${
        req.method === 'POST' ? ' The request did reach the service: check what happened before sending it again.' : ''
      }`,
    )
  }

  /**
   * The error to show for an answer that is not a success, with the service's code, message and
   * details; `shownBody` (scrubbed by the caller) goes with it for commands that show the body.
   */
  serviceError(req: HttpRequest, answer: Answer, shownBody?: unknown): ServiceError {
    const {status, text, headers} = answer
    const body = answer.isJson ? answer.body : undefined
    const object = body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined
    const html = !object && isHtml(headers, text)
    const location = status >= 300 && status < 400 ? headerValue(headers.location) : undefined
    let serviceMessage: string | undefined
    if (typeof object?.message === 'string') serviceMessage = object.message
    else if (html) serviceMessage = `${htmlHeadline(text)} (an HTML page${this.options.log ? ', shown above' : '; --verbose shows it'})`
    else if (text.length > 0) serviceMessage = bodySnippet(text)
    const code = object?.code === undefined ? undefined : String(object.code)
    const details = object?.details && typeof object.details === 'object' ? flattenDetails(object.details) : undefined
    const scrub = (s: string) => scrubSecrets(s, this.secrets)
    const pointedAt = location === undefined ? '' : `, pointing at ${new URL(location, req.url).href}`
    const message = `The service answered ${statusLine(status)} to ${req.method} ${new URL(req.url).pathname}${pointedAt}${
      serviceMessage ? `: ${visibleText(scrub(serviceMessage))}` : ''
    }`
    return new ServiceError({
      status,
      method: req.method,
      url: req.url,
      code,
      serviceMessage: serviceMessage === undefined ? undefined : scrub(serviceMessage),
      details: details ? (JSON.parse(scrub(JSON.stringify(redactBody(details)))) as Record<string, string | string[]>) : undefined,
      message,
      hint: status >= 300 && status < 400 ? redirectHint(location) : defaultHint(status, req.method),
      body: shownBody,
    })
  }

  private networkError(req: HttpRequest, failure: Failure, tries: number): NetworkError {
    const proxyFailure = failure.error instanceof OutgoingError ? failure.error.proxyFailure : undefined
    if (proxyFailure) return proxyError(proxyFailure, new URL(req.url), failure.error)
    const {code, timedOut} = failure
    const target = new URL(req.url)
    const where = `${target.protocol}//${target.host}`
    const afterTries = tries > 1 ? ` after ${tries} tries` : ''
    let message: string
    if (failure.cutOff) {
      const {status, bytes} = failure.cutOff
      const ended = timedOut ? `nothing more came within ${this.options.timeoutMs} ms` : 'the connection closed'
      message = `The answer from ${where} was cut off: ${statusLine(status)} arrived, then ${ended} after ${bytes} bytes of the body${afterTries}.`
    } else if (timedOut) message = `No answer from ${where} within ${this.options.timeoutMs} ms${afterTries}.`
    else if (code === 'ECONNREFUSED') message = `Could not connect to ${where}: connection refused${afterTries}.`
    else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') message = `Could not resolve the host ${target.hostname}${afterTries}.`
    else if (code !== undefined && code in CERTIFICATE_PROBLEMS) message = `paytx does not trust the certificate of ${where}: ${CERTIFICATE_PROBLEMS[code]} (${code}).`
    else if (code === 'EPROTO' && /wrong version number/i.test((failure.error as Error).message)) message = `${where} does not speak TLS (HTTPS)${afterTries}.`
    else if (code === OUTGOING_ERROR.connectTimeout) message = `Could not connect to ${where} within ${this.options.connectTimeoutMs} ms${afterTries}.`
    else message = `The connection to ${where} failed (${code ?? (failure.error as Error).message})${afterTries}.`

    const mayHaveReachedService = req.method !== 'GET' && !failure.beforeSending
    let hint: string
    if (mayHaveReachedService) {
      hint =
        `The request may have reached the service, so it was not sent again. Check what happened before retrying (for a transaction: \`${commandLine('status <id>')}\`; look for your merchant reference).`
    } else if (code !== undefined && code in CERTIFICATE_PROBLEMS) {
      hint = `Check that the profile’s address names the service’s own host (\`${commandLine('profile show')}\`). If the service’s certificate comes from your organisation’s own authority, point NODE_EXTRA_CA_CERTS at that authority’s certificate (a PEM file); paytx never skips the check.`
    } else if (code === 'EPROTO') {
      hint = `The address is probably a plain http:// one: check the scheme of the profile’s base URL (\`${commandLine('profile show')}\`).`
    } else if (code === 'ECONNREFUSED' && ['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) {
      hint = `Nothing listens there. Start the emulator with \`${commandLine('emulator start')}\`, or pick another profile with --profile.`
    } else if (failure.cutOff) {
      hint = 'Try again; if it keeps happening, something between paytx and the service (a proxy, a load balancer) cuts answers off.'
    } else if (timedOut) {
      hint = 'Try again, or allow more time with --timeout.'
    } else {
      hint = `Check your network and the profile’s addresses (\`${commandLine('profile show')}\`), then try again.`
    }
    return new NetworkError(scrubSecrets(message, this.secrets), {hint, mayHaveReachedService, cause: failure.error})
  }
}
