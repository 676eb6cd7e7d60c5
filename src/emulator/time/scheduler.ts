/**
 * The scheduler of due work: wakes when the earliest stored move or webhook attempt is due (on
 * the injected clock), and also looks at the store every so often, since another emulator
 * sharing it may have queued work. Each wake applies one short batch of due moves; when more
 * are due it wakes again on the next turn of the event loop, so that requests are answered
 * between batches; once none is, it starts the due deliveries. A backlog (a restart over many
 * overdue transactions) goes to the catch-up thread when there is one, and the scheduler rests
 * until it is done.
 */
import type {Clock, TimerHandle} from './clock.js'
import type {EmulatorStore} from '../store/index.js'

/** How often the store is looked at for work queued by another emulator. */
export const STORE_POLL_MS = 250

/** Due moves from this many on go to the catch-up thread; fewer take a few short batches here. */
export const CATCH_UP_BACKLOG = 500

/** The work the scheduler applies: the lifecycle's due moves, then the outbox's due deliveries. */
export interface DueWork {
  lifecycle: {applyDueBatch(): {more: boolean}}
  outbox: {sendDue(): void}
  /** The catch-up thread (catch-up.ts), where one can run. */
  catchUp?: {readonly running: boolean; readonly usable: boolean; start(): void}
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
    // On the next turn: whoever started the emulator reports it listening before any catch-up.
    this.due(this.clock.now())
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
    // The catch-up thread wakes the scheduler when it is done.
    if (this.stopped || this.parts.catchUp?.running) return
    try {
      // Status moves first: while more are due (a restart over many overdue ones), deliveries
      // wait in the outbox, and follow their schedule once every move is made.
      if (this.handOverBacklog()) return
      if (this.parts.lifecycle.applyDueBatch().more) return this.due(this.clock.now())
      this.parts.outbox.sendDue()
      const next = this.store.nextDueAt()
      if (next !== undefined && next > this.clock.now()) this.due(next)
    } catch (error) {
      this.onError(error as Error)
    }
  }

  /** Starts the catch-up thread over a backlog of due moves, if there is both. */
  private handOverBacklog(): boolean {
    const {catchUp} = this.parts
    if (!catchUp?.usable || this.store.dueCount(this.clock.now(), CATCH_UP_BACKLOG) < CATCH_UP_BACKLOG) return false
    catchUp.start()
    return true
  }
}
