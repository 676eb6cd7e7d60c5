/**
 * Opening CONNECT tunnels through a proxy within a time limit. undici's ProxyAgent asks the
 * proxy for a tunnel with no limit of its own (a proxy that never answers CONNECT held a request
 * for minutes), and a request waiting for a connection ignores its abort signal until it has one.
 * So every tunnel is opened under a timer, and its progress (CONNECT asked, or answered and the
 * TLS handshake inside under way) is known, for a message that says which step stalled. Loaded
 * with proxied-request.ts only.
 */
import {subscribe, unsubscribe} from 'node:diagnostics_channel'
import type {Socket} from 'node:net'

import type {buildConnector} from 'undici'

import {OUTGOING_ERROR, type ProxyFailure} from './outgoing-shapes.js'

type Connector = buildConnector.connector
type ConnectorOptions = buildConnector.Options

/** Where a request stalled: `proxy` before a connection to it, `connect` until it answers CONNECT, `tls` until the handshake inside is done. */
export type TunnelStep = NonNullable<ProxyFailure['stalled']>['step']

interface TunnelAttempt {
  /** The proxy's address (its password redacted) and the target's `host:port`. */
  proxy: string
  target: string
  step: TunnelStep
  /** The tunnel's socket once the proxy has answered CONNECT. */
  socket?: Socket
  /** Gives up on the tunnel: the waiting connection fails with `error`, and nothing of it is left open. */
  cancel(error: Error): void
}

/** undici's report that a proxy answered CONNECT 200 (its documented diagnostics channel). */
const PROXY_CONNECTED = 'undici:proxy:connected'

/** The error of a tunnel that was not open in time, saying which step stalled. */
export function stalledTunnelError(proxy: string, target: string, step: TunnelStep, ms?: number): Error & {code: string; proxyFailure: ProxyFailure} {
  const within = ms === undefined ? '' : ` within ${ms} ms`
  const what = {
    proxy: `The proxy ${proxy} took no connection for ${target}${within}`,
    connect: `The proxy ${proxy} did not open a tunnel to ${target}${within} (no answer to CONNECT)`,
    tls: `The proxy ${proxy} opened a tunnel to ${target}, but the TLS handshake through it did not complete${within}`,
  }[step]
  return Object.assign(new Error(what), {code: OUTGOING_ERROR.proxyStalled, proxyFailure: {proxy, stalled: {step, ms}}})
}

/** `host:port` of a tunnel's far end, the default port written out, as CONNECT asks for it. */
export function tunnelTarget(url: {hostname: string; port: string; protocol: string}): string {
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`
}

/** The tunnels being opened by one set of ProxyAgents, each bounded by `timeoutMs`. */
export class TunnelAttempts {
  /** By the abort signal each attempt hands to undici's CONNECT, which comes back in the channel's message. */
  private readonly attempts = new Map<AbortSignal, TunnelAttempt>()
  private readonly onProxyConnected = (message: unknown) => {
    const {socket, connectParams} = message as {socket: Socket; connectParams: {signal?: AbortSignal}}
    const attempt = connectParams.signal && this.attempts.get(connectParams.signal)
    if (!attempt) return
    attempt.step = 'tls'
    attempt.socket = socket
  }

  constructor(private readonly timeoutMs: number) {}

  /** ProxyAgent's tunnel connector (the `connect` its factory is given), bounded in time and watched. */
  bounded(proxy: string, open: Connector): Connector {
    return (options: ConnectorOptions, callback: buildConnector.Callback) => {
      const controller = new AbortController()
      const attempt: TunnelAttempt = {proxy, target: tunnelTarget(options), step: 'connect', cancel: () => undefined}
      let settled = false
      const finish = (...args: Parameters<buildConnector.Callback>) => {
        if (settled) {
          args[1]?.destroy()
          return
        }
        settled = true
        clearTimeout(timer)
        this.attempts.delete(controller.signal)
        // Listening to the channel only while a tunnel is being opened: nothing is left behind.
        if (this.attempts.size === 0) unsubscribe(PROXY_CONNECTED, this.onProxyConnected)
        callback(...args)
      }
      attempt.cancel = (error) => {
        attempt.socket?.destroy()
        controller.abort(error)
        finish(error, null)
      }
      const timer = setTimeout(() => attempt.cancel(stalledTunnelError(proxy, attempt.target, attempt.step, this.timeoutMs)), this.timeoutMs)
      if (this.attempts.size === 0) subscribe(PROXY_CONNECTED, this.onProxyConnected)
      this.attempts.set(controller.signal, attempt)
      // undici passes this signal on to its CONNECT request: aborting it ends a CONNECT that has no answer.
      open({...options, signal: controller.signal} as ConnectorOptions, finish)
    }
  }

  /** How far the tunnel to `target` (`host:port`) through `proxy` has got, if one is being opened. */
  stepOf(proxy: string, target: string): TunnelStep | undefined {
    let step: TunnelStep | undefined
    for (const attempt of this.attempts.values()) if (attempt.proxy === proxy && attempt.target === target && step !== 'tls') step = attempt.step
    return step
  }

  /** Gives up on every tunnel through `proxy` still being opened (its requests were all abandoned). */
  cancel(proxy: string, error: Error): void {
    for (const attempt of [...this.attempts.values()]) if (attempt.proxy === proxy) attempt.cancel(error)
  }

  /** Gives up on every tunnel being opened (paytx is stopping). */
  cancelAll(): void {
    for (const attempt of [...this.attempts.values()]) attempt.cancel(Object.assign(new Error('The request was stopped'), {code: OUTGOING_ERROR.destroyed}))
  }
}
