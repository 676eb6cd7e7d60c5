/**
 * Durations as people type them on the command line: `500ms`, `3s`, `7m`, `1h`, or a plain
 * number of seconds (`2.5`).
 */
const UNITS: Record<string, number> = {ms: 1, s: 1000, m: 60_000, h: 3_600_000}

export const DURATION_HELP = 'a duration such as 500ms, 3s, 7m or 1h; a plain number means seconds'

/** Milliseconds, or undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(text)
  if (!match) return undefined
  const value = Number(match[1]) * UNITS[(match[2] ?? 's').toLowerCase()]
  return Number.isFinite(value) ? Math.round(value) : undefined
}
