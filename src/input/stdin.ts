/** Reading a secret or a document piped to stdin (`--pan-stdin`, `--data -`). */
import {InputError} from '../api/errors.js'

export async function readStdin(stream: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (stream.isTTY) {
    throw new InputError('stdin is a terminal, but a flag asked to read from it.', {hint: 'Pipe the value in, e.g. `printf "%s\\n" "$VALUE" | paytx ...`.'})
  }
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return Buffer.concat(chunks).toString('utf8')
}
