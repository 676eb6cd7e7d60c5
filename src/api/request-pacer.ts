/**
 * A pause shared by the requests of one command. When the service answers 429 to one of several
 * lookups running at once, the others hold back too until its Retry-After (or back-off) has
 * passed, instead of each spending its own tries against a service that asked everyone to wait.
 */
export class SharedPause {
  private resumeAt = 0

  constructor(
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  /** Resolves once no pause is in force. */
  async beforeAttempt(): Promise<void> {
    for (let left = this.resumeAt - this.now(); left > 0; left = this.resumeAt - this.now()) await this.sleep(left)
  }

  /** Holds every request back for `ms` from now (a later pause already in force is kept). */
  pauseFor(ms: number): void {
    this.resumeAt = Math.max(this.resumeAt, this.now() + ms)
  }
}
