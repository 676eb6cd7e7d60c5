/**
 * Requests through an HTTP proxy, on undici's ProxyAgent: https targets through a CONNECT tunnel,
 * http targets as absolute-form requests to the proxy (as curl sends them, so a proxy that only
 * allows CONNECT to 443 still carries them). Loaded by `Connections` only for a request that
 * `proxyFor` sends to a proxy, so undici never costs the normal path anything.
 */
import type {IncomingMessage} from 'node:http'

import {type Dispatcher, Pool, ProxyAgent, request} from 'undici'
import type {buildConnector} from 'undici'

import {OUTGOING_ERROR, OutgoingError, type OutgoingAnswer, type OutgoingRequest, type ProxyFailure} from './outgoing-shapes.js'
import {TunnelAttempts, stalledTunnelError, tunnelTarget} from './proxy-tunnels.js'
import {redactUrl} from '../secrets/redact-url.js'

/** The proxy as written in the variable: `host:port` alone means http://host:port, as curl reads it. */
export function proxyUrl(written: string): URL | undefined {
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(written) ? written : `http://${written}`)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined
  } catch {
    return undefined
  }
}

/** Failures to open a connection (to the proxy, the only host paytx connects to): nothing had left. */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_PRX_TLS'])

function codeOf(error: unknown): string | undefined {
  const code = (error as {code?: unknown})?.code
  return typeof code === 'string' ? code : undefined
}

/**
 * The proxy's refusal as undici words it: "Proxy response (502) !== 200 when HTTP Tunneling" for
 * a CONNECT, "Proxy Authentication Required (407)" for a plain request.
 */
function refusedStatus(error: unknown): number | undefined {
  const match = /^Proxy \D*\((\d{3})\)/.exec((error as Error)?.message ?? '')
  return match ? Number(match[1]) : undefined
}

function proxyError(cause: unknown, failure: ProxyFailure): OutgoingError {
  const code = failure.status ? OUTGOING_ERROR.proxyRefused : OUTGOING_ERROR.proxyUnreachable
  return new OutgoingError(Object.assign(new Error((cause as Error)?.message ?? String(cause), {cause}), {code}), false, failure)
}

/** One proxy's agent, and how many requests use it now (an abandoned tunnel is cancelled only when none do). */
interface ProxyRoute {
  agent: ProxyAgent
  /** The proxy's address as messages show it (no password). */
  shown: string
  /** An https:// proxy: undici reaches every target through a CONNECT tunnel, plain http ones too. */
  tunnelsAll: boolean
  running: number
}

/**
 * Lets `onStart` know when undici gives the request its connection (the CONNECT tunnel is open);
 * until then an abort signal does nothing to the request, so the caller has to act on it itself.
 */
function noticingStart(onStart: () => void): Dispatcher.DispatcherComposeInterceptor {
  return (dispatch) => (options, handler) =>
    dispatch(options, {
      onRequestStart: (controller, context) => {
        onStart()
        handler.onRequestStart?.(controller, context)
      },
      onRequestUpgrade: (...args) => handler.onRequestUpgrade?.(...args),
      onResponseStart: (...args) => handler.onResponseStart?.(...args),
      onResponseData: (...args) => handler.onResponseData?.(...args),
      onResponseEnd: (...args) => handler.onResponseEnd?.(...args),
      onResponseError: (...args) => handler.onResponseError?.(...args),
    })
}

/** ProxyAgents by proxy address, kept for the command's life so that connections are reused. */
export class ProxiedConnections {
  private readonly routes = new Map<string, ProxyRoute>()
  private readonly tunnels: TunnelAttempts

  constructor(private readonly connectTimeoutMs: number) {
    this.tunnels = new TunnelAttempts(connectTimeoutMs)
  }

