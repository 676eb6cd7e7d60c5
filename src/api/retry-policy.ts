/**
 * When paytx tries a request again: never once a request that is not a GET may have reached the
 * service; GETs after network errors, 5xx and 429, after Retry-After or an exponential back-off.
 */
import type {HttpMethod} from './http-message.js'

/** A Retry-After longer than this is not waited for in full. */
const MAX_RETRY_AFTER_MS = 30_000

/** Parses Retry-After (seconds or an HTTP date) into milliseconds. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value
  if (!text) return undefined
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000
  const date = Date.parse(text)
  return Number.isNaN(date) ? undefined : Math.max(0, date - now)
}

/** What one attempt came to, as far as retrying is concerned. */
export type AttemptOutcome =
  | {kind: 'answered'; status: number; retryAfterMs?: number}
  | {
      kind: 'failed'
      /** The connection failed while being opened: not a byte of the request was sent. */
      beforeSending: boolean
      /** The client was destroyed (paytx is stopping). */
      clientDestroyed?: boolean
      /** Trying again cannot help (the service's certificate is not trusted). */
      permanent?: boolean
    }

export interface RetryPolicy {
  /** Attempts in all. */
  maxTries: number
  /** Base of the exponential back-off, in ms. */
  backoffBaseMs: number
  /** A number in [0, 1) that spreads the back-off (jitter). */
  random: () => number
}

export type RetryDecision = {retry: false} | {retry: true; delayMs: number}

/**
 * Whether to try again after `attempt` (1 for the first), and after how long. GETs are retried on
 * network errors, 5xx and 429 (after Retry-After when the service sent one, capped, else after an
 * exponential back-off). A POST is retried only when its connection failed before anything was
 * sent: once a body may have reached the service, sending it again could charge twice.
 */
export function shouldRetry(method: HttpMethod, outcome: AttemptOutcome, attempt: number, policy: RetryPolicy): RetryDecision {
  if (attempt >= policy.maxTries) return {retry: false}
  const backoff = (): RetryDecision => ({retry: true, delayMs: Math.round(policy.backoffBaseMs * 2 ** (attempt - 1) * (0.5 + policy.random()))})
  if (outcome.kind === 'failed') {
    if (outcome.clientDestroyed || outcome.permanent) return {retry: false}
    return method === 'GET' || outcome.beforeSending ? backoff() : {retry: false}
  }
  if (method !== 'GET' || !(outcome.status >= 500 || outcome.status === 429)) return {retry: false}
  return outcome.retryAfterMs === undefined ? backoff() : {retry: true, delayMs: Math.min(outcome.retryAfterMs, MAX_RETRY_AFTER_MS)}
}
