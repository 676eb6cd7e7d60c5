/**
 * A value a command cannot do without: given as a flag (or answered at a prompt before parsing),
 * else an input error that names the flag and what it takes. Nothing has been sent at that point.
 */
import {InputError} from '../errors.js'
import type {Remedy} from '../remedy.js'

/** `remedy`: how to give the value for good (a profile setting), said after the hint. */
export function requireFlag(flag: string, value: string | undefined, allowed?: string, remedy?: Remedy): string {
  if (value !== undefined && value !== '') return value
  throw new InputError(`${flag} is required${allowed ? ` (${allowed})` : ''}.`, {
    flag,
    hint: 'Pass it as a flag; paytx asks for missing values only when a person is at the terminal (not with --no-input, --json or in CI).',
    remedy,
  })
}
