/**
 * Secrets and data read from stdin (`--api-key-stdin`, `--pan-stdin`, `--data -`), so they never
 * have to appear on a command line or in shell history.
 */
import {InputError} from '../errors.js'

export async function readStdinText(stream: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Reads one value per line, in the order of `flags` (e.g. API key, then proxy key); a missing or
 * empty line is an input error naming the flag that wanted it.
 */
export async function readStdinValues(flags: readonly string[], stream: NodeJS.ReadableStream = process.stdin): Promise<string[]> {
  const lines = (await readStdinText(stream)).split(/\r?\n/).map((line) => line.trim())
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
