/**
 * What the flow needs of time: the current moment and a pause that an abort cuts short. Injected
 * so tests can pass time instantly. (Not the emulator's clock, which also schedules work.)
 */
export interface Timer {
  now(): number
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>
}

export const systemTimer: Timer = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason)
        return
      }
      const onAbort = () => {
        clearTimeout(timeout)
        reject(signal!.reason)
      }
      const timeout = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort)
        resolve()
      }, ms)
      signal?.addEventListener('abort', onAbort, {once: true})
    }),
}
