/** A JSON object given as `--data <file>` or `--data -` (stdin). */
import {InputError} from '../errors.js'
import {readFileCapped} from './bounded-read.js'
import {readStdinText} from './stdin.js'

export async function readJsonObject(source: string, flag = '--data', stdin: NodeJS.ReadableStream = process.stdin): Promise<Record<string, unknown>> {
  let text: string
  const where = source === '-' ? 'stdin' : source
  if (source === '-') {
    text = await readStdinText(flag, {stream: stdin})
  } else {
    try {
      text = await readFileCapped(source, {flag})
    } catch (error) {
      if (error instanceof InputError) throw error
      const code = (error as NodeJS.ErrnoException).code
      throw new InputError(`${flag}: cannot read ${source}${code === 'ENOENT' ? ': no such file' : `: ${(error as Error).message}`}.`, {flag})
    }
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new InputError(`${flag}: ${where} is not valid JSON (${(error as Error).message}).`, {flag})
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputError(`${flag}: ${where} must hold one JSON object, e.g. {"first_name": "Jane"}.`, {flag})
  }
  return value as Record<string, unknown>
}
