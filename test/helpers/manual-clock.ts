/**
 * A clock that only moves when the test says so: timers fire in time order as `advance` passes
 * their due time, each seeing `now()` at its own due time.
 */
import type {Clock, TimerHandle} from '../../src/emulator/time/index.js'

interface PendingTimer {
  id: number
  at: number
  callback: () => void
}

export class ManualClock implements Clock {
  private current: number
  private nextId = 1
  private timers: PendingTimer[] = []

  constructor(start = Date.parse('2026-03-02T10:00:00.000Z')) {
    this.current = start
  }

  now(): number {
    return this.current
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const timer = {id: this.nextId++, at: this.current + Math.max(0, ms), callback}
    this.timers.push(timer)
    return timer.id
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle)
  }

  /** Timers not yet fired. */
  get pending(): number {
    return this.timers.length
  }

  advance(ms: number): void {
    const until = this.current + ms
    for (;;) {
      const due = this.timers.filter((timer) => timer.at <= until).sort((a, b) => a.at - b.at || a.id - b.id)[0]
      if (!due) break
      this.timers = this.timers.filter((timer) => timer !== due)
      this.current = due.at
      due.callback()
    }
    this.current = until
  }
}
