/**
 * The words of paytx's outgoing requests that both ways of sending share: the request and answer
 * shapes, the error every failed request is, and what a proxy did wrong. Below both
 * `outgoing.ts` (node:http) and `proxied-request.ts` (undici, loaded only for proxied
 * requests), so neither imports the other's module for them.
 */
import type {IncomingHttpHeaders, IncomingMessage} from 'node:http'

/** Error codes of the failures this module raises itself. */
export const OUTGOING_ERROR = {
  /** The connection was not open within the connect timeout. */
  connectTimeout: 'PAYTX_CONNECT_TIMEOUT',
  /** `Connections.destroy()` stopped the request (paytx is stopping). */
  destroyed: 'PAYTX_REQUEST_DESTROYED',
  /** The proxy answered instead of carrying the request (407, or a refused CONNECT). */
  proxyRefused: 'PAYTX_PROXY_REFUSED',
  /** No connection to the proxy. */
  proxyUnreachable: 'PAYTX_PROXY_UNREACHABLE',
  /** The proxy variable is not an http(s) address. */
  proxyInvalid: 'PAYTX_PROXY_INVALID',
  /** The proxy did not open the tunnel in time: no answer to CONNECT, or no TLS handshake through it. */
  proxyStalled: 'PAYTX_PROXY_STALLED',
} as const

/** What the proxy itself did wrong, so that the message can name the proxy (never its password). */
export interface ProxyFailure {
  /** The proxy's address with its password redacted. */
  proxy: string
  /** The proxy answered this status instead of carrying the request (407, 502, …). */
  status?: number
  /** The proxy could not be reached at all (its connection failed). */
  unreachable?: boolean
  /** Why not, as the system said it (ECONNREFUSED, ENOTFOUND, …). */
  reason?: string
  /** The proxy variable does not hold an http(s) address. */
  invalid?: boolean
  /**
   * The request had no way through in time: no connection to the proxy (`proxy`), no answer to
   * CONNECT (`connect`), or no TLS handshake through the tunnel (`tls`); `ms` is the limit, when
   * it was the connect timeout's.
   */
  stalled?: {step: 'proxy' | 'connect' | 'tls'; ms?: number}
}

export interface OutgoingRequest {
  url: string | URL
  method: string
  /**
   * Header names and values: an object, or a list of name/value pairs as they arrived (case and
   * order kept; `Host` and `Content-Length` are added).
   */
  headers?: Record<string, string> | readonly string[]
  body?: string | Buffer
  /**
   * Ends the request (a total timeout, Ctrl-C) at any point, connecting included; the promise
   * rejects with the signal's reason, or, through a proxy whose tunnel was not open yet, with an
   * OutgoingError naming the proxy (its cause the reason).
   */
  signal?: AbortSignal
}

export interface OutgoingAnswer {
  status: number
  headers: IncomingHttpHeaders
  /** The body, to be read (or `resume()`d) by the caller. */
  body: IncomingMessage
}

/** Thrown for every request that got no answer; `sent` says whether its bytes may have left. */
export class OutgoingError extends Error {
  readonly code?: string

  constructor(
    cause: unknown,
    /** The connection had opened: the request, or part of it, may have reached the other side. */
    readonly sent: boolean,
    /** Set when the request went to a proxy and the proxy is what failed. */
    readonly proxyFailure?: ProxyFailure,
  ) {
    super((cause as Error)?.message ?? String(cause), {cause})
    this.name = 'OutgoingError'
    this.code = (cause as {code?: unknown})?.code === undefined ? undefined : String((cause as {code?: unknown}).code)
  }
}
