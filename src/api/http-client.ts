/**
 * The one HTTP client of paytx, on Node's own HTTP (`src/http/outgoing.ts`). JSON in and out, any
 * 2xx accepted, connect and total timeouts, and retries that never repeat a request that may have
 * reached the service (retry-policy.ts). The answer is read by answer.ts; what failed is said by
 * request-errors.ts.
 */
import {InputError, type ServiceError} from '../errors.js'
import {Connections, OUTGOING_ERROR, OutgoingError} from '../http/outgoing.js'
import {headerValueProblem} from '../http/header-value.js'
import {redactedJson, redactHeaders, redactText, scrubSecrets} from '../secrets/redact.js'
import {redactUrl} from '../secrets/redact-url.js'
import {type Answer, type Failure, readAnswer, readCappedText, statusLine, verboseText} from './answer.js'
import type {HttpRequest, HttpResponse} from './http-message.js'
import type {RequestGate} from './request-gate.js'
import {type ErrorSettings, isPermanentFailure, networkError, serviceError, tooLargeError, unreadableAnswerError} from './request-errors.js'
import {type AttemptOutcome, type RetryPolicy, parseRetryAfter, shouldRetry} from './retry-policy.js'

export {HTTP_METHODS, type HttpMethod, type HttpRequest, type HttpResponse} from './http-message.js'
export {statusLine, type Answer} from './answer.js'
export {type AttemptOutcome, type RetryDecision, type RetryPolicy, parseRetryAfter, shouldRetry} from './retry-policy.js'

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

function retryView(attempt: Answer | Failure): AttemptOutcome {
  if (attempt.kind === 'failed') {
    return {kind: 'failed', beforeSending: attempt.beforeSending, clientDestroyed: attempt.code === OUTGOING_ERROR.destroyed, permanent: isPermanentFailure(attempt.code)}
  }
  return {kind: 'answered', status: attempt.status, retryAfterMs: parseRetryAfter(attempt.headers['retry-after'])}
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
    for (const [name, value] of Object.entries(headers)) {
      const problem = headerValueProblem(value)
      // A key or header typed with a stray character: nothing can be sent, and no retry would help.
      if (problem) throw new InputError(`The ${name} header ${problem}; nothing was sent.`, {hint: 'Check the value in the profile or on the command line.'})
    }
    const payload = req.rawBody ?? (req.body === undefined ? undefined : JSON.stringify(req.body))
    if (payload !== undefined) headers['content-type'] ??= 'application/json'
    const started = Date.now()
    for (let attempt = 1; ; attempt++) {
      const leaveGate = await this.options.gate?.enter()
      this.logRequest(req, headers, attempt)
      const outcome = await this.attempt(req, headers, payload).finally(leaveGate)
      if (outcome.kind === 'answered' && outcome.overLimit) throw tooLargeError(req, outcome, this.errorSettings())
      const decision = shouldRetry(req.method, retryView(outcome), attempt, this.retryPolicy)
      if (decision.retry) {
        if (outcome.kind === 'answered' && outcome.status === 429) this.options.gate?.pauseFor(decision.delayMs)
        await this.sleep(decision.delayMs)
        continue
      }
      if (outcome.kind === 'failed') throw networkError(req, outcome, attempt, this.errorSettings())
      return {answer: outcome, durationMs: Date.now() - started, tries: attempt}
    }
  }

  private logRequest(req: HttpRequest, headers: Record<string, string>, attempt: number): void {
    this.log(`→ ${req.method} ${redactUrl(req.url)}${attempt > 1 ? ` (try ${attempt} of ${this.options.maxTries})` : ''}`)
    for (const [name, value] of Object.entries(redactHeaders(headers, this.options.secretHeaderNames))) this.log(`  ${name}: ${value}`)
    if (req.rawBody !== undefined) this.log(`  ${redactText(req.rawBody)}`)
    else if (req.body !== undefined) this.log(`  ${redactedJson(req.body)}`)
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
    this.log(`  ${answer.isJson ? (answer.text.length > 0 ? redactedJson(answer.body) : '(empty body)') : verboseText(answer.text)}`)
    return answer
  }
  /** A 2xx with a JSON body is the result; anything else becomes the error to show. */
  private accept<T>(req: HttpRequest, answer: Answer, totals: {durationMs: number; tries: number}): HttpResponse<T> {
    if (answer.status < 200 || answer.status >= 300) throw this.serviceError(req, answer)
    const unreadable = unreadableAnswerError(req, answer, this.errorSettings())
    if (unreadable) throw unreadable
    return {status: answer.status, headers: answer.headers, body: answer.body as T, ...totals}
  }

  /** What the errors of this client need to know of it. */
  private errorSettings(): ErrorSettings {
    const {timeoutMs, connectTimeoutMs, maxResponseBytes} = this.options
    return {secrets: this.secrets, verbose: Boolean(this.options.log), timeoutMs, connectTimeoutMs, maxResponseBytes}
  }

  /** The error for an answer that is not a success (request-errors.ts), for callers that read answers themselves. */
  serviceError(req: HttpRequest, answer: Answer, shownBody?: unknown): ServiceError {
    return serviceError(req, answer, this.errorSettings(), shownBody)
  }
}
