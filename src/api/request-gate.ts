/**
 * A gate shared by the requests of one command that sends many (lookups of a list of ids): at
 * most `maxInFlight` attempts at once, and when the service answers 429 to one of them, every
 * other holds back too until its Retry-After (or back-off) has passed, instead of each spending
 * its own tries against a service that asked everyone to wait.
 */
export class RequestGate {
  private resumeAt = 0
  private inFlight = 0
  private readonly queue: (() => void)[] = []

  constructor(
    private readonly maxInFlight = Number.POSITIVE_INFINITY,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  /** Resolves when an attempt may start (no pause in force, a free place); call the returned function when it ends. */
  async enter(): Promise<() => void> {
    for (;;) {
      for (let left = this.resumeAt - this.now(); left > 0; left = this.resumeAt - this.now()) await this.sleep(left)
      if (this.inFlight < this.maxInFlight) break
      await new Promise<void>((resolve) => this.queue.push(resolve))
    }
    this.inFlight++
    let left = false
    return () => {
      if (left) return
      left = true
      this.inFlight--
      this.queue.shift()?.()
    }
  }

  /** Holds every request back for `ms` from now (a later pause already in force is kept). */
  pauseFor(ms: number): void {
    this.resumeAt = Math.max(this.resumeAt, this.now() + ms)
  }
}
