/**
 * `webhook listen` without the CLI: listens with the options given, records, re-fetches and
 * forwards each webhook, and reports what happens as typed events (listen-events.ts) until it is
 * told to stop. Renderers in src/output/ draw the events for people and for --json.
 */
import {InputError} from '../errors.js'
import {redactUrl} from '../secrets/redact-url.js'
import type {PaymentService} from '../api/service.js'
import type {ListenEvent, StopReason} from './listen-events.js'
import type {WebhookForwarder} from './forwarder.js'
import {MIN_TOKEN_LENGTH, WEBHOOK_PATH, type WebhookCounts, type WebhookListener, isLoopbackHost, startWebhookListener} from './listener.js'
import type {WebhookRecorder} from './recorder.js'
import type {TunnelRequest} from '../tunnel/tunnel-program.js'
import {type RunningTunnel, startTunnel, tunnelLostError} from '../tunnel/run-tunnel.js'

export interface WebhookListenOptions {
  host: string
  port: number
  /** The secret the URL must carry; undefined with --no-token. */
  token: string | undefined
  maxBodyBytes: number
  forwardUrl: URL | undefined
  save: string | undefined
  fetch: boolean
  /** A tunnel to start to the listener's port, its public address printed; stopped when listening ends. */
  tunnel?: TunnelRequest
}

export interface WebhookListenDeps {
  /** --fetch: the service each webhook's transaction is read from, and its profile's name. */
  fetching?: {service: PaymentService; profile: string}
  /** Bounds each forward. */
  requestTimeoutMs: number
  onEvent: (event: ListenEvent) => void
  /** Resolves when listening should end, and why. */
  stopped: () => Promise<StopReason>
  /** Ctrl-C: stops a tunnel that is still starting. */
  signal?: AbortSignal
}

/** How long running re-fetches and forwards may finish after Ctrl-C. */
const STOP_GRACE_MS = 2000

/**
 * The --save file, opened for appending before anything listens. One that exists must be a
 * regular file (input-file.ts): appending to a FIFO or a device would block the listener, or
 * lose what it acknowledged.
 */
