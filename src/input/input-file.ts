/**
 * The one gate of every file paytx reads (the profile file, `--data`, `--input`, `-F key=@file`,
 * scenario, fault and report files, `--from-file`, webhook save files): what the path is, through
 * any symbolic link, is looked at before it is opened. A regular file is read. A folder, a device
 * or a socket is refused without being opened for reading: a device such as /dev/zero never ends,
 * and opening a terminal, tape or serial line changes it. A FIFO (a named pipe, or `<(command)` in
 * a shell) is a stream: readers that take one read it in the event loop, so the read ends when the
 * writer closes and a signal ends the command; the others refuse it. Every open is non-blocking,
 * so a path swapped for a FIFO after the look is never waited on by a thread that a signal cannot
 * free (Node's exit waits for its file threads).
 */
import {type Stats, closeSync, constants, createReadStream, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync} from 'node:fs'

/** What a path is, as the messages name it. */
export type FileKind = 'file' | 'folder' | 'fifo' | 'device' | 'socket'

/** A path that is not a regular file, refused before reading; the message is the reason as a clause. */
export class SpecialFileError extends Error {
  /** EISDIR for a folder, so that callers' words for a folder ("it is a folder") hold for every reader. */
  readonly code: string | undefined

  constructor(
    readonly path: string,
    readonly kind: Exclude<FileKind, 'file'>,
    /** Where a symbolic link leads, when the path is one. */
    readonly target?: string,
  ) {
    super(specialFileReason(kind, target))
    this.name = 'SpecialFileError'
    this.code = kind === 'folder' ? 'EISDIR' : undefined
  }
}

const KIND_WORDS: Record<Exclude<FileKind, 'file'>, string> = {
  folder: 'a folder',
  fifo: 'a FIFO (named pipe)',
  device: 'a device',
  socket: 'a socket',
}

function specialFileReason(kind: Exclude<FileKind, 'file'>, target: string | undefined): string {
  if (target !== undefined) return `it is a link to ${target}, ${KIND_WORDS[kind]}, not a regular file`
  return kind === 'folder' ? 'it is a folder' : `it is ${KIND_WORDS[kind]}, not a regular file`
}

export function fileKind(info: Stats): FileKind {
  if (info.isFile()) return 'file'
  if (info.isDirectory()) return 'folder'
  if (info.isFIFO()) return 'fifo'
  if (info.isSocket()) return 'socket'
  return 'device'
}

/** Where the link at `path` finally leads, or undefined when `path` is no link. */
function linkTarget(path: string): string | undefined {
  try {
    if (!lstatSync(path).isSymbolicLink()) return undefined
    return realpathSync(path)
  } catch {
    return undefined
  }
}

/**
 * What `path` is, through links; a kind the reader does not take is a SpecialFileError. Errors
 * of the look itself (ENOENT, EACCES) are thrown as they come, for the caller's own words.
 */
export function checkInputPath(path: string, accepts: {fifo: boolean}): 'file' | 'fifo' {
  const kind = fileKind(statSync(path))
  if (kind === 'file' || (kind === 'fifo' && accepts.fifo)) return kind
  throw new SpecialFileError(path, kind, linkTarget(path))
}

/** Read-only, never waiting for a FIFO's writer, never taking a terminal as the controlling one. */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0)

/**
 * Opens `path` once `checkInputPath` took it. The open file is looked at again, as the path may
 * have changed in between: a regular file is taken, a FIFO only when the reader takes one.
 */
function openChecked(path: string, accepts: {fifo: boolean}): {fd: number; kind: 'file' | 'fifo'; info: Stats} {
  const fd = openSync(path, OPEN_FLAGS)
  const info = fstatSync(fd)
  const kind = fileKind(info)
  if (kind === 'file' || (kind === 'fifo' && accepts.fifo)) return {fd, kind, info}
  closeSync(fd)
  throw new SpecialFileError(path, kind)
}

/** A file over its reader's ceiling, before or while it is read. */
export class FileTooLargeError extends Error {
  constructor(
    readonly path: string,
    readonly maxBytes: number,
  ) {
    super(`${path} is larger than ${maxBytes} bytes`)
    this.name = 'FileTooLargeError'
  }
}

/**
 * A regular file's bytes, at most `maxBytes` (more is a FileTooLargeError, found from its size or
 * while reading a file that grows); anything but a regular file is a SpecialFileError. For files
 * read on every command (the profile file): synchronous and cheap.
 */
export function readRegularFileSync(path: string, maxBytes: number): Buffer {
  checkInputPath(path, {fifo: false})
  const {fd, info} = openChecked(path, {fifo: false})
  try {
    if (info.size > maxBytes) throw new FileTooLargeError(path, maxBytes)
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes) + 1)
    let length = 0
    for (let read = -1; read !== 0 && length < buffer.length; length += read) {
      read = readSync(fd, buffer, length, buffer.length - length, null)
    }
    if (length > maxBytes) throw new FileTooLargeError(path, maxBytes)
    return buffer.subarray(0, length)
  } finally {
    closeSync(fd)
  }
}

/** An input file opened for reading: its chunks as they come, and what it is. */
export interface OpenedInput {
  kind: 'file' | 'fifo'
  /** A regular file's size when opened; a FIFO has none. */
  size?: number
  chunks: AsyncIterable<Buffer>
  /** Ends the read early (an error, an interruption); the end of the chunks closes it too. */
  close(): void
}

/**
 * Opens `path` for reading as a stream of chunks. A FIFO is taken when `fifo` is true and read
 * through the event loop: it waits for a writer, ends when the writer closes, and `signal`
 * (Ctrl-C, SIGTERM) ends the wait with the signal's reason.
 */
export async function openInputFile(path: string, options: {fifo: boolean; signal?: AbortSignal}): Promise<OpenedInput> {
  checkInputPath(path, options)
  const {fd, kind, info} = openChecked(path, options)
  if (kind === 'file') {
    const stream = createReadStream('', {fd, autoClose: true, signal: options.signal})
    return {kind, size: info.size, chunks: stream, close: () => stream.destroy()}
  }
  const {Socket} = await import('node:net')
  // A FIFO as a pipe of libuv's: read when epoll says so, in this thread, never in the file thread pool.
  const socket = new Socket({fd, readable: true, writable: false, signal: options.signal})
  return {kind, chunks: socket, close: () => socket.destroy()}
}
