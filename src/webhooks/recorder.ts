/**
 * The `--save` file: one NDJSON line per received webhook (malformed ones included), on disk
 * before the sender is answered. Records that arrive in the same turn of the event loop are
 * written together in one synchronous append (a group commit), and only then are their senders
 * answered: a webhook acknowledged with 2xx is in the file even if the listener is killed, and a
 * burst costs one system call instead of one per webhook.
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
  /** Where the last whole line ends: a failed write is cut back to here, so every line parses. */
  private wholeLinesEnd: number
  /** The file may end in part of a line that could not be cut back: the next record starts on a new line. */
  private mayEndMidLine: boolean
  private readonly pending = new TurnBatch<{line: string; done: Recorded}>((entries) => this.write(entries))

  /** Opens (creating it readable by the owner alone) or appends to `path`; throws the fs error. */
  constructor(readonly path: string) {
    this.fd = openSync(path, 'a+', 0o600)
    this.wholeLinesEnd = fstatSync(this.fd).size
    // A file left by an earlier run may end mid-line (killed while writing).
    this.mayEndMidLine = this.wholeLinesEnd > 0 && !endsWithNewline(this.fd, this.wholeLinesEnd)
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
    const data = Buffer.from(`${this.mayEndMidLine ? '\n' : ''}${entries.map((entry) => entry.line).join('\n')}\n`)
    let failure: Error | undefined
    try {
      if (this.fd === undefined) throw new Error(`the save file ${this.path} is closed`)
      let written = 0
      while (written < data.length) written += writeSync(this.fd, data, written)
      this.wholeLinesEnd += data.length
      this.mayEndMidLine = false
    } catch (error) {
      failure = error as Error
      this.rollBack()
    }
    for (const entry of entries) entry.done(failure)
  }

  /** Drops the part of a record a failed write (a full disk) left behind. */
  private rollBack(): void {
    if (this.fd === undefined) return
    try {
      ftruncateSync(this.fd, this.wholeLinesEnd)
      this.mayEndMidLine = false
    } catch {
      this.mayEndMidLine = true
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
