/**
 * What paytx says when a request did not end in a usable answer: the service's own error (status,
 * code, message, details), an answer it cannot read, or no answer at all; each with the words
 * that name no command, and a remedy (remedy.ts) for the CLI to word.
 */
import {NetworkError, ResponseError, ServiceError} from '../errors.js'
import {OUTGOING_ERROR, OutgoingError, type ProxyFailure} from '../http/outgoing.js'
import {MAX_JSON_NESTING} from '../http/json-nesting.js'
import type {Remedy} from '../remedy.js'
import {redactedJson, scrubSecrets} from '../secrets/redact.js'
import {redactUrl} from '../secrets/redact-url.js'
import {visibleText} from '../terminal/visible-text.js'
import {type Answer, type Failure, bodySnippet, flattenDetails, formatBytes, headerValue, htmlHeadline, isHtml, statusLine} from './answer.js'
import type {HttpMethod, HttpRequest} from './http-message.js'

/** What the errors of one client know of it. */
export interface ErrorSettings {
  /** Values scrubbed from every message (keys, PAN). */
  secrets: readonly (string | undefined)[]
  /** --verbose is on: an HTML page was logged above the error. */
  verbose: boolean
  timeoutMs: number
  connectTimeoutMs: number
  maxResponseBytes: number
}

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

/** A failure that trying again cannot mend: a certificate not trusted, or TLS spoken to plain HTTP. */
export function isPermanentFailure(code: string | undefined): boolean {
  return code !== undefined && (code in CERTIFICATE_PROBLEMS || code === 'EPROTO')
}

/**
 * 501 (Not Implemented) and 505 (HTTP Version Not Supported) say the server never handled the
 * request: nothing was processed. The payment service implements every method paytx sends, so
 * the server answering is most likely not the service (another program on the port).
 */
const NOT_HANDLED_STATUSES = new Set([501, 505])

/** What to do about a status that is not a success: words that name no command, or a remedy. */
function statusAdvice(status: number, method: HttpMethod, foreignPage: boolean): {hint?: string; remedy?: Remedy} {
  if (status === 401 || status === 403) return {remedy: {kind: 'check-profile', concern: 'api-key'}}
  if (status === 404) return {remedy: {kind: 'check-profile', concern: foreignPage ? 'not-a-web-server' : 'id-and-base-url'}}
  if (status === 429) return {hint: 'The service is rate limiting; wait a little and try again.'}
  if (NOT_HANDLED_STATUSES.has(status)) {
    return {
      hint: `The server did not handle the request (${statusLine(status)}), so nothing was processed; the payment service answers every request paytx sends, so this is probably another program.`,
      remedy: {kind: 'check-profile', concern: foreignPage ? 'not-a-web-server' : 'base-url'},
    }
  }
  if (status >= 500) {
    return method !== 'GET' ? {remedy: {kind: 'look-up-transaction', situation: 'service-failed'}} : {hint: 'The service failed; try again in a moment.'}
  }
  if (status >= 300 && status < 400) return {remedy: {kind: 'fix-base-url'}}
  return {}
}

/**
 * paytx never follows a redirect (the API key would go wherever it points), so a 3xx means the
 * base URL is not the API's own address.
 */
function redirectHint(location: string | undefined): string {
  return `paytx does not follow redirects, so that keys are sent nowhere else: the profile’s base URL is probably wrong${location ? '' : ' (the answer did not say where to)'}.`
}

/** A 2xx answer that paytx cannot use: nested too deep, or not JSON; undefined when it is usable. */
export function unreadableAnswerError(req: HttpRequest, answer: Answer, settings: ErrorSettings): ResponseError | undefined {
  if (answer.tooDeep) {
    return new ResponseError(
      `The service answered ${statusLine(answer.status)} to ${req.method} ${new URL(req.url).pathname} with a body paytx does not understand: it is nested deeper than ${MAX_JSON_NESTING} levels.`,
      undefined,
      {kind: 'check-profile', concern: 'base-url'},
    )
  }
  if (!answer.isJson) {
    return new ResponseError(
      `The service answered ${statusLine(answer.status)} to ${req.method} ${redactUrl(req.url)}, but the body is not JSON: ${visibleText(scrubSecrets(bodySnippet(answer.text), settings.secrets))}`,
      undefined,
      {kind: 'check-profile', concern: 'not-a-web-server'},
    )
  }
  return undefined
}

