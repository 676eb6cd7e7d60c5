/**
 * Transaction ids for the read commands (`status`, `checkoutsuccess`): from arguments, from stdin
 * (`-`) and from `--from-file`, one per line. Blank lines and `#` comments are skipped and ids are
 * trimmed. The service promises only that an id is a non-empty string (api-notes), so an "id
 * shape" is lenient: anything that can stand alone as one path segment of the URL.
 */
import type {IdTarget} from '../api/lookup-many.js'
import {InputError} from '../errors.js'

export type {IdTarget} from '../api/lookup-many.js'

/** Longer than any id a service hands out (UUIDs are 36, Mongo-style ids 24). */
export const MAX_ID_LENGTH = 200


/** Why a (trimmed) value cannot be a transaction id, or undefined when it can. */
export function idShapeProblem(id: string): string | undefined {
  if (id === '') return 'it is empty'
  if (id.length > MAX_ID_LENGTH) return `it is longer than ${MAX_ID_LENGTH} characters`
  if (/\s/u.test(id)) return 'it contains whitespace (one id per line)'
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001F\u007F]/u.test(id)) return 'it contains a control character'
  const reserved = /[/?#\\]/u.exec(id)
  if (reserved) return `it contains "${reserved[0]}", which cannot be part of an id in the URL`
  return undefined
}

function target(raw: string, where: string): IdTarget {
  const id = raw.trim()
  const problem = idShapeProblem(id)
  return problem ? {id, where, problem} : {id, where}
}

/** The ids of a list, one per line; blank lines and lines starting with `#` are skipped. */
export function idsFromLines(text: string, source: string): IdTarget[] {
  return text
    .replace(/^\uFEFF/u, '')
    .split(/\r?\n/u)
    .map((line, index) => ({line: line.trim(), number: index + 1}))
    .filter(({line}) => line !== '' && !line.startsWith('#'))
    .map(({line, number}) => target(line, `${source} line ${number}`))
}

export interface LookupFlags {
  /** The arguments, in order; `-` stands for the ids on stdin. */
  ids: readonly string[]
  'from-file'?: string
  concurrency?: number
  csv?: boolean
  json?: boolean
}

/** What was read before parsing: stdin's text when `-` was given, the file's text for --from-file. */
export interface LookupSources {
  stdin?: string
  fromFile?: string
}

export interface LookupOptions {
  targets: IdTarget[]
  concurrency: number
  /** Several ids (or --csv): answered as a table or an array rather than one transaction's view. */
  many: boolean
  csv: boolean
}

export const DEFAULT_LOOKUP_CONCURRENCY = 4
export const MAX_LOOKUP_CONCURRENCY = 32

/** Whether the command must read stdin before `toLookupOptions` can run. */
export function readsStdin(flags: Pick<LookupFlags, 'ids' | 'from-file'>): boolean {
  return flags.ids.includes('-') || flags['from-file'] === '-'
}

/**
 * The ids to look up, in input order (arguments, `-` expanded where it stands, then the file),
 * and how. Pure: the caller reads stdin and the file first.
 */
export function toLookupOptions(flags: LookupFlags, sources: LookupSources): LookupOptions {
  if (flags.ids.filter((arg) => arg === '-').length + (flags['from-file'] === '-' ? 1 : 0) > 1) {
    throw new InputError('stdin can be read once: give `-` as one argument or as --from-file, not both.', {flag: '--from-file'})
  }
  const concurrency = flags.concurrency ?? DEFAULT_LOOKUP_CONCURRENCY
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_LOOKUP_CONCURRENCY) {
    throw new InputError(`--concurrency must be a whole number from 1 to ${MAX_LOOKUP_CONCURRENCY} (got ${concurrency}).`, {flag: '--concurrency'})
  }
  if (flags.csv && flags.json) throw new InputError('--csv and --json cannot be used together; pick one output.', {flag: '--csv'})

  const targets: IdTarget[] = []
  flags.ids.forEach((arg, index) => {
    if (arg === '-') targets.push(...idsFromLines(sources.stdin ?? '', 'stdin'))
    else targets.push(target(arg, flags.ids.length > 1 ? `argument ${index + 1}` : 'the id argument'))
  })
  const file = flags['from-file']
  if (file !== undefined) targets.push(...idsFromLines((file === '-' ? sources.stdin : sources.fromFile) ?? '', file === '-' ? 'stdin' : file))

  if (targets.length === 0) {
    throw new InputError(
      file !== undefined || flags.ids.includes('-') ? 'No transaction id to look up: the list holds only blank lines and comments.' : 'A transaction id is required.',
      {flag: file === undefined ? 'id' : '--from-file', hint: 'Give ids as arguments, one per line on stdin with `-`, or in a file with --from-file.'},
    )
  }
  // --csv asks for rows even of one id: a script's list that happens to hold one id keeps its format.
  const many = targets.length > 1 || Boolean(flags.csv)
  if (!many) {
    const [only] = targets
    if (only.problem) throw new InputError(`"${only.id}" (${only.where}) is not a transaction id: ${only.problem}.`, {flag: 'id'})
  }
  if (many && targets.every((entry) => entry.problem)) {
    throw new InputError(`None of the ${targets.length} lines is a transaction id; nothing was sent:\n${describeRejected(targets)}`, {flag: 'id'})
  }
  return {targets, concurrency, many, csv: Boolean(flags.csv)}
}

/** One line per rejected entry: where it was, what it was, why it is not an id. */
export function describeRejected(targets: readonly IdTarget[]): string {
  return targets
    .filter((entry) => entry.problem)
    .map((entry) => `  ${entry.where}: "${entry.id}": ${entry.problem}`)
    .join('\n')
}
