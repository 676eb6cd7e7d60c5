/**
 * Transaction ids for the read commands (`status`, `checkoutsuccess`): from arguments, from stdin
 * (`-`) and from `--from-file`, one per line, read as they come (a list of any length is never held
 * whole; a line over 1 MiB is reported by its first characters and passed over). Blank lines and
 * `#` comments are skipped and ids are trimmed. The service promises only that an id is a
 * non-empty string (api-notes), so an "id shape" is lenient: anything that can stand alone as one
 * path segment of the URL.
 */
import type {IdTarget} from '../api/lookup-many.js'
import {InputError} from '../errors.js'
import {MAX_ID_LENGTH, idShapeProblem, shownId} from '../api/transaction-id.js'
import {type Line, MAX_LINE_BYTES, MAX_SKIPPED_LINE_BYTES, formatByteSize, readLines} from './bounded-read.js'

export type {IdTarget} from '../api/lookup-many.js'

export {MAX_ID_LENGTH, idShapeProblem, shownId} from '../api/transaction-id.js'

function target(raw: string, where: string): IdTarget {
  const id = raw.trim()
  const problem = idShapeProblem(id)
  // A rejected line is kept only as it will be shown: it is never sent.
  return problem ? {id: shownId(id), where, problem} : {id, where}
}

export interface LookupFlags {
  /** The arguments, in order; `-` stands for the ids on stdin. */
  ids: readonly string[]
  'from-file'?: string
  concurrency?: number
  csv?: boolean
  json?: boolean
}

/** The streams ids are read from: stdin when `-` was given, the opened --from-file otherwise. */
export interface LookupSources {
  stdin: AsyncIterable<Buffer | string>
  fromFile?: AsyncIterable<Buffer | string>
}

export interface LookupOptions {
  /** The ids in input order, read as they are consumed (a list of any length is never held whole). */
  targets: AsyncIterable<IdTarget>
  /** The first of them: the only one when not `many`. */
  first: IdTarget
  /** How many there are, when known beforehand (arguments only; a list is read as it comes). */
  total?: number
  concurrency: number
  /** Several ids (or --csv): answered as a table or an array rather than one transaction's view. */
  many: boolean
  csv: boolean
}

export const DEFAULT_LOOKUP_CONCURRENCY = 4
export const MAX_LOOKUP_CONCURRENCY = 32
/**
 * How many lines that are not ids are held while looking for the first id, so that a list
 * without any is refused before anything is printed or sent; past this they are only counted
 * (a list of any length is read in bounded memory) and, when an id does come, stand as one row.
 */
const REJECTED_HELD = 1000
/** How many lines that are not ids the refusal of a list without any names. */
const REJECTED_NAMED = 10

/** What an id looks like, for messages about lines that are not one. */
export const ID_LOOKS_LIKE = `A transaction id is one word of at most ${MAX_ID_LENGTH} characters, such as 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c, one per line.`

/** The flags checked before anything is read: stdin once, --concurrency, one output format. */
export function checkLookupFlags(flags: LookupFlags): number {
  if (flags.ids.filter((arg) => arg === '-').length + (flags['from-file'] === '-' ? 1 : 0) > 1) {
    throw new InputError('stdin can be read once: give `-` as one argument or as --from-file, not both.', {flag: '--from-file'})
  }
  const concurrency = flags.concurrency ?? DEFAULT_LOOKUP_CONCURRENCY
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_LOOKUP_CONCURRENCY) {
    throw new InputError(`--concurrency must be a whole number from 1 to ${MAX_LOOKUP_CONCURRENCY} (got ${concurrency}).`, {flag: '--concurrency'})
  }
  if (flags.csv && flags.json) throw new InputError('--csv and --json cannot be used together; pick one output.', {flag: '--csv'})
  return concurrency
}

/** A line over the cap, as reported: its first characters and its length; it is never sent. */
function longLineTarget(line: Line, where: string): IdTarget {
  const start = line.text.trimStart().slice(0, 40)
  return {
    id: `${shownId(start)}… (${line.longBytes} bytes)`,
    where,
    problem: `it is longer than ${formatByteSize(MAX_LINE_BYTES)} (${line.longBytes} bytes); an id is at most ${MAX_ID_LENGTH} characters`,
  }
}

/** The ids of a stream of lines, one per line, as they come; blank lines and `#` comments skipped. */
export async function* idsFromStream(stream: AsyncIterable<Buffer | string>, source: string, flag: string): AsyncGenerator<IdTarget> {
  let number = 0
  try {
    for await (const line of readLines(stream, {flag, source, longLines: 'skip'})) {
      number = line.number
      const text = line.text.trim()
      // A long line's start tells a comment, not a blank line: what follows its first bytes is unread.
      if ((text === '' && line.longBytes === undefined) || text.startsWith('#')) continue
      yield line.longBytes === undefined ? target(text, `${source} line ${number}`) : longLineTarget(line, `${source} line ${number}`)
    }
  } catch (error) {
    if (!(error instanceof InputError)) throw error
    // A line with no end in sight (stdin from /dev/zero): reported like any line that is not an id, and the rest is not read.
    yield {id: '', where: `${source} line ${number + 1}`, problem: `it is longer than ${formatByteSize(MAX_SKIPPED_LINE_BYTES)}; the rest of ${source} was not read`}
  }
}

