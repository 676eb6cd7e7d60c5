/**
 * Reading durations such as `--wait-timeout 10m`: a number with a unit (ms, s, m, h), or a bare
 * number of seconds.
 */
import {InputError} from '../api/errors.js'

const UNIT_MS: Record<string, number> = {ms: 1, s: 1000, m: 60_000, h: 3_600_000}

export function parseDuration(raw: string, flag: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(raw.trim())
  const ms = match ? Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 's']) : Number.NaN
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new InputError(`${flag} must be a duration greater than 0, such as 90s, 10m or 1h (got "${raw}").`, {flag})
  }
  return ms
}

