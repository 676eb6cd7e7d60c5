/**
 * Values that documents (scenario files, fault files) write the same way, as zod schemas with
 * their JSON Schema ids: a transaction status, and a duration as `--wait-timeout` takes it.
 */
import * as z from 'zod'

import {STATUSES} from '../api/contract.js'
import {MAX_TIMER_MS, MAX_TIMER_TEXT, readDuration} from '../duration.js'

/** Durations: a number of seconds, or a number with a unit. */
export const DURATION_PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/
export const DURATION_HINT = 'a number of seconds, or a number with a unit: 500ms, 20s, 2m, 1h'

export const statusSchema = z
  .enum(STATUSES, {error: (issue) => `must be a transaction status (${STATUSES.join(', ')}); got ${JSON.stringify(issue.input)}`})
  .meta({id: 'status', description: 'A transaction status.'})

const DURATION_ERROR = `must be a duration greater than 0: ${DURATION_HINT}`
export const durationSchema = z
  .union([z.number().positive({error: DURATION_ERROR}), z.string().regex(DURATION_PATTERN, {error: DURATION_ERROR})], {error: DURATION_ERROR})
  // Every duration of a document ends up in a timer (a wait, a latency, a delay), and 1e21 would
  // read as no duration at all and be ignored.
  .refine((value) => (typeof value === 'number' ? value * 1000 : (readDuration(value) ?? 0)) <= MAX_TIMER_MS, {
    error: `can be at most ${MAX_TIMER_TEXT}, the longest paytx can wait`,
  })
  .meta({id: 'duration', description: `A duration: ${DURATION_HINT}.`})