async function openRecorder(save: string | undefined) {
  if (save === undefined) return undefined
  const [{WebhookRecorder}, {checkInputPath}] = await Promise.all([import('./recorder.js'), import('../input/input-file.js')])
  try {
    try {
      checkInputPath(save, {fifo: false})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
    return new WebhookRecorder(save)
  } catch (error) {
    throw new InputError(`--save: cannot open ${save} for appending (${(error as Error).message}).`, {flag: '--save'})
  }
}

/** Listens until `deps.stopped` resolves; the counts of what came in, and why it ended. */
export async function listenForWebhooks(options: WebhookListenOptions, deps: WebhookListenDeps): Promise<{counts: WebhookCounts; reason: StopReason}> {
  const [recorder, {WebhookForwarder}] = await Promise.all([openRecorder(options.save), import('./forwarder.js')])
  const forwarder = options.forwardUrl ? new WebhookForwarder(options.forwardUrl.href, deps.requestTimeoutMs) : undefined
  const service = deps.fetching?.service
  const listener = await startListening(options, deps, {recorder, forwarder})
  await refuseForwardingToItself(options.forwardUrl, listener)
  const tunnel = await startTunnelIfAsked(options.tunnel, listener, deps.signal)
  announceReady(options, deps, listener, tunnel, forwarder?.shownUrl)

  const lost = tunnel ? tunnel.died.then((exit) => ({exit})) : new Promise<never>(() => undefined)
  const ended = await Promise.race([deps.stopped(), lost])
  const reason = typeof ended === 'object' ? 'signal' : ended
  const counts = await listener.close(reason === 'signal' && typeof ended !== 'object' ? STOP_GRACE_MS : 0)
  await Promise.allSettled([forwarder?.destroy(), service?.destroy(), tunnel?.stop()])
  // The tunnel went away: the public address no longer reaches this listener.
  if (typeof ended === 'object') throw tunnelLostError(tunnel!.name, ended.exit, `webhooks were awaited (${counts.received} received)`)
  deps.onEvent({kind: 'stopped', counts, reason, save: options.save})
  return {counts, reason}
}

/** Starts the listener, each webhook and refusal reported as an event; the recorder is closed if it cannot start. */
async function startListening(
  options: WebhookListenOptions,
  deps: WebhookListenDeps,
  {recorder, forwarder}: {recorder: WebhookRecorder | undefined; forwarder: WebhookForwarder | undefined},
): Promise<WebhookListener> {
  const service = deps.fetching?.service
  let toldStatusMissing = false
  return startWebhookListener({
    host: options.host,
    port: options.port,
    token: options.token,
    maxBodyBytes: options.maxBodyBytes,
    recorder,
    fetchTransaction: service ? (id) => service.getTransaction(id) : undefined,
    forward: forwarder ? (body, headers) => forwarder.forward(body, headers) : undefined,
    secretHeaderNames: service ? [service.target.profile.api_key_header] : [],
    onWebhook: (report) => {
      deps.onEvent({kind: 'webhook', report})
      if (report.kind === 'webhook' && report.event.status === undefined && !service && !toldStatusMissing) {
        toldStatusMissing = true
        deps.onEvent({kind: 'status-missing'})
      }
    },
    onRejected: (rejection) => deps.onEvent({kind: 'rejected', rejection}),
    onRecordFailure: (error, {status, diskFull}) => deps.onEvent({kind: 'record-failed', file: options.save!, message: error.message, status, diskFull}),
  }).catch((error: unknown) => {
    recorder?.close()
    throw error
  })
}

/** --forward-to this very listener would forward each webhook forever: closes it and says so. */
async function refuseForwardingToItself(forwardUrl: URL | undefined, listener: WebhookListener): Promise<void> {
  if (forwardUrl && isLoopbackHost(forwardUrl.hostname) && Number(forwardUrl.port || 80) === listener.port) {
    await listener.close(0)
    throw new InputError(`--forward-to ${redactUrl(forwardUrl)} points at this listener itself; each webhook would be forwarded forever.`, {flag: '--forward-to'})
  }
}

/** Starts the --tunnel to the listener's port, closing the listener if it cannot start. */
async function startTunnelIfAsked(request: TunnelRequest | undefined, listener: WebhookListener, signal: AbortSignal | undefined): Promise<RunningTunnel | undefined> {
  if (!request) return undefined
  const {tunnelProgram} = await import('../tunnel/tunnel-program.js')
  return startTunnel(tunnelProgram(request.choice, listener.port), {timeoutMs: request.timeoutMs, signal, announce: request.announce}).catch(async (error: unknown) => {
    await listener.close(0)
    throw error
  })
}

/** The warnings about how open the listener is, then where webhooks go (with the tunnel's public address). */
function announceReady(options: WebhookListenOptions, deps: WebhookListenDeps, listener: WebhookListener, tunnel: RunningTunnel | undefined, forwardTo: string | undefined): void {
  const tokenRequired = options.token !== undefined
  if (!isLoopbackHost(options.host)) deps.onEvent({kind: 'exposed', host: options.host, port: listener.port, tokenRequired})
  const {token} = options
  if (token === undefined) deps.onEvent({kind: 'tokenless', port: listener.port})
  else if (token.length < MIN_TOKEN_LENGTH) deps.onEvent({kind: 'weak-token', length: token.length, minimum: MIN_TOKEN_LENGTH})
  const listenerUrl = new URL(listener.url)
  deps.onEvent({
    kind: 'ready',
    url: listener.url,
    host: listener.host,
    port: listener.port,
    path: WEBHOOK_PATH,
    tokenRequired,
    save: options.save,
    fetchProfile: deps.fetching?.profile,
    forwardTo,
    ...(tunnel ? {publicUrl: `${tunnel.publicUrl}${listenerUrl.pathname}${listenerUrl.search}`, tunnel: tunnel.name} : {}),
  })
}