export function tooLargeError(req: HttpRequest, answer: Answer, settings: ErrorSettings): ResponseError {
  const limit = formatBytes(settings.maxResponseBytes)
  return new ResponseError(
    `The service's answer (${statusLine(answer.status)}) to ${req.method} ${new URL(req.url).pathname} is larger than ${limit}: paytx stopped reading it there and used none of it.`,
    `If an answer that large is expected, raise the limit with PAYTX_MAX_RESPONSE_BYTES (in bytes; now ${settings.maxResponseBytes}).${
      req.method === 'POST' ? ' The request did reach the service: check what happened before sending it again.' : ''
    }`,
  )
}

/**
 * The error to show for an answer that is not a success, with the service's code, message and
 * details; `shownBody` (scrubbed by the caller) goes with it for commands that show the body.
 */
export function serviceError(req: HttpRequest, answer: Answer, settings: ErrorSettings, shownBody?: unknown): ServiceError {
  const {status, text, headers} = answer
  const body = answer.isJson ? answer.body : undefined
  const object = body && typeof body === 'object' ? (body as Record<string, unknown>) : undefined
  const html = !object && isHtml(headers, text)
  const location = status >= 300 && status < 400 ? headerValue(headers.location) : undefined
  let serviceMessage: string | undefined
  if (typeof object?.message === 'string') serviceMessage = object.message
  else if (html) serviceMessage = `${htmlHeadline(text)} (an HTML page${settings.verbose ? ', shown above' : '; --verbose shows it'})`
  else if (text.length > 0) serviceMessage = bodySnippet(text)
  const code = object?.code === undefined ? undefined : String(object.code)
  const details = object?.details && typeof object.details === 'object' ? flattenDetails(object.details) : undefined
  const scrub = (s: string) => scrubSecrets(s, settings.secrets)
  const pointedAt = location === undefined ? '' : `, pointing at ${redactUrl(new URL(location, req.url))}`
  // An HTML page or plain text where the service sends its JSON error object: another web server.
  const foreignPage = html || (!answer.isJson && text.length > 0)
  // A 404 page of another web server, or a request no server handled, is not the service's answer.
  const answeredBy = (status === 404 && foreignPage) || NOT_HANDLED_STATUSES.has(status) ? `The server at ${new URL(req.url).origin}` : 'The service'
  const message = `${answeredBy} answered ${statusLine(status)} to ${req.method} ${new URL(req.url).pathname}${pointedAt}${
    serviceMessage ? `: ${visibleText(scrub(serviceMessage))}` : ''
  }`
  return new ServiceError({
    status,
    method: req.method,
    url: req.url,
    code,
    serviceMessage: serviceMessage === undefined ? undefined : scrub(serviceMessage),
    details: details ? (JSON.parse(scrub(redactedJson(details))) as Record<string, string | string[]>) : undefined,
    message,
    ...(status >= 300 && status < 400 ? {hint: redirectHint(location)} : {}),
    ...statusAdvice(status, req.method, foreignPage),
    body: shownBody,
  })
}

/** What went wrong with a request that got no (whole) answer, in one sentence. */
function failureMessage(failure: Failure, target: URL, tries: number, settings: ErrorSettings): string {
  const {code, timedOut} = failure
  const where = `${target.protocol}//${target.host}`
  const afterTries = tries > 1 ? ` after ${tries} tries` : ''
  if (failure.cutOff) {
    const {status, bytes} = failure.cutOff
    const ended = timedOut ? `nothing more came within ${settings.timeoutMs} ms` : 'the connection closed'
    return `The answer from ${where} was cut off: ${statusLine(status)} arrived, then ${ended} after ${bytes} bytes of the body${afterTries}.`
  }
  if (timedOut) return `No answer from ${where} within ${settings.timeoutMs} ms${afterTries}.`
  if (code === 'ECONNREFUSED') return `Could not connect to ${where}: connection refused${afterTries}.`
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `Could not resolve the host ${target.hostname}${afterTries}.`
  if (code !== undefined && code in CERTIFICATE_PROBLEMS) return `paytx does not trust the certificate of ${where}: ${CERTIFICATE_PROBLEMS[code]} (${code}).`
  if (code === 'EPROTO' && /wrong version number/i.test((failure.error as Error).message)) return `${where} does not speak TLS (HTTPS)${afterTries}.`
  if (code === OUTGOING_ERROR.connectTimeout) return `Could not connect to ${where} within ${settings.connectTimeoutMs} ms${afterTries}.`
  return `The connection to ${where} failed (${code ?? (failure.error as Error).message})${afterTries}.`
}

