/**
 * The scheduler of due work: wakes when the earliest stored move or webhook attempt is due (on
 * the injected clock), and also looks at the store every so often, since another emulator
 * sharing it may have queued work. Each wake applies the due moves, then starts due deliveries.
 */
import type {Clock, TimerHandle} from './clock.js'
import type {EmulatorStore} from '../store/index.js'

/** How often the store is looked at for work queued by another emulator. */
export const STORE_POLL_MS = 250

/** The work the scheduler applies: the lifecycle's due moves, then the outbox's due deliveries. */
export interface DueWork {
  lifecycle: {applyAllDue(): void}
  outbox: {sendDue(): void}
}

export class DueWorkScheduler {
  private timer?: {handle: TimerHandle; at: number}
  private poll?: NodeJS.Timeout
  private immediate = false
  private stopped = false

  constructor(
    private readonly store: EmulatorStore,
    private readonly clock: Clock,
    private readonly parts: DueWork,
    private readonly onError: (error: Error) => void,
  ) {}

  start(): void {
    this.poll = setInterval(() => this.wake(), STORE_POLL_MS)
    this.poll.unref()
    this.wake()
  }

  /** Something is due at `at`: wake then, unless a wake is already set for earlier. */
  due(at: number): void {
    if (this.stopped) return
    if (at <= this.clock.now()) {
      // Never synchronously: this is called from inside a commit.
      if (!this.immediate) {
        this.immediate = true
        setImmediate(() => {
          this.immediate = false
          this.wake()
        })
      }
      return
    }
    if (this.timer && this.timer.at <= at) return
    if (this.timer) this.clock.clearTimeout(this.timer.handle)
    this.timer = {handle: this.clock.setTimeout(() => this.onTimer(), at - this.clock.now()), at}
  }

  stop(): void {
    this.stopped = true
    if (this.timer) this.clock.clearTimeout(this.timer.handle)
    this.timer = undefined
    clearInterval(this.poll)
  }

  private onTimer(): void {
    this.timer = undefined
    this.wake()
  }

  private wake(): void {
    if (this.stopped) return
    try {
      this.parts.lifecycle.applyAllDue()
      this.parts.outbox.sendDue()
      const next = this.store.nextDueAt()
      if (next !== undefined && next > this.clock.now()) this.due(next)
    } catch (error) {
      this.onError(error as Error)
    }
  }
}
