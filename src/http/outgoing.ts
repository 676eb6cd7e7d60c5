/**
 * paytx's outgoing requests, on Node's own `node:http` and `node:https`: nothing to load at
 * start-up and a native parser (undici, the alternative, costs a package load and the compilation
 * of its WebAssembly parser on every command). One request at a time is `send()`; a
 * `Connections` pool keeps connections alive between the requests of one command, bounds the
 * time to connect, tells whether a failed request had left the machine, and stops everything at
 * once on Ctrl-C. Redirects are never followed. A request that the proxy variables send to a
 * proxy (src/http/proxy.ts) goes over undici's ProxyAgent instead, loaded only then.
 */
import {Agent as HttpAgent, type ClientRequest, type IncomingMessage, request as httpRequest} from 'node:http'
import type * as Https from 'node:https'
import {createRequire} from 'node:module'
import type {Socket} from 'node:net'
import type {TLSSocket} from 'node:tls'

import {OUTGOING_ERROR, OutgoingError, type OutgoingAnswer, type OutgoingRequest} from './outgoing-shapes.js'
import type {ProxiedConnections} from './proxied-request.js'
import {type ProxySettings, proxyFor, proxySettingsFromEnv} from './proxy.js'

export {OUTGOING_ERROR, OutgoingError, type OutgoingAnswer, type OutgoingRequest, type ProxyFailure} from './outgoing-shapes.js'

/**
 * node:https, loaded on the first https request: TLS and its crypto cost about 12 ms of start-up
 * on Node 24, and a command against a plain-http address (the emulator) never needs them.
 */
let https: typeof Https | undefined
function loadHttps(): typeof Https {
  https ??= createRequire(import.meta.url)('node:https') as typeof Https
  return https
}

function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), {code})
}

/** The headers of a pass-through request: the list as given, plus what the new connection needs. */
function listedHeaders(list: readonly string[], target: URL, body: string | Buffer | undefined): string[] {
  const out = [...list]
  const has = (name: string) => out.some((value, index) => index % 2 === 0 && value.toLowerCase() === name)
  if (!has('host')) out.push('Host', target.host)
  if (body !== undefined && !has('content-length')) out.push('Content-Length', String(Buffer.byteLength(body)))
  return out
}

export interface ConnectionsOptions {
  /** Time allowed to open the TCP (and TLS) connection. */
  connectTimeoutMs: number
  /** How long an idle connection is kept for the next request (the server's Keep-Alive hint may shorten it). */
  keepAliveMs?: number
  /** The proxy variables; the process's environment when not given. */
  proxies?: ProxySettings
}

/** How far one direct request has got: whether its connection is open, and the timer bounding the wait for it. */
interface ConnectAttempt {
  connected: boolean
  connectTimer?: NodeJS.Timeout
}

/** A pool of kept-alive connections, to any number of hosts, over HTTP and HTTPS. */
export class Connections {
  /** A kept-alive agent per protocol (http:, https:), made on its first request. */
  private readonly agents = new Map<string, HttpAgent>()
  private readonly running = new Set<ClientRequest>()
  private destroyed = false
  private readonly proxies: ProxySettings
  /** undici's ProxyAgents, loaded on the first request that goes through a proxy. */
  private proxied?: Promise<ProxiedConnections>

  constructor(private readonly options: ConnectionsOptions) {
    this.proxies = options.proxies ?? proxySettingsFromEnv(process.env)
  }

  /** The proxy a request to `target` goes through, if any (never for loopback). */
  proxyFor(target: URL): string | undefined {
    return proxyFor(target, this.proxies)
  }

  private async sendThroughProxy(proxy: string, req: OutgoingRequest, target: URL): Promise<OutgoingAnswer> {
    this.proxied ??= import('./proxied-request.js').then(({ProxiedConnections}) => new ProxiedConnections(this.options.connectTimeoutMs))
    const proxied = await this.proxied
    try {
      return await proxied.send(proxy, req, target)
    } catch (error) {
      if (this.destroyed && !req.signal?.aborted) throw new OutgoingError(codedError('The request was stopped', OUTGOING_ERROR.destroyed), false)
      throw error
    }
  }

  private agentFor(protocol: string): HttpAgent {
    // Idle connections do not keep paytx running (Node unrefs them), so a command ends as soon as its work is done.
    let agent = this.agents.get(protocol)
    if (!agent) {
      const settings = {keepAlive: true, timeout: this.options.keepAliveMs ?? 4000}
      agent = protocol === 'https:' ? new (loadHttps().Agent)(settings) : new HttpAgent(settings)
      this.agents.set(protocol, agent)
    }
    return agent
  }