  private routeFor(proxy: URL): ProxyRoute {
    let route = this.routes.get(proxy.href)
    if (!route) {
      const connect = {timeout: this.connectTimeoutMs}
      const shown = redactUrl(proxy)
      // Every tunnel is opened under a time limit (proxy-tunnels.ts); undici's own has none for CONNECT.
      const factory = (origin: URL | string, options: object) => new Pool(origin, {...options, connect: this.tunnels.bounded(shown, (options as {connect: buildConnector.connector}).connect)})
      // proxyTunnel false: plain http goes as absolute-form requests; https always tunnels.
      const agent = new ProxyAgent({uri: proxy.href, proxyTunnel: false, connect, proxyTls: connect, requestTls: connect, factory})
      route = {agent, shown, tunnelsAll: proxy.protocol === 'https:', running: 0}
      this.routes.set(proxy.href, route)
    }
    return route
  }

  async send(written: string, req: OutgoingRequest, target: URL): Promise<OutgoingAnswer> {
    const proxy = proxyUrl(written)
    if (!proxy) {
      const cause = Object.assign(new Error(`The proxy address ${redactUrl(written)} is not an http:// or https:// URL`), {code: OUTGOING_ERROR.proxyInvalid})
      throw new OutgoingError(cause, false, {proxy: redactUrl(written), invalid: true})
    }
    const shown = redactUrl(proxy)
    const route = this.routeFor(proxy)
    route.running++
    try {
      const answer = await this.request(route, req, target)
      return {status: answer.statusCode, headers: answer.headers, body: answer.body as unknown as IncomingMessage}
    } catch (error) {
      if (error instanceof OutgoingError) throw error
      if (req.signal?.aborted) throw req.signal.reason
      const status = refusedStatus(error)
      if (status !== undefined) throw proxyError(error, {proxy: shown, status})
      const code = codeOf(error) ?? ''
      if (code === OUTGOING_ERROR.proxyStalled) throw new OutgoingError(error, false, (error as {proxyFailure: ProxyFailure}).proxyFailure)
      // paytx connects to the proxy only: a failure to connect is the proxy's (the target's is a 502 to CONNECT).
      if (CONNECT_CODES.has(code)) throw proxyError(error, {proxy: shown, unreachable: true, reason: code === 'UND_ERR_CONNECT_TIMEOUT' ? 'no answer' : code})
      throw new OutgoingError(error, !/CERT|SELF_SIGNED|UNABLE_TO|ERR_TLS|EPROTO/.test(code))
    } finally {
      route.running--
    }
  }

  /**
   * undici's request, ended by the signal at any point: before the request has its connection
   * (undici would go on waiting for the tunnel), it fails as a tunnel that did not open, naming
   * the step, and the tunnel is given up when no other request waits for it.
   */
  private request(route: ProxyRoute, req: OutgoingRequest, target: URL): Promise<Dispatcher.ResponseData> {
    let started = false
    const sent = request(target, {
      method: req.method as 'GET',
      headers: req.headers as Record<string, string> | string[] | undefined,
      body: req.body,
      signal: req.signal,
      dispatcher: route.agent.compose(noticingStart(() => (started = true))),
    })
    const {signal} = req
    if (!signal) return sent
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (started) return reject(signal.reason)
        // A tunnelled request waits for its tunnel; a plain http one, sent to the proxy itself, for a connection to it.
        const tunnelled = target.protocol === 'https:' || route.tunnelsAll
        const step = tunnelled ? (this.tunnels.stepOf(route.shown, tunnelTarget(target)) ?? 'connect') : 'proxy'
        const stalled = stalledTunnelError(route.shown, tunnelTarget(target), step)
        reject(new OutgoingError(Object.assign(stalled, {cause: signal.reason}), false, stalled.proxyFailure))
        if (route.running <= 1) this.drop(route, stalled)
      }
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, {once: true})
      sent.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
    })
  }

  /** Forgets a proxy's agent and closes everything it had open or was opening; the next request starts afresh. */
  private drop(route: ProxyRoute, error: Error): void {
    for (const [href, kept] of this.routes) if (kept === route) this.routes.delete(href)
    this.tunnels.cancel(route.shown, error)
    void route.agent.destroy().catch(() => undefined)
  }

  destroy(): void {
    for (const route of this.routes.values()) void route.agent.destroy().catch(() => undefined)
    this.routes.clear()
    this.tunnels.cancelAll()
  }

  close(): void {
    for (const route of this.routes.values()) void route.agent.close().catch(() => undefined)
    this.routes.clear()
  }
}
