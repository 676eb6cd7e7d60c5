/**
 * The `--save` file: one NDJSON line per received webhook (malformed ones included), on disk
 * before the sender is answered. Records that arrive in the same turn of the event loop are
 * written together in one synchronous append (a group commit), and only then are their senders
 * answered: a webhook acknowledged with 2xx is in the file even if the listener is killed, and a
 * burst costs two system calls (a look at the file's size, then the append) instead of one per
 * webhook.
 */
import {closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, writeSync} from 'node:fs'

import {TurnBatch} from '../terminal/turn-batch.js'

export interface WebhookRecord {
  seq: number
  received_at: string
  method: string
  /** The request path without its query string, which may hold the listener's token. */
  path: string
  /** Request headers, with credentials redacted. */
  headers: Record<string, string>
  /** The parsed JSON body (PANs, CVVs and keys redacted by field name), when it was JSON. */
  body?: unknown
  /** The body as received, when it was not valid JSON. */
  raw?: string
  /** The status the sender was answered with. */
  answered: number
}

export type Recorded = (error?: Error) => void

function endsWithNewline(fd: number, size: number): boolean {
  const last = Buffer.alloc(1)
  readSync(fd, last, 0, 1, size - 1)
  return last[0] === 0x0a
}

export class WebhookRecorder {
  private fd: number | undefined
  /**
   * Where the file ended after this recorder's last write (or cut), as far as it knows. Another
   * listener saving to the same file, or a part of a record that could not be cut, moves the real
   * end: each write looks at the file first, so that a failed write cuts back only its own bytes.
   */
  private end: number
  /** The file ends in part of a line: the next record starts on a new line. */
  private mayEndMidLine: boolean
  private readonly pending = new TurnBatch<{line: string; done: Recorded}>((entries) => this.write(entries))

  /** Opens (creating it readable by the owner alone) or appends to `path`; throws the fs error. */
  constructor(readonly path: string) {
    this.fd = openSync(path, 'a+', 0o600)
    this.end = fstatSync(this.fd).size
    // A file left by an earlier run may end mid-line (killed while writing).
    this.mayEndMidLine = this.end > 0 && !endsWithNewline(this.fd, this.end)
  }

  /** Queues a record; `done` runs once it is written (or failed to be). */
  append(record: WebhookRecord, done: Recorded): void {
    if (this.fd === undefined) {
      done(new Error(`the save file ${this.path} is closed`))
      return
    }
    this.pending.add({line: JSON.stringify(record), done})
  }

  /** Writes every queued record now and tells their callers. */
  flush(): void {
    this.pending.flush()
  }

  private write(entries: {line: string; done: Recorded}[]): void {
    let failure: Error | undefined
    let start = 0
    let written = 0
    try {
      if (this.fd === undefined) throw new Error(`the save file ${this.path} is closed`)
      start = this.currentEnd(this.fd)
      const data = Buffer.from(`${this.mayEndMidLine ? '\n' : ''}${entries.map((entry) => entry.line).join('\n')}\n`)
      while (written < data.length) written += writeSync(this.fd, data, written)
      this.end = start + data.length
      this.mayEndMidLine = false
    } catch (error) {
      failure = error as Error
      this.cutBack(start, written)
    }
    for (const entry of entries) entry.done(failure)
  }

  /** The file's size now; when something else changed it since this recorder's last write, whether it ends mid-line. */
  private currentEnd(fd: number): number {
    const size = fstatSync(fd).size
    if (size !== this.end) {
      this.mayEndMidLine = size > 0 && !endsWithNewline(fd, size)
      this.end = size
    }
    return size
  }

  /**
   * Drops the part of a record a failed write (a full disk) left at `start`: only when the file
   * holds nothing past it but those bytes. Cutting back to where this recorder believed the file
   * ended would also cut lines that another listener saving to the same file had written and
   * acknowledged since. What cannot be cut stays; the next record starts on a new line.
   */
  private cutBack(start: number, written: number): void {
    if (this.fd === undefined || written === 0) return
    try {
      if (fstatSync(this.fd).size !== start + written) return
      ftruncateSync(this.fd, start)
      this.end = start
    } catch {
      // The next write finds the file longer than `end` and looks at how it ends.
    }
  }

  close(): void {
    this.flush()
    if (this.fd === undefined) return
    const fd = this.fd
    this.fd = undefined
    try {
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
  }
}
