/**
 * Time as the emulator sees it: the current instant and one-shot timers. Injected so that tests
 * can drive settlement, pending and abandonment without waiting.
 */
export type TimerHandle = unknown

export interface Clock {
  now(): number
  setTimeout(callback: () => void, ms: number): TimerHandle
  clearTimeout(handle: TimerHandle): void
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => {
    const timer = setTimeout(callback, ms)
    // A pending settlement or retry must not keep a closing process alive.
    timer.unref()
    return timer
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
}