/** Every id in input order: the arguments, stdin's lines where `-` stands, then the file's lines. */
async function* allTargets(flags: LookupFlags, sources: LookupSources): AsyncGenerator<IdTarget> {
  for (const [index, arg] of flags.ids.entries()) {
    if (arg === '-') yield* idsFromStream(sources.stdin, 'stdin', 'id')
    else yield target(arg, flags.ids.length > 1 ? `argument ${index + 1}` : 'the id argument')
  }
  const file = flags['from-file']
  if (file === '-') yield* idsFromStream(sources.stdin, 'stdin', '--from-file')
  else if (file !== undefined && sources.fromFile) yield* idsFromStream(sources.fromFile, file, '--from-file')
}

/** The first lines, read until an id and a second entry are known (or the end). */
interface FirstLines {
  /** Every entry read, in order, but for lines that are not ids past REJECTED_HELD: one row stands for those. */
  held: IdTarget[]
  /** How many lines that are not ids were read, held or not. */
  rejected: number
  ended: boolean
}

/**
 * Reads as far as it takes to tell one id from several and a list without an id from one with:
 * up to the first id (and one entry more). Lines that are not ids before it are held up to
 * REJECTED_HELD; the rest of them are only counted and stand as one row before the id.
 */
async function readFirstLines(iterator: AsyncIterator<IdTarget>): Promise<FirstLines> {
  const held: IdTarget[] = []
  let rejected = 0
  let passed: {first: string; last: string; count: number} | undefined
  let idSeen = false
  while (held.length < 2 || !idSeen) {
    const next = await iterator.next()
    if (next.done) return {held, rejected, ended: true}
    const entry = next.value
    if (entry.problem) rejected++
    else idSeen = true
    if (entry.problem && held.length >= REJECTED_HELD) {
      passed = {first: passed?.first ?? entry.where, last: entry.where, count: (passed?.count ?? 0) + 1}
      continue
    }
    if (passed) {
      const where = passed.count === 1 ? passed.first : `${passed.first} to ${passed.last}`
      held.push({id: `(${passed.count} lines)`, where, problem: `none of these ${passed.count} lines is a transaction id either (not listed one by one); they were not sent`})
      passed = undefined
    }
    held.push(entry)
  }
  return {held, rejected, ended: false}
}

/**
 * The ids to look up, in input order (arguments, `-` expanded where it stands, then the file),
 * and how. Reads only the first lines (see readFirstLines); the rest is read as the lookups go.
 * A list in which no line is an id is an input error naming its first lines, and nothing is sent.
 */
export async function toLookupOptions(flags: LookupFlags, sources: LookupSources): Promise<LookupOptions> {
  const concurrency = checkLookupFlags(flags)
  const file = flags['from-file']
  const iterator = allTargets(flags, sources)
  const {held, rejected, ended} = await readFirstLines(iterator)

  if (held.length === 0) {
    throw new InputError(
      file !== undefined || flags.ids.includes('-') ? 'No transaction id to look up: the list holds only blank lines and comments.' : 'A transaction id is required.',
      {flag: file === undefined ? 'id' : '--from-file', hint: 'Give ids as arguments, one per line on stdin with `-`, or in a file with --from-file.'},
    )
  }
  // --csv asks for rows even of one id: a script's list that happens to hold one id keeps its format.
  const many = held.length > 1 || !ended || Boolean(flags.csv)
  if (!many) {
    const [only] = held
    if (only.problem) throw new InputError(`"${only.id}" (${only.where}) is not a transaction id: ${only.problem}.`, {flag: 'id', hint: ID_LOOKS_LIKE})
  }
  if (many && ended && held.every((entry) => entry.problem)) throw noIdError(held, rejected)
  const total = file === undefined && !flags.ids.includes('-') ? flags.ids.length : undefined
  return {targets: prepend(held, iterator), first: held[0], total, concurrency, many, csv: Boolean(flags.csv)}
}

/** A list without any id: how many lines, the first of them, and what an id looks like. */
function noIdError(held: readonly IdTarget[], rejected: number): InputError {
  const named = held.slice(0, REJECTED_NAMED)
  const more = rejected > named.length ? `\n  … and ${rejected - named.length} more` : ''
  const which = rejected > named.length ? `; the first ${named.length}` : ''
  return new InputError(`None of the ${rejected} lines is a transaction id; nothing was sent${which}:\n${describeRejected(named)}${more}`, {flag: 'id', hint: ID_LOOKS_LIKE})
}

async function* prepend<T>(first: readonly T[], rest: AsyncIterator<T>): AsyncGenerator<T> {
  yield* first
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value
}

/** One line per rejected entry: where it was, what it was, why it is not an id. */
export function describeRejected(targets: readonly IdTarget[]): string {
  return targets
    .filter((entry) => entry.problem)
    .map((entry) => `  ${entry.where}: "${entry.id}": ${entry.problem}`)
    .join('\n')
}
