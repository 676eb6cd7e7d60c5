/**
 * The one object a flow's steps share: the service, the profile and options, the listener that
 * takes the redirect and the webhooks, the timer, and what the flow has found out so far. Every
 * step reports through `emit` and is timed through `runStep`.
 */
import {isFinalStatus} from '../api/contract.js'
import type {CheckoutSuccess} from '../api/schemas.js'
import type {PaymentService} from '../api/service.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import type {BrowserOpenResult} from '../terminal/browser.js'
import type {FlowEvent, FlowEventBody, FlowEventSink, FlowStepName} from './events.js'
import type {FlowOptions} from './flow-options.js'
import type {RedirectListener} from './redirect-listener.js'
import {type Timer, systemTimer} from './timer.js'
import {type RunningTunnel, startTunnel, tunnelLostError} from '../tunnel/run-tunnel.js'
import type {TunnelRequest} from '../tunnel/tunnel-program.js'
import {redactUrl} from '../secrets/redact-url.js'

export interface FlowDeps {
  /** Receives every event as it happens (a renderer); the result's `timeline` holds them all too. */
  onEvent?: FlowEventSink
  /** Opens the approval page; default: the person's browser (BROWSER honoured). */
  openUrl?: (url: string) => Promise<BrowserOpenResult>
  timer?: Timer
  /** How long to wait for the browser's redirect once the status is conclusive without it. */
  redirectGraceMs?: number
  /** How long to wait for the webhook of the final status after reading it. */
  webhookGraceMs?: number
  pollInitialDelayMs?: number
  pollMaxDelayMs?: number
  /** First pause between status reads while waiting for the redirect. */
  redirectWatchDelayMs?: number
}

export interface FlowTuning {
  redirectGraceMs: number
  webhookGraceMs: number
  pollInitialDelayMs?: number
  pollMaxDelayMs?: number
  redirectWatchDelayMs: number
}

export interface FlowStepTiming {
  name: FlowStepName
  durationMs: number
}

export interface FlowContext {
  readonly service: PaymentService
  readonly profile: ResolvedProfile
  readonly options: FlowOptions
  readonly tuning: FlowTuning
  readonly timer: Timer
  readonly signal?: AbortSignal
  readonly openUrl: (url: string) => Promise<BrowserOpenResult>
  readonly listener: RedirectListener
  /** With `webhook.mode` tunnel: the tunnel and the public address of the listener's webhook path. */
  readonly tunnel?: {running: RunningTunnel; webhookUrl: string}
  readonly startedAt: number
  readonly timeline: FlowEvent[]
  readonly steps: FlowStepTiming[]
  /** Dispatches `wake` on each webhook: the status poll then reads at once. */
  readonly statusWake: EventTarget
  /** Called on each webhook by whoever waits for a particular one. */
  readonly webhookWaiters: Set<() => void>
  /** Set once the service started the transaction, so an interruption can name it. */
  transactionId?: string
  emit(event: FlowEventBody): void
  /** The first checkoutsuccess read after the redirect, shared by the landing page and the status step. */
  readAfterRedirect(): Promise<CheckoutSuccess>
}

const DEFAULT_REDIRECT_GRACE_MS = 5_000
const DEFAULT_WEBHOOK_GRACE_MS = 2_000
const DEFAULT_REDIRECT_WATCH_DELAY_MS = 2_000

async function openInBrowser(url: string): Promise<BrowserOpenResult> {
  return (await import('../terminal/browser.js')).openInBrowser(url)
}

/** Starts the listener (it must exist before the transaction, whose redirect_url points at it). */
export async function openFlowContext(service: PaymentService, profile: ResolvedProfile, options: FlowOptions, deps: FlowDeps): Promise<FlowContext> {
  const timer = deps.timer ?? systemTimer
  const startedAt = timer.now()
  const timeline: FlowEvent[] = []
  const statusWake = new EventTarget()
  const webhookWaiters = new Set<() => void>()
  let firstReading: Promise<CheckoutSuccess> | undefined

  const emit = (body: FlowEventBody) => {
    const event: FlowEvent = {...body, elapsedMs: timer.now() - startedAt}
    timeline.push(event)
    deps.onEvent?.(event)
  }
  const readAfterRedirect = () => {
    firstReading ??= service.checkoutSuccess(context.transactionId!)
    return firstReading
  }
  const onWebhook = () => {
    for (const wake of webhookWaiters) wake()
    statusWake.dispatchEvent(new Event('wake'))
  }

  const listener = await startFlowListener(service, options, {emit, readAfterRedirect, onWebhook})
  const {tunnel, signal} = await startTunnelIfAsked(options, listener, emit)
  const context: FlowContext = {
    service,
    profile,
    options,
    tuning: flowTuning(deps),
    timer,
    signal,
    tunnel,
    openUrl: deps.openUrl ?? openInBrowser,
    listener,
    startedAt,
    timeline,
    steps: [],
    statusWake,
    webhookWaiters,
    emit,
    readAfterRedirect,
  }
  return context
}

