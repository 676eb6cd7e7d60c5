/**
 * Reading stdin and files with a ceiling: a whole text up to a size (`api --input`, `--data -`),
 * or line after line with a cap on each line (ids on stdin, a webhook save file), so that
 * `</dev/zero`, a FIFO that never ends or a mistaken multi-gigabyte file is an input error naming
 * the flag rather than memory growing until the machine gives up.
 */
import {InputError} from '../errors.js'

/** Ceiling for a body or value read whole (`api --input`, `-F key=@file`, `--data`): 10 MiB. */
export const MAX_INPUT_BYTES = 10 * 1024 * 1024
/** Ceiling for one line of a list (ids, saved webhooks): 1 MiB, far above any id or event. */
export const MAX_LINE_BYTES = 1024 * 1024

export interface ReadLimit {
  /** The flag the input came through, named in the error (`--input`, `--from-file`). */
  flag: string
  /** Where the text came from, as the error says it: `stdin`, the file's name. */
  source: string
  maxBytes?: number
}

/** "10 MiB", "64 KiB", "512 bytes": a ceiling as people read it. */
export function formatByteSize(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} bytes`
}

function tooLarge({flag, source, maxBytes = MAX_INPUT_BYTES}: ReadLimit): InputError {
  return new InputError(`${flag}: ${source} is larger than ${formatByteSize(maxBytes)}, the most paytx reads here.`, {flag})
}

/** The whole stream's bytes; past `maxBytes` the stream is abandoned and the read is an input error. */
export async function readBytesCapped(stream: AsyncIterable<Buffer | string>, limit: ReadLimit): Promise<Buffer> {
  const maxBytes = limit.maxBytes ?? MAX_INPUT_BYTES
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    size += buffer.length
    if (size > maxBytes) throw tooLarge(limit)
    chunks.push(buffer)
  }
  return Buffer.concat(chunks)
}

/** The whole stream as UTF-8 text; past `maxBytes` the stream is abandoned and the read is an input error. */
export async function readStreamCapped(stream: AsyncIterable<Buffer | string>, limit: ReadLimit): Promise<string> {
  return (await readBytesCapped(stream, limit)).toString('utf8')
}

/**
 * The stream's chunks until `signal` aborts; then the read stops at once with the signal's reason
 * (an InterruptedError), whatever the stream was waiting for (a FIFO's or a pipe's writer), and the
 * stream is let go, so nothing keeps the process alive.
 */
export async function* untilAborted<T>(stream: AsyncIterable<T>, signal: AbortSignal | undefined): AsyncGenerator<T> {
  if (!signal) return yield* stream
  const iterator = stream[Symbol.asyncIterator]()
  try {
    for (;;) {
      const next = await nextUnlessAborted(iterator, signal)
      if (next.done) return
      yield next.value
    }
  } finally {
    // A stream's iterator handles return() only after the pending read, which may never come: the
    // stream is destroyed instead, which ends that read.
    if (signal.aborted && typeof (stream as {destroy?: unknown}).destroy === 'function') (stream as unknown as {destroy(): void}).destroy()
    else void Promise.resolve(iterator.return?.()).catch(() => {})
  }
}

/**
 * The iterator's next result, or the signal's reason once it aborts. A listener per read, removed
 * after it: racing each read against one promise of the signal would keep every chunk read alive
 * (each race leaves a reaction on that promise, holding its result) until the signal aborts.
 */
function nextUnlessAborted<T>(iterator: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T>> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, {once: true})
    iterator.next().then(
      (result) => {
        signal.removeEventListener('abort', onAbort)
        resolve(result)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/**
 * A file's text, read with the ceiling: a regular file over it is refused from its size before
 * reading, a FIFO (`<(command)`) is read as it comes, up to the ceiling; a folder, a device or a
 * socket is refused unopened (input-file.ts). Errors of the file are thrown as they come
 * (ENOENT, a SpecialFileError), for the caller to put in its own words (file-read-error.ts).
 */
export async function readFileCapped(path: string, limit: Omit<ReadLimit, 'source'>): Promise<string> {
  // Loaded here: every command that reads ids imports this module, and few read a file.
  const {openInputFile} = await import('./input-file.js')
  const file = await openInputFile(path, {fifo: true})
  try {
    if (file.size !== undefined && file.size > (limit.maxBytes ?? MAX_INPUT_BYTES)) throw tooLarge({...limit, source: path})
    return await readStreamCapped(file.chunks, {...limit, source: path})
  } finally {
    file.close()
  }
}

export interface Line {
  /** The line without its end (`\n` or `\r\n`), decoded as UTF-8; a leading byte-order mark is dropped. */
  text: string
  /** 1 for the first line. */
  number: number
  /**
   * Set only when the line was longer than the cap and the read skips such lines: its length in
   * bytes. `text` then holds only its first KEPT_OF_LONG_LINE bytes, enough to show which it was.
   */
  longBytes?: number
}

export interface LineLimit extends ReadLimit {
  /**
   * What a line over `maxBytes` does: `refuse` (the default) ends the read with an input error;
   * `skip` yields its first bytes with its length and reads on after its end, so that one junk
   * line in a list is reported and the rest still read. A skipped line is read to its end in
   * constant memory, up to MAX_SKIPPED_LINE_BYTES: past that the input is no list of lines at
   * all (stdin from /dev/zero, a binary file) and the read ends with the input error.
   */
  longLines?: 'refuse' | 'skip'
}

/** How much of a skipped line is kept to show it: more than any message shows of it. */
export const KEPT_OF_LONG_LINE = 256
/** The longest line a `skip` read reads to its end: past this it is no list of lines (see LineLimit). */
export const MAX_SKIPPED_LINE_BYTES = 64 * 1024 * 1024

/** The line being read: its parts up to the cap, and past it only its first bytes and its length. */
class LineAssembler {
  private parts: Buffer[] = []
  private bytes = 0
  private long = false
  private number = 0
  private readonly maxBytes: number

  constructor(private readonly limit: LineLimit) {
    this.maxBytes = limit.maxBytes ?? MAX_LINE_BYTES
  }

  /** Some of the line has been read (an input that ends without a line end still has a last line). */
  get started(): boolean {
    return this.bytes > 0
  }

  /** More of the line; `copy` when the stream may reuse the chunk's memory (and so a small slice does not pin a large chunk). */
  add(part: Buffer, copy: boolean): void {
    if (part.length === 0) return
    this.bytes += part.length
    if (this.long) {
      if (this.bytes > MAX_SKIPPED_LINE_BYTES) throw lineTooLong(this.limit, this.number + 1, MAX_SKIPPED_LINE_BYTES)
      return
    }
    if (this.bytes > this.maxBytes) {
      if (this.limit.longLines !== 'skip') throw lineTooLong(this.limit, this.number + 1, this.maxBytes)
      this.long = true
      // Buffer.concat copies, and cut to this length it copies no more than is kept.
      this.parts = [Buffer.concat([...this.parts, part], KEPT_OF_LONG_LINE)]
      return
    }
    this.parts.push(copy ? Buffer.from(part) : part)
  }

  /** The line read so far, ended; the next one starts empty. */
  end(): Line {
    this.number += 1
    let text = (this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts)).toString('utf8')
    if (text.endsWith('\r')) text = text.slice(0, -1)
    if (this.number === 1 && text.startsWith('\uFEFF')) text = text.slice(1)
    const line: Line = this.long ? {text, number: this.number, longBytes: this.bytes} : {text, number: this.number}
    this.parts = []
    this.bytes = 0
    this.long = false
    return line
  }
}

/**
 * The stream's lines, one at a time, holding at most one line in memory. A line longer than
 * `maxBytes` (stdin from /dev/zero has no line end at all) ends the read with an input error
 * naming the line, or with `longLines: 'skip'` is reported cut and passed over, so a caller can
 * stream any input without a total ceiling.
 */
export async function* readLines(stream: AsyncIterable<Buffer | string>, limit: LineLimit): AsyncGenerator<Line> {
  const line = new LineAssembler(limit)
  for await (const chunk of stream) {
    let buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    let end = buffer.indexOf(0x0a)
    while (end !== -1) {
      // Not copied: the line is decoded before the next chunk is read.
      line.add(buffer.subarray(0, end), false)
      yield line.end()
      buffer = buffer.subarray(end + 1)
      end = buffer.indexOf(0x0a)
    }
    line.add(buffer, true)
  }
  if (line.started) yield line.end()
}

function lineTooLong({flag, source}: ReadLimit, number: number, maxBytes: number): InputError {
  return new InputError(`${flag}: line ${number} of ${source} is longer than ${formatByteSize(maxBytes)}; one value per line is expected.`, {flag})
}
