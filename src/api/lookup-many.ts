/**
 * Many read-only lookups at once (support staff with a list of ids from tickets): at most
 * `concurrency` in flight, results in input order, each a value or the error it ended with.
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
  /** Called after each id is settled (for a progress line). */
  onSettled?: (done: number, total: number, failed: number) => void
}

function errorJson(error: unknown): ErrorJson {
  if (error instanceof PaytxError) return error.toJSON()
  return {kind: 'internal', exitCode: EXIT.service, message: error instanceof Error ? error.message : String(error)}
}

export async function lookUpMany<T>(targets: readonly IdTarget[], lookup: (id: string) => Promise<T>, options: LookupManyOptions): Promise<LookupResult<T>[]> {
  const results: LookupResult<T>[] = Array.from({length: targets.length})
  let next = 0
  let done = 0
  let failed = 0
  const settle = (index: number, result: LookupResult<T>) => {
    results[index] = result
    done++
    if (result.error) failed++
    options.onSettled?.(done, targets.length, failed)
  }
  const worker = async () => {
    while (next < targets.length) {
      const index = next++
      const {id, where, problem} = targets[index]
      if (problem) {
        settle(index, {id, error: new InputError(`"${id}" (${where}) is not a transaction id: ${problem}; it was not sent.`).toJSON()})
        continue
      }
      try {
        settle(index, {id, value: await lookup(id)})
      } catch (error) {
        settle(index, {id, error: errorJson(error)})
      }
    }
  }
  await Promise.all(Array.from({length: Math.min(options.concurrency, targets.length)}, worker))
  return results
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
export function lookupsExitCode<T>(results: readonly LookupResult<T>[], outcome?: (value: T) => Outcome): number {
  if (results.some((result) => result.error)) return EXIT.service
  if (!outcome) return EXIT.ok
  const outcomes = results.map((result) => outcome(result.value!))
  if (outcomes.some((each) => each.final && !each.success)) return EXIT.notSuccess
  if (outcomes.some((each) => !each.conclusive)) return EXIT.notFinal
  return EXIT.ok
}
