/**
 * Durations: read as people type them on the command line and in scenario files (`500ms`, `3s`,
 * `7m`, `1h`, units in any case, or a plain number of seconds such as `2.5`), and written back
 * exactly (flag defaults) or for people (elapsed times).
 */
import {InputError} from './errors.js'

const UNIT_MS: Record<string, number> = {ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000}

export const DURATION_HELP = 'a duration such as 500ms, 3s, 7m or 1h; a plain number means seconds'

/**
 * The longest a timer can wait: Node's timers hold a signed 32-bit count of milliseconds, and a
 * longer one fires at once (with a TimeoutOverflowWarning), which turns a wait into a busy loop.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1
/** MAX_TIMER_MS as a message says it, with the largest whole hours to type. */
export const MAX_TIMER_TEXT = `${Math.floor(MAX_TIMER_MS / 3_600_000)}h (${MAX_TIMER_MS}ms, about 24.8 days)`

/** Milliseconds (0 included), or undefined when the text is not a duration. */
export function readDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(text)
  if (!match) return undefined
  const ms = Number(match[1]) * UNIT_MS[(match[2] ?? 's').toLowerCase()]
  return Number.isFinite(ms) ? Math.round(ms) : undefined
}

/**
 * A flag's duration in milliseconds. Anything else, and 0 unless `allowZero` (an emulator delay
 * of 0 means "at once"; a timeout of 0 would mean nothing), is an input error naming the flag; so
 * is a duration over `max`, by default the longest a timer can wait (a flag that is no timer, such
 * as how far back to look, passes Infinity).
 */
export function parseDuration(raw: string, flag: string, {allowZero = false, max = MAX_TIMER_MS}: {allowZero?: boolean; max?: number} = {}): number {
  const ms = readDuration(raw)
  if (ms !== undefined && ms > max) {
    const largest = max === MAX_TIMER_MS ? MAX_TIMER_TEXT : formatExactDuration(max)
    throw new InputError(`${flag} can be at most ${largest}, the longest paytx can wait (got "${raw}").`, {flag})
  }
  if (ms !== undefined && (ms > 0 || allowZero)) return ms
  throw new InputError(
    allowZero ? `${flag} must be ${DURATION_HELP} (got "${raw}").` : `${flag} must be a duration greater than 0, such as 90s, 10m or 1h (got "${raw}").`,
    {flag},
  )
}

/** The shortest text that readDuration reads back as exactly `ms` (7m, 3s, 1500ms), for defaults shown as flag values. */
export function formatExactDuration(ms: number): string {
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`
  if (ms % 1000 === 0 && ms > 0) return `${ms / 1000}s`
  return `${ms}ms`
}
/** Durations for people: 840 → "840 ms", 3210 → "3.2 s", 75000 → "1m15s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const minutes = Math.floor(ms / 60_000)
  const seconds = Math.round((ms % 60_000) / 1000)
  return seconds === 0 ? `${minutes}m` : `${minutes}m${seconds}s`
}

/** How long ago, as gh shows times on a terminal: "just now", "42s ago", "5m ago", "3h ago", "12d ago". */
export function formatAge(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000))
  if (seconds < 5) return 'just now'
  if (seconds < 60) return `${seconds}s ago`
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`
  return `${Math.floor(seconds / 86_400)}d ago`
}
