/**
 * Polling a transaction until its status is conclusive, with back-off and a deadline. The one
 * loop behind `paytx flow` (after the redirect) and `paytx transaction status --wait`.
 *
 * UNKNOWN is not final (api-notes): it is reported through `onStatus` like any change and waited
 * through until the deadline. Network failures and 5xx answers while polling are reported
 * through `onReadError` and polling goes on; any other error (404, 401, bad input) ends the wait.
 */
import {isConclusiveStatus, isFinalStatus, isSuccessStatus} from '../api/contract.js'
import {InterruptedError, NetworkError, ServiceError} from '../errors.js'
import {type Timer, systemTimer} from './timer.js'

/** How far a wait goes, in the words of the `--until` flag. */
export type WaitUntil = 'final' | 'settled'

/** Conclusive for a wait `until` final or settled: SETTLEMENT_REQUESTED ends only the first. */
export function isConclusiveFor(status: string, until: WaitUntil): boolean {
  return isConclusiveStatus(status, until)
}

export interface StatusReading {
  status: string
  status_reason?: unknown
}

export interface WaitOptions<T extends StatusReading> {
  /** How long to keep polling, from the first read. */
  timeoutMs: number
  /** final: stop at a conclusive status (SETTLEMENT_REQUESTED counts); settled: wait through it. */
  until: WaitUntil
  signal?: AbortSignal
  timer?: Timer
  /** A reading already in hand (e.g. from checkoutsuccess): no first read is made when given. */
  initial?: T
  /** First pause between reads; each later pause is 1.5 times longer, up to `maxDelayMs`. */
  initialDelayMs?: number
  maxDelayMs?: number
  /** Called with the first reading and then on every change of status. */
  onStatus?: (reading: T, previous: T | undefined, elapsedMs: number) => void
  /** Called when a read failed in a way worth retrying; polling continues. */
  onReadError?: (error: Error) => void
  /**
   * A `wake` event dispatched here ends the current pause and reads at once: a webhook says the
   * transaction changed, and clients re-read it from the service rather than trust the body.
   */
  wake?: EventTarget
}

export interface WaitResult<T extends StatusReading> {
  reading: T
  status: string
  conclusive: boolean
  final: boolean
  success: boolean
  timedOut: boolean
  reads: number
  elapsedMs: number
}

const DEFAULT_INITIAL_DELAY_MS = 500
const DEFAULT_MAX_DELAY_MS = 5_000

/** A failed read worth repeating: the network, a 5xx or a 429 (a 404 or 401 will not heal). */
export function isRetriableReadError(error: unknown): boolean {
  if (error instanceof NetworkError) return true
  return error instanceof ServiceError && (error.status >= 500 || error.status === 429)
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new InterruptedError()
}

const WOKEN = Symbol('woken')

/** Sleeps like `timer.sleep`, but returns early when `wake` fires; an abort still rejects. */
async function pause(timer: Timer, ms: number, signal: AbortSignal | undefined, wake: EventTarget | undefined): Promise<void> {
  if (!wake) return timer.sleep(ms, signal)
  const controller = new AbortController()
  const onWake = () => controller.abort(WOKEN)
  const onAbort = () => controller.abort(signal!.reason)
  wake.addEventListener('wake', onWake, {once: true})
  signal?.addEventListener('abort', onAbort, {once: true})
  if (signal?.aborted) onAbort()
  try {
    await timer.sleep(ms, controller.signal)
  } catch (error) {
    if (error !== WOKEN) throw error
  } finally {
    wake.removeEventListener('wake', onWake)
    signal?.removeEventListener('abort', onAbort)
  }
}

export async function waitForFinalStatus<T extends StatusReading>(read: () => Promise<T>, options: WaitOptions<T>): Promise<WaitResult<T>> {
  const timer = options.timer ?? systemTimer
  const started = timer.now()
  const deadline = started + options.timeoutMs
  const maxDelay = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS
  let delay = options.initialDelayMs ?? DEFAULT_INITIAL_DELAY_MS
  let reads = 0
  let current: T | undefined = options.initial
  let lastError: Error | undefined
  let readNow = current === undefined

  if (current) options.onStatus?.(current, undefined, 0)

  for (;;) {
    throwIfAborted(options.signal)
    if (current && isConclusiveFor(current.status, options.until)) break
    if (!readNow) {
      const remaining = deadline - timer.now()
      if (remaining <= 0) break
      await pause(timer, Math.min(delay, remaining), options.signal, options.wake)
      delay = Math.min(maxDelay, Math.round(delay * 1.5))
    }
    readNow = false
    try {
      const next = await read()
      lastError = undefined
      if (!current || next.status !== current.status) options.onStatus?.(next, current, timer.now() - started)
      current = next
    } catch (error) {
      throwIfAborted(options.signal)
      if (!isRetriableReadError(error)) throw error
      lastError = error as Error
      options.onReadError?.(lastError)
    } finally {
      reads++
    }
  }

  if (!current) throw lastError ?? new Error('No status was read.')
  const reading = current!
  return {
    reading,
    status: reading.status,
    conclusive: isConclusiveFor(reading.status, options.until),
    final: isFinalStatus(reading.status),
    success: isSuccessStatus(reading.status),
    timedOut: !isConclusiveFor(reading.status, options.until),
    reads,
    elapsedMs: timer.now() - started,
  }
}
