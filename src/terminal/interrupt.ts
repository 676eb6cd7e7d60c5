/**
 * How every long-running command hears that it should stop: Ctrl-C (SIGINT) and SIGTERM (what CI
 * runners, `timeout` and process managers send) alike. The first one aborts a signal, so the
 * command stops what it waits for, cleans up and exits 130 (EXIT.interrupted); a second one
 * exits at once.
 */
import {EXIT, InterruptedError} from '../errors.js'

export type StopSignal = 'SIGHUP' | 'SIGINT' | 'SIGTERM'

export const INTERRUPT_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM']

export interface Interruption {
  /** Aborted (with an InterruptedError) when the first stop signal arrives. */
  readonly signal: AbortSignal
  /** The stop signal that arrived first, once one has. */
  readonly received: StopSignal | undefined
  /** Stops listening; the process's default handling of the signals comes back. */
  dispose(): void
}

/** The part of `process` this needs, so that tests can pass their own. */
export interface SignalSource {
  on(event: StopSignal, listener: () => void): unknown
  off(event: StopSignal, listener: () => void): unknown
  exit(code: number): never
}

export function listenForInterrupt(signals: readonly StopSignal[] = INTERRUPT_SIGNALS, source: SignalSource = process): Interruption {
  const controller = new AbortController()
  let received: StopSignal | undefined
  const handlers = signals.map((name) => {
    const handler = () => {
      if (controller.signal.aborted) source.exit(EXIT.interrupted)
      received = name
      controller.abort(new InterruptedError())
    }
    source.on(name, handler)
    return {name, handler}
  })
  return {
    signal: controller.signal,
    get received() {
      return received
    },
    dispose() {
      for (const {name, handler} of handlers) source.off(name, handler)
    },
  }
}