interface ListenerHooks {
  emit: FlowContext['emit']
  readAfterRedirect: FlowContext['readAfterRedirect']
  /** Wakes whoever waits on a webhook, after the event is emitted. */
  onWebhook(): void
}

/** Starts the redirect listener: its landing page reads the outcome, refusals and webhooks become events. */
async function startFlowListener(service: PaymentService, options: FlowOptions, hooks: ListenerHooks): Promise<RedirectListener> {
  const {startRedirectListener} = await import('./redirect-listener.js')
  return startRedirectListener({
    port: options.listenerPort || undefined,
    async describeOutcome() {
      const reading = await hooks.readAfterRedirect()
      return {status: reading.status, success: reading.success === true, final: isFinalStatus(reading.status)}
    },
    async readStatus(transactionId) {
      const transaction = await service.getTransaction(transactionId)
      return {status: transaction.status, ...(typeof transaction.last_status_update === 'string' ? {updatedAt: transaction.last_status_update} : {})}
    },
    onRejected: (request) => hooks.emit({kind: 'request-refused', method: request.method, path: request.path, status: request.status, reason: request.reason}),
    onWebhook(webhook) {
      hooks.emit({
        kind: 'webhook-received',
        type: webhook.type,
        ...(webhook.status === undefined ? {} : {status: webhook.status}),
        ...(webhook.statusFrom === 'service' ? {statusFrom: 'service', movedOn: webhook.movedOn === true} : {}),
        duplicate: webhook.duplicate,
      })
      hooks.onWebhook()
    },
  })
}

/**
 * Starts the tunnel when webhooks come through one (closing the listener if it cannot start), and
 * returns the signal the flow runs under: a tunnel that dies ends the flow like Ctrl-C would, with
 * the tunnel's error as the reason.
 */
async function startTunnelIfAsked(
  options: FlowOptions,
  listener: RedirectListener,
  emit: FlowContext['emit'],
): Promise<{tunnel: FlowContext['tunnel']; signal: AbortSignal | undefined}> {
  let tunnel: FlowContext['tunnel']
  try {
    tunnel = options.webhook.mode === 'tunnel' ? await startFlowTunnel(options.webhook.tunnel, listener, options.signal) : undefined
  } catch (error) {
    await listener.close()
    throw error
  }
  if (!tunnel) return {tunnel, signal: options.signal}
  emit({kind: 'tunnel-started', program: tunnel.running.name, webhookUrl: redactUrl(tunnel.webhookUrl)})
  const lost = new AbortController()
  const running = tunnel.running
  void running.died.then((exit) => lost.abort(tunnelLostError(running.name, exit, 'the flow was running')))
  return {tunnel, signal: options.signal ? AbortSignal.any([options.signal, lost.signal]) : lost.signal}
}

/** The waits of a flow: the deps' overrides (tests use short ones) or the defaults. */
function flowTuning(deps: FlowDeps): FlowContext['tuning'] {
  return {
    redirectGraceMs: deps.redirectGraceMs ?? DEFAULT_REDIRECT_GRACE_MS,
    webhookGraceMs: deps.webhookGraceMs ?? DEFAULT_WEBHOOK_GRACE_MS,
    pollInitialDelayMs: deps.pollInitialDelayMs,
    pollMaxDelayMs: deps.pollMaxDelayMs,
    redirectWatchDelayMs: deps.redirectWatchDelayMs ?? DEFAULT_REDIRECT_WATCH_DELAY_MS,
  }
}

/** Starts the tunnel to the listener's port: the webhook address is the listener's path (with its token) on the public address. */
async function startFlowTunnel(request: TunnelRequest, listener: RedirectListener, signal: AbortSignal | undefined): Promise<FlowContext['tunnel']> {
  const {tunnelProgram} = await import('../tunnel/tunnel-program.js')
  const running = await startTunnel(tunnelProgram(request.choice, listener.port), {timeoutMs: request.timeoutMs, signal, announce: request.announce})
  return {running, webhookUrl: `${running.publicUrl}${new URL(listener.webhookUrl).pathname}`}
}

/** Records how long a step took, from `since` to now. */
export function recordStep(context: FlowContext, name: FlowStepName, since: number): void {
  context.steps.push({name, durationMs: context.timer.now() - since})
}

/**
 * Runs one request of a step: announced, timed, abortable, and reported as failed (unless the
 * flow was interrupted) before its error ends the flow.
 */
export async function runStep<T>(context: FlowContext, step: FlowStepName, run: () => Promise<T>, announce: {outcome?: string} = {}): Promise<T> {
  const began = context.timer.now()
  context.emit({kind: 'step-started', step, ...announce})
  try {
    const value = await abortable(run(), context.signal)
    recordStep(context, step, began)
    return value
  } catch (error) {
    recordStep(context, step, began)
    if (!context.signal?.aborted) context.emit({kind: 'step-failed', step, message: (error as Error).message})
    throw error
  }
}

/** Races a promise against the signal, so Ctrl-C never waits for a slow answer. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, {once: true})
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