/** What would help after a failure: never sending again a request that may have reached the service. */
function failureAdvice(failure: Failure, target: URL, mayHaveReachedService: boolean): {hint?: string; remedy?: Remedy} {
  const {code, timedOut} = failure
  if (mayHaveReachedService) return {remedy: {kind: 'look-up-transaction', situation: 'may-have-reached'}}
  if (code !== undefined && code in CERTIFICATE_PROBLEMS) return {remedy: {kind: 'check-profile', concern: 'certificate-host'}}
  if (code === 'EPROTO') return {remedy: {kind: 'check-profile', concern: 'scheme'}}
  if (code === 'ECONNREFUSED' && ['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) return {hint: 'Nothing listens there.', remedy: {kind: 'start-emulator', situation: 'nothing-listens'}}
  if (failure.cutOff) return {hint: 'Try again; if it keeps happening, something between paytx and the service (a proxy, a load balancer) cuts answers off.'}
  if (timedOut) return {hint: 'Try again, or allow more time with --timeout.'}
  return {remedy: {kind: 'check-profile', concern: 'addresses'}}
}

/** The proxy, not the service, failed: nothing reached the service, and the fix is the proxy's settings. */
function proxyError(failure: ProxyFailure, target: URL, cause: unknown, timeoutMs: number): NetworkError {
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
  } else if (failure.stalled) {
    const within = `within ${failure.stalled.ms ?? timeoutMs} ms`
    message = {
      proxy: `The proxy ${failure.proxy} took no connection for the request to ${where} ${within}; nothing was sent.`,
      connect: `The proxy ${failure.proxy} did not open a tunnel to ${target.host} ${within} (no answer to CONNECT); nothing was sent.`,
      tls: `The proxy ${failure.proxy} answered CONNECT for ${target.host}, but no TLS handshake with ${target.hostname} completed through it ${within}; nothing was sent.`,
    }[failure.stalled.step]
    hint = `${
      failure.stalled.step === 'tls' ? `The proxy lets the connection through but nothing comes back: ask whoever runs it whether it carries ${target.host}` : `Check that the proxy in ${variable} is running and answering`
    }, or add ${target.hostname} to NO_PROXY if it is reachable without one; --timeout allows more time.`
  } else if (failure.status !== undefined) {
    message = `The proxy ${failure.proxy} would not carry the request to ${where}: it answered ${statusLine(failure.status)}.`
    hint = `The proxy could not reach ${target.host} or does not allow it: ask whoever runs the proxy, or add ${target.hostname} to NO_PROXY if it is reachable without one.`
  } else {
    message = `Could not connect to the proxy ${failure.proxy}${failure.reason ? ` (${failure.reason})` : ''}.`
    hint = `Check ${variable} (and its lower-case form), that the proxy is running, and NO_PROXY for hosts that need none. Nothing was sent to ${where}.`
  }
  return new NetworkError(message, {hint, mayHaveReachedService: false, cause})
}

export function networkError(req: HttpRequest, failure: Failure, tries: number, settings: ErrorSettings): NetworkError {
  const proxyFailure = failure.error instanceof OutgoingError ? failure.error.proxyFailure : undefined
  if (proxyFailure) return proxyError(proxyFailure, new URL(req.url), failure.error, settings.timeoutMs)
  const target = new URL(req.url)
  const mayHaveReachedService = req.method !== 'GET' && !failure.beforeSending
  const message = failureMessage(failure, target, tries, settings)
  return new NetworkError(scrubSecrets(message, settings.secrets), {...failureAdvice(failure, target, mayHaveReachedService), mayHaveReachedService, cause: failure.error})
}
