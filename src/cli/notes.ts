/**
 * Notes, progress and warnings on stderr, as the base command writes them: secrets scrubbed,
 * outside text made visible, and on a terminal each line fitted to its width by the one rule
 * errors and hints follow (output/failure-text.ts: broken at spaces, a word never cut, the
 * continuation under the text after `Warning: `, a command in backticks kept whole). In a pipe
 * every line stays whole, for grep and logs.
 */
import {wrapFailureText} from '../output/failure-text.js'
import {lineWidth} from '../output/wrap.js'
import {scrubSecrets} from '../secrets/redact.js'
import {visibleLines} from '../terminal/visible-text.js'

export function writeNote(stderr: NodeJS.WritableStream & {isTTY?: boolean; columns?: number}, text: string, secrets: readonly string[]): void {
  stderr.write(`${wrapFailureText(visibleLines(scrubSecrets(text, secrets)), lineWidth(stderr))}\n`)
}
