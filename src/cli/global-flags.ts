/**
 * What every paytx command shares before it runs: the global flags (--profile, --verbose,
 * --timeout, --no-input), their checks, and the exit codes every command's --help lists.
 */
import * as Flags from '@oclif/core/flags'

import {MAX_TIMER_MS} from '../duration.js'
import {InputError} from '../errors.js'

export const EXIT_CODES_HELP = `EXIT CODES
  0    done; for outcome commands, the payment succeeded
  1    the service or the network failed
  2    the input was wrong, or a confirmation was declined; nothing was sent
  3    the payment is final and not a success
  4    waiting ran out before a final status
  130  interrupted (Ctrl-C or SIGTERM)`

/** The flags every command takes, shown under GLOBAL in --help. */
export const GLOBAL_FLAGS = {
  profile: Flags.string({
    summary: 'Profile to use (default: the active profile, or PAYTX_PROFILE).',
    helpGroup: 'GLOBAL',
  }),
  verbose: Flags.boolean({
    summary: 'Log requests and responses to stderr, with keys, PAN and CVV redacted.',
    helpGroup: 'GLOBAL',
    default: false,
  }),
  timeout: Flags.string({
    summary: 'Seconds to wait for each request to the service.',
    helpGroup: 'GLOBAL',
    default: '30',
  }),
  'no-input': Flags.boolean({
    summary: 'Never prompt; a missing value is an error.',
    helpGroup: 'GLOBAL',
    default: false,
  }),
}

/** The global flags, parsed and checked once in `init()`. */
export interface GlobalOptions {
  profile?: string
  verbose: boolean
  requestTimeoutMs: number
  noInput: boolean
}

/** The global flags as oclif parsed them, checked: an InputError (exit 2) names a wrong one. */
export function globalOptionsOf(flags: {profile?: string; verbose: boolean; timeout: string; 'no-input': boolean}): GlobalOptions {
  return {profile: flags.profile, verbose: flags.verbose, requestTimeoutMs: parseRequestTimeout(flags.timeout), noInput: flags['no-input']}
}

/** PAYTX_MAX_RESPONSE_BYTES: the size above which an answer of the service is cut off and reported. */
export function maxResponseBytes(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.PAYTX_MAX_RESPONSE_BYTES
  if (raw === undefined || raw === '') return undefined
  if (!/^\d+$/.test(raw.trim()) || Number(raw) <= 0) {
    throw new InputError(`PAYTX_MAX_RESPONSE_BYTES must be a whole number of bytes greater than 0 (got "${raw}").`, {
      hint: 'For example PAYTX_MAX_RESPONSE_BYTES=52428800 allows answers of up to 50 MB.',
    })
  }
  return Number(raw)
}

/** --timeout in seconds, as milliseconds; anything but a positive number is an input error. */
export function parseRequestTimeout(raw: string): number {
  const seconds = Number(raw)
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new InputError(`--timeout must be a number of seconds greater than 0 (got "${raw}").`, {flag: '--timeout'})
  }
  if (seconds * 1000 > MAX_TIMER_MS) {
    throw new InputError(`--timeout can be at most ${Math.floor(MAX_TIMER_MS / 1000)} seconds (about 24.8 days), the longest paytx can wait (got "${raw}").`, {flag: '--timeout'})
  }
  return Math.round(seconds * 1000)
}
