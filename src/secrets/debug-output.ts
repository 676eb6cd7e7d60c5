/**
 * `DEBUG=*` turns on the debug logs of oclif and the libraries under it, which print the command
 * line (`process.argv`) and whatever else they see as it is. A card number typed where it does
 * not belong (`--pan 4111...`, a mistyped flag) would be echoed whole, so while DEBUG is set every
 * run of 12 or more digits written to stderr (a word of them, with a stray letter or separator
 * too) is shown by its last four only: whether or not it passes the Luhn check, since a mistyped
 * number does not.
 */
const LONG_DIGIT_RUN = /\d(?:[ -]?\d){11,}/g
/** A word of the log: a mistyped number may hold a letter or a stray separator within its digits. */
const WORD = /[0-9A-Za-z._/-]+/g
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const lastFour = (text: string) => `••••${text.replace(/\D/g, '').slice(-4)}`

/** A word of 12 digits or more with at most two letters among them, and not a UUID, is taken for a card number. */
function looksLikeCardNumber(word: string): boolean {
  const digits = word.replace(/\D/g, '').length
  return digits >= 12 && word.replace(/[^A-Za-z]/g, '').length <= 2 && !UUID.test(word)
}

export function maskLongDigitRuns(text: string): string {
  return text.replace(WORD, (word) => (looksLikeCardNumber(word) ? lastFour(word) : word)).replace(LONG_DIGIT_RUN, lastFour)
}

/** From now on, what is written to stderr has its long digit runs masked. */
export function maskDigitRunsOnStderr(stderr: NodeJS.WriteStream = process.stderr): void {
  const write = stderr.write.bind(stderr) as (chunk: unknown, ...rest: unknown[]) => boolean
  stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : undefined
    return text === undefined ? write(chunk, ...rest) : write(maskLongDigitRuns(text), ...rest)
  }) as NodeJS.WriteStream['write']
}
