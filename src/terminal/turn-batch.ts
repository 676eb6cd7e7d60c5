/**
 * Work gathered over one turn of the event loop and done together: writes to a terminal, pipe or
 * file are synchronous system calls on Linux, and a listener under load would otherwise spend its
 * time making one per webhook.
 */
export class TurnBatch<T> {
  private items: T[] = []
  private scheduled = false

  /** `handle` gets every item added since the last flush, in order, and never an empty list. */
  constructor(private readonly handle: (items: T[]) => void) {}

  add(item: T): void {
    this.items.push(item)
    if (!this.scheduled) {
      this.scheduled = true
      setImmediate(() => this.flush())
    }
  }

  /** Handles what is queued now rather than at the end of the turn. */
  flush(): void {
    this.scheduled = false
    if (this.items.length === 0) return
    const items = this.items
    this.items = []
    this.handle(items)
  }
}

/** Lines for a stream (stdout), written together once per turn of the event loop. */
export class BatchedLineWriter extends TurnBatch<string> {
  constructor(stream: NodeJS.WritableStream) {
    super((lines) => stream.write(`${lines.join('\n')}\n`))
  }
}
