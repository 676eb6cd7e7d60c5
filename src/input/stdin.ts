/**
 * Secrets and data read from stdin (`--api-key-stdin`, `--pan-stdin`, `--data -`), so they never
 * have to appear on a command line or in shell history.
 */
import {InputError} from '../errors.js'
import {readStreamCapped} from './bounded-read.js'

/** Secrets are a line each: 64 KiB is far above any key or card number. */
const MAX_SECRET_STDIN_BYTES = 64 * 1024

/** Stdin's text, up to `maxBytes` (10 MiB unless told); more is an input error naming `flag`. */
export async function readStdinText(flag: string, {stream = process.stdin, maxBytes}: {stream?: NodeJS.ReadableStream; maxBytes?: number} = {}): Promise<string> {
  return readStreamCapped(stream as AsyncIterable<Buffer | string>, {flag, source: 'stdin', maxBytes})
}

/**
 * Reads one value per line, in the order of `flags` (e.g. API key, then proxy key); a missing or
 * empty line is an input error naming the flag that wanted it.
 */
export async function readStdinValues(flags: readonly string[], stream: NodeJS.ReadableStream = process.stdin): Promise<string[]> {
  const lines = (await readStdinText(flags.join(', '), {stream, maxBytes: MAX_SECRET_STDIN_BYTES})).split(/\r?\n/).map((line) => line.trim())
  return flags.map((flag, index) => {
    const value = lines[index]
    if (!value) {
      const position = flags.length > 1 ? `line ${index + 1} of stdin (${flags.join(' then ')}, one per line)` : 'stdin'
      throw new InputError(`${flag}: ${position} is empty.`, {
        flag,
        remedy: {kind: 'pipe-values', flags: flags.length > 1 ? [...flags] : [flag]},
      })
    }
    return value
  })
}
