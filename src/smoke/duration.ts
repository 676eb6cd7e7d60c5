/**
 * Durations in scenario files: a number of seconds (`30`, `1.5`) or a number with a unit
 * (`500ms`, `20s`, `2m`, `1h`), the forms CI configuration files use.
 */

export const DURATION_PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/
export const DURATION_HINT = 'a number of seconds, or a number with a unit: 500ms, 20s, 2m, 1h'

const UNIT_MS = {ms: 1, s: 1000, m: 60_000, h: 3_600_000} as const

/** Milliseconds, or undefined when the value is not a duration greater than zero. */
export function parseDuration(value: number | string): number | undefined {
  let ms: number
  if (typeof value === 'number') {
    ms = value * 1000
  } else {
    const match = DURATION_PATTERN.exec(value.trim())
    if (!match) return undefined
    ms = Number(match[1]) * UNIT_MS[(match[2] ?? 's') as keyof typeof UNIT_MS]
  }
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : undefined
}

/** 850 ms, 3.2 s, 2 min 5 s: how durations are shown. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const minutes = Math.floor(ms / 60_000)
  const seconds = Math.round((ms % 60_000) / 1000)
  return seconds === 0 ? `${minutes} min` : `${minutes} min ${seconds} s`
}
