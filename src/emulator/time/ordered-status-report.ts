/**
 * Status events reported in the order their commits were made, a slice per turn of the event
 * loop: the catch-up thread commits hundreds of moves at once, and reporting them in one go (a
 * line of output each) would hold up the requests waiting meanwhile. An event of this thread's own
 * waits behind the ones still to report, so that no transaction's moves are told out of order.
 */
import type {StatusEvent} from '../events.js'

/** Events reported per turn of the event loop: well under a millisecond of output. */
const SLICE = 64

export class OrderedStatusReport {
  private waiting: StatusEvent[] = []
  private next = 0
  private scheduled = false

  constructor(private readonly report: (event: StatusEvent) => void) {}

  /** An event of this thread's: reported now, unless earlier ones still wait. */
  now(event: StatusEvent): void {
    if (this.next < this.waiting.length) this.waiting.push(event)
    else this.report(event)
  }

  /** Events committed elsewhere (the catch-up thread): reported a slice per turn. */
  later(events: readonly StatusEvent[]): void {
    this.waiting.push(...events)
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => this.reportSlice())
  }

  /** Reports every event still waiting, at once (the emulator stops). */
  flush(): void {
    while (this.next < this.waiting.length) this.report(this.waiting[this.next++])
    this.waiting = []
    this.next = 0
  }

  private reportSlice(): void {
    this.scheduled = false
    const end = Math.min(this.waiting.length, this.next + SLICE)
    while (this.next < end) this.report(this.waiting[this.next++])
    if (this.next < this.waiting.length) {
      this.scheduled = true
      setImmediate(() => this.reportSlice())
      return
    }
    this.waiting = []
    this.next = 0
  }
}
