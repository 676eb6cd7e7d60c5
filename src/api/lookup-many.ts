/**
 * Many read-only lookups at once (support staff with a list of ids from tickets): at most
 * `concurrency` in flight, results in input order as they settle, each a value or the error it
 * ended with; the list is read as the lookups go, never held whole.
 * Retries stay those of the HTTP client (`shouldRetry`); a 429 pauses every lookup of the run
 * through the client's shared pause. Lines that are not ids are reported, never sent.
 */
import {EXIT, type ErrorJson, InputError, PaytxError} from '../errors.js'
import {isFinalStatus} from './contract.js'

/** One id to look up, or a line that is not one (reported, never sent). */
export interface IdTarget {
  id: string
  /** Where it was read: `argument 2`, `stdin line 4`, `ids.txt line 7`. */
  where: string
  /** Why this is not an id; set only for rejected lines. */
  problem?: string
}

export type LookupResult<T> = {id: string; value: T; error?: undefined} | {id: string; value?: undefined; error: ErrorJson}

export interface LookupManyOptions {
  concurrency: number
  /**
   * The most ids read but not yet handed on (default 16 per lookup in flight): one slow lookup
   * holds back the results after it, never the memory, which stays bounded by this whatever the
   * length of the list.
   */
  window?: number
  /** Called after each id is settled (for a progress line). */
  onSettled?: (done: number, failed: number) => void
}

const WINDOW_PER_LOOKUP = 16

function errorJson(error: unknown): ErrorJson {
  if (error instanceof PaytxError) return error.toJSON()
  return {kind: 'internal', exitCode: EXIT.service, message: error instanceof Error ? error.message : String(error)}
}

async function settleOne<T>({id, where, problem}: IdTarget, lookup: (id: string) => Promise<T>): Promise<LookupResult<T>> {
  if (problem) return {id, error: new InputError(`"${id}" (${where}) is not a transaction id: ${problem}; it was not sent.`).toJSON()}
  try {
    return {id, value: await lookup(id)}
  } catch (error) {
    return {id, error: errorJson(error)}
  }
}

/**
 * Wakes whoever waits for something to change (the consumer of lookUpMany for a result, its
 * workers for room in the window): a result settled or handed on, the list ended.
 */
function changeSignal(): {changed: () => void; nextChange: () => Promise<void>} {
  let waiting: (() => void)[] = []
  return {
    changed: () => {
      const wake = waiting
      waiting = []
      for (const resolve of wake) resolve()
    },
    nextChange: () => new Promise<void>((resolve) => waiting.push(resolve)),
  }
}

/**
 * The result of each target in input order, as soon as it and all before it are settled. At
 * most `concurrency` lookups run at once, and targets are read only as far as the window lets:
 * a list of any length (stdin as it comes) takes the memory of a window, not of the list.
 */
export async function* lookUpMany<T>(targets: AsyncIterable<IdTarget>, lookup: (id: string) => Promise<T>, options: LookupManyOptions): AsyncGenerator<LookupResult<T>> {
  const window = Math.max(options.concurrency, options.window ?? options.concurrency * WINDOW_PER_LOOKUP)
  const iterator = targets[Symbol.asyncIterator]()
  const settled = new Map<number, LookupResult<T>>()
  let read = 0
  let emitted = 0
  let total: number | undefined
  let failure: {error: unknown} | undefined
  let stopped = false
  let done = 0
  let failed = 0
  const {changed, nextChange} = changeSignal()

  const worker = async () => {
    while (!stopped && total === undefined) {
      if (read - emitted >= window) {
        await nextChange()
        continue
      }
      const index = read++
      let next: IteratorResult<IdTarget>
      try {
        next = await iterator.next()
      } catch (error) {
        failure ??= {error}
        next = {done: true, value: undefined}
      }
      if (next.done) {
        total = Math.min(total ?? index, index)
        changed()
        return
      }
      const result = await settleOne(next.value, lookup)
      settled.set(index, result)
      done++
      if (result.error) failed++
      options.onSettled?.(done, failed)
      changed()
    }
  }
  const workers = Promise.all(Array.from({length: options.concurrency}, worker))
  try {
    while (total === undefined || emitted < total) {
      const result = settled.get(emitted)
      if (result === undefined) {
        await nextChange()
        continue
      }
      settled.delete(emitted)
      emitted++
      changed()
      yield result
    }
    await workers
    if (failure) throw failure.error
  } finally {
    stopped = true
    changed()
  }
}

/** The exit code of several lookups, kept as the results go by (see lookupsExitCode). */
export class LookupTally<T> {
  private failed = 0
  private finalNotSuccess = false
  private inconclusive = false

  constructor(private readonly outcome?: (value: T) => Outcome) {}

  count(result: LookupResult<T>): void {
    if (result.error) {
      this.failed++
      return
    }
    const outcome = this.outcome?.(result.value)
    if (outcome?.final && !outcome.success) this.finalNotSuccess = true
    if (outcome && !outcome.conclusive) this.inconclusive = true
  }

  get failures(): number {
    return this.failed
  }

  exitCode(): number {
    if (this.failed > 0) return EXIT.service
    if (this.finalNotSuccess) return EXIT.notSuccess
    if (this.inconclusive) return EXIT.notFinal
    return EXIT.ok
  }
}

/** Where the results of several lookups go, in input order (an output's writer). */
export interface LookupsSink<T> {
  add(result: LookupResult<T>): void
  end(): void
}

export interface AnswerLookupsOptions<T> extends LookupManyOptions {
  sink: LookupsSink<T>
  /** Settles the outcome of each transaction for the exit code (checkoutsuccess); none for status. */
  outcome?: (value: T) => Outcome
  /** Told of each failed lookup, in input order, as it is handed on. */
  onFailure?: (result: LookupResult<T>) => void
  /** Resolves when the output can take more (a slow reader of stdout holds the lookups back). */
  drained?: () => Promise<void>
}

/** Looks up every target and hands each result on as it comes; returns how many and the exit code. */
export async function answerLookups<T>(targets: AsyncIterable<IdTarget>, lookup: (id: string) => Promise<T>, options: AnswerLookupsOptions<T>): Promise<{count: number; failed: number; exitCode: number}> {
  const tally = new LookupTally(options.outcome)
  let count = 0
  for await (const result of lookUpMany(targets, lookup, options)) {
    count++
    tally.count(result)
    if (result.error) options.onFailure?.(result)
    options.sink.add(result)
    await options.drained?.()
  }
  options.sink.end()
  return {count, failed: tally.failures, exitCode: tally.exitCode()}
}

/** Where a transaction stands, as far as the exit code of several is concerned. */
export interface Outcome {
  final: boolean
  success: boolean
  /** Nothing more to wait for: a success, or final. */
  conclusive: boolean
}

/** A checkoutsuccess answer as an outcome: not final and not a success is worth waiting for. */
export function checkoutOutcome(answer: {status: string; success?: boolean}): Outcome {
  const final = isFinalStatus(answer.status)
  const success = answer.success === true
  return {final, success, conclusive: success || final}
}

/**
 * The exit code of several lookups: 1 when any failed (network, service, 404, or a line that is
 * not an id); else, when outcomes count (checkoutsuccess, status --wait), 3 when any is final and
 * not a success, 4 when any is not conclusive, 0 when all succeeded; else (status) 0.
 */
export function lookupsExitCode<T>(results: Iterable<LookupResult<T>>, outcome?: (value: T) => Outcome): number {
  const tally = new LookupTally(outcome)
  for (const result of results) tally.count(result)
  return tally.exitCode()
}
