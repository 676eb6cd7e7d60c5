/**
 * Real-looking secrets for leak checks, and the assertion that none of them appears in a
 * command's stdout or stderr (normal, --json and --verbose output alike).
 */
import {expect} from 'vitest'

import type {CliResult} from './cli.js'

export const API_KEY = 'sk_live_51Hx9TqLkd83JfPq02nVbXcR7'
export const PROXY_KEY = 'tx_proxy_7Yh2LmQ9wE4rT6uI8oP1aS3d'
export const PAN = '4024007108173153'
export const CVV = '9371'

/**
 * A short digit secret (a CVV) as a value of its own: not inside an id, a hex string or a time
 * (`…-a937f…`, `.937Z`), where three digits turn up by chance.
 */
export function standaloneDigits(secret: string): RegExp {
  return new RegExp(`(?<![\\w.-])${secret}(?![\\w-])`)
}

/** Fails when a full secret shows up; short digit secrets (CVV) only as a value of their own. */
export function expectNoSecrets(result: Pick<CliResult, 'stdout' | 'stderr'>, secrets: readonly string[] = [API_KEY, PROXY_KEY, PAN, CVV]): void {
  for (const secret of secrets) {
    const pattern = /^\d{3,4}$/.test(secret) ? standaloneDigits(secret) : new RegExp(secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    expect(result.stdout, `stdout leaks ${secret}`).not.toMatch(pattern)
    expect(result.stderr, `stderr leaks ${secret}`).not.toMatch(pattern)
  }
}