  /** Sends one request; resolves when the status line and headers have arrived. */
  send(req: OutgoingRequest): Promise<OutgoingAnswer> {
    const target = typeof req.url === 'string' ? new URL(req.url) : req.url
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return Promise.reject(new OutgoingError(codedError(`Unsupported protocol ${target.protocol}`, 'ERR_INVALID_PROTOCOL'), false))
    }
    if (this.destroyed) return Promise.reject(new OutgoingError(codedError('The request was stopped', OUTGOING_ERROR.destroyed), false))
    if (req.signal?.aborted) return Promise.reject(req.signal.reason)
    const proxy = this.proxyFor(target)
    if (proxy !== undefined) return this.sendThroughProxy(proxy, req, target)

    return this.sendDirect(req, target)
  }

  /** Sends straight to the target (no proxy); a failure says whether the connection had been made. */
  private sendDirect(req: OutgoingRequest, target: URL): Promise<OutgoingAnswer> {
    return new Promise<OutgoingAnswer>((resolve, reject) => {
      const attempt: ConnectAttempt = {connected: false}
      let settled = false
      let client: ClientRequest
      const fail = (error: unknown) => {
        clearTimeout(attempt.connectTimer)
        if (settled) return
        settled = true
        this.running.delete(client)
        req.signal?.removeEventListener('abort', onAbort)
        if (req.signal?.aborted) reject(req.signal.reason)
        else reject(error instanceof OutgoingError ? error : new OutgoingError(error, attempt.connected))
      }
      const onAbort = () => client.destroy(codedError('The request was aborted', 'ABORT_ERR'))

      try {
        client = this.openClient(req, target)
      } catch (error) {
        // A header Node refuses (a control character in a value): nothing was sent.
        reject(new OutgoingError(error, false))
        return
      }
      this.running.add(client)
      req.signal?.addEventListener('abort', onAbort, {once: true})
      client.on('socket', (socket: Socket) => this.timeConnection(client, socket, target, attempt))
      client.on('error', fail)
      client.on('response', (response) => {
        clearTimeout(attempt.connectTimer)
        settled = true
        req.signal?.removeEventListener('abort', onAbort)
        resolve(this.answerOf(client, response, req.signal))
      })
      client.end(req.body)
    })
  }

  /** Builds the request with its headers (a content-length added for a body); throws on a header Node refuses. */
  private openClient(req: OutgoingRequest, target: URL): ClientRequest {
    const headers = Array.isArray(req.headers) ? listedHeaders(req.headers, target, req.body) : {...(req.headers as Record<string, string> | undefined)}
    if (!Array.isArray(headers) && req.body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-length')) {
      headers['content-length'] = String(Buffer.byteLength(req.body))
    }
    const send = target.protocol === 'https:' ? loadHttps().request : httpRequest
    return send(target, {method: req.method, headers: headers as Record<string, string>, agent: this.agentFor(target.protocol)})
  }

  /** Marks the attempt connected once its socket is open; a new connection has `connectTimeoutMs` to open. */
  private timeConnection(client: ClientRequest, socket: Socket, target: URL, attempt: ConnectAttempt): void {
    const secure = target.protocol === 'https:'
    // A kept-alive connection is open already (and a TLS one has finished its handshake).
    const open = !socket.connecting && (!secure || !['unknown', null].includes((socket as TLSSocket).getProtocol()))
    if (client.reusedSocket || open) {
      attempt.connected = true
      return
    }
    attempt.connectTimer = setTimeout(
      () => client.destroy(codedError(`No connection within ${this.options.connectTimeoutMs} ms`, OUTGOING_ERROR.connectTimeout)),
      this.options.connectTimeoutMs,
    )
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(attempt.connectTimer)
      attempt.connected = true
    })
  }

  /** The answer, whose body is the caller's to read; a later abort still ends it (signal → destroy). */
  private answerOf(client: ClientRequest, response: IncomingMessage, signal: AbortSignal | undefined): OutgoingAnswer {
    if (signal) {
      const endBody = () => response.destroy(signal.reason as Error)
      signal.addEventListener('abort', endBody, {once: true})
      response.once('close', () => signal.removeEventListener('abort', endBody))
    }
    response.once('close', () => this.running.delete(client))
    return {status: response.statusCode ?? 0, headers: response.headers, body: response}
  }

  /** Stops at once: requests still running fail with `OUTGOING_ERROR.destroyed`, kept connections close. */
  destroy(): void {
    this.destroyed = true
    for (const client of this.running) client.destroy(codedError('The request was stopped', OUTGOING_ERROR.destroyed))
    this.running.clear()
    for (const agent of this.agents.values()) agent.destroy()
    this.agents.clear()
    void this.proxied?.then((proxied) => proxied.destroy())
  }

  /** Closes the idle kept connections; requests still running finish. */
  close(): void {
    for (const agent of this.agents.values()) {
      for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy()
    }
    void this.proxied?.then((proxied) => proxied.close())
  }
}
