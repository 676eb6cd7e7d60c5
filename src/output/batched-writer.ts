/**
 * Lines for a stream (stdout) gathered over one turn of the event loop and written together:
 * writes to a terminal, pipe or file are synchronous system calls on Linux, and a listener under
 * load would otherwise spend its time making one per webhook.
 */
export class BatchedLineWriter {
  private lines: string[] = []
  private scheduled = false

  constructor(private readonly stream: NodeJS.WritableStream) {}

  write(line: string): void {
    this.lines.push(line)
    if (!this.scheduled) {
      this.scheduled = true
      setImmediate(() => this.flush())
    }
  }

  flush(): void {
    this.scheduled = false
    if (this.lines.length === 0) return
    const text = `${this.lines.join('\n')}\n`
    this.lines = []
    this.stream.write(text)
  }
}
