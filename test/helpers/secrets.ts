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

/** Fails when a full secret shows up; short digit secrets (CVV) only as a number of their own. */
export function expectNoSecrets(result: CliResult, secrets: readonly string[] = [API_KEY, PROXY_KEY, PAN, CVV]): void {
  for (const secret of secrets) {
    const pattern = /^\d{3,4}$/.test(secret) ? new RegExp(`(?<!\\d)${secret}(?!\\d)`) : new RegExp(secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    expect(result.stdout, `stdout leaks ${secret}`).not.toMatch(pattern)
    expect(result.stderr, `stderr leaks ${secret}`).not.toMatch(pattern)
  }
}
