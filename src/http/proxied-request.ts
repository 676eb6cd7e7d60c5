/**
 * Requests through an HTTP proxy, on undici's ProxyAgent: https targets through a CONNECT tunnel,
 * http targets as absolute-form requests to the proxy (as curl sends them, so a proxy that only
 * allows CONNECT to 443 still carries them). Loaded by `Connections` only for a request that
 * `proxyFor` sends to a proxy, so undici never costs the normal path anything.
 */
import type {IncomingMessage} from 'node:http'

import {ProxyAgent, request} from 'undici'

import {OUTGOING_ERROR, OutgoingError, type OutgoingAnswer, type OutgoingRequest, type ProxyFailure} from './outgoing.js'
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

/** ProxyAgents by proxy address, kept for the command's life so that connections are reused. */
export class ProxiedConnections {
  private readonly agents = new Map<string, ProxyAgent>()

  constructor(private readonly connectTimeoutMs: number) {}

  private agentFor(proxy: URL): ProxyAgent {
    let agent = this.agents.get(proxy.href)
    if (!agent) {
      const connect = {timeout: this.connectTimeoutMs}
      // proxyTunnel false: plain http goes as absolute-form requests; https always tunnels.
      agent = new ProxyAgent({uri: proxy.href, proxyTunnel: false, connect, proxyTls: connect, requestTls: connect})
      this.agents.set(proxy.href, agent)
    }
    return agent
  }

  async send(written: string, req: OutgoingRequest, target: URL): Promise<OutgoingAnswer> {
    const proxy = proxyUrl(written)
    if (!proxy) {
      const cause = Object.assign(new Error(`The proxy address ${redactUrl(written)} is not an http:// or https:// URL`), {code: OUTGOING_ERROR.proxyInvalid})
      throw new OutgoingError(cause, false, {proxy: redactUrl(written), invalid: true})
    }
    const shown = redactUrl(proxy)
    try {
      const answer = await request(target, {
        method: req.method as 'GET',
        headers: req.headers as Record<string, string> | string[] | undefined,
        body: req.body,
        signal: req.signal,
        dispatcher: this.agentFor(proxy),
      })
      return {status: answer.statusCode, headers: answer.headers, body: answer.body as unknown as IncomingMessage}
    } catch (error) {
      if (req.signal?.aborted) throw req.signal.reason
      if (error instanceof OutgoingError) throw error
      const status = refusedStatus(error)
      if (status !== undefined) throw proxyError(error, {proxy: shown, status})
      const code = codeOf(error) ?? ''
      // paytx connects to the proxy only: a failure to connect is the proxy's (the target's is a 502 to CONNECT).
      if (CONNECT_CODES.has(code)) throw proxyError(error, {proxy: shown, unreachable: true, reason: code === 'UND_ERR_CONNECT_TIMEOUT' ? 'no answer' : code})
      throw new OutgoingError(error, !/CERT|SELF_SIGNED|UNABLE_TO|ERR_TLS|EPROTO/.test(code))
    }
  }

  destroy(): void {
    for (const agent of this.agents.values()) void agent.destroy().catch(() => undefined)
    this.agents.clear()
  }

  close(): void {
    for (const agent of this.agents.values()) void agent.close().catch(() => undefined)
    this.agents.clear()
  }
}
