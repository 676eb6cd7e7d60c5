/**
 * What the emulator reports while it runs: one event per request, per status change, per
 * webhook delivery attempt and per fault applied on purpose. The terminal shows them as lines, `--json` as NDJSON. No event
 * carries a key, a PAN or a CVV: requests are reported by method, path and status only.
 */
import {redactUrl} from '../secrets/redact-url.js'

export interface RequestEvent {
  event: 'request'
  time: string
  method: string
  /** The path without its query string. */
  path: string
  status: number
  duration_ms: number
}

export interface StatusEvent {
  event: 'status'
  time: string
  transaction: string
  from: string | null
  to: string
  reason: string
}

export interface WebhookAttemptEvent {
  event: 'webhook'
  time: string
  delivery: string
  transaction: string
  status: string
  /** The receiver's address with query values redacted (they often carry a secret token). */
  url: string
  attempt: number
  attempts: number
  outcome: 'delivered' | 'retrying' | 'failed'
  http_status?: number
  error?: string
  retry_in_ms?: number
  duration_ms: number
}

/** A fault rule applied on purpose (`--faults`, `/_emulator/faults`). */
export interface FaultEvent {
  event: 'fault'
  time: string
  /** The rule's id (`f1`) and name, if it has one. */
  rule: string
  name?: string
  fault: string
  on: 'request' | 'webhook'
  method?: string
  path?: string
  transaction?: string
  status?: string
  delivery?: string
  /** What was done, in a few words: `HTTP 503, Retry-After 2s`. */
  effect: string
}

export type EmulatorEvent = RequestEvent | StatusEvent | WebhookAttemptEvent | FaultEvent

/**
 * A webhook address for logs and for callers without the API key: user and password dropped,
 * query values and token-like path segments hidden, the rest kept to recognise it.
 */
export function displayWebhookUrl(url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return '(invalid URL)'
  }
  parsed.username = ''
  parsed.password = ''
  return redactUrl(parsed)
}

export function formatEvent(event: EmulatorEvent): string {
  switch (event.event) {
    case 'request':
      return `${event.time}  ${event.method.padEnd(4)} ${event.path}  ${event.status}  ${event.duration_ms}ms`
    case 'status':
      return `${event.time}  transaction ${event.transaction}  ${event.from ?? '(new)'} → ${event.to}${event.reason ? `  (${event.reason})` : ''}`
    case 'webhook': {
      const result = event.http_status === undefined ? (event.error ?? 'no answer') : `HTTP ${event.http_status}`
      const next =
        event.outcome === 'delivered' ? 'delivered' : event.outcome === 'retrying' ? `retry in ${event.retry_in_ms}ms` : 'gave up'
      return `${event.time}  webhook ${event.status} for ${event.transaction} → ${event.url}  attempt ${event.attempt}/${event.attempts}: ${result}, ${next}  ${event.duration_ms}ms`
    }
    case 'fault': {
      const target = event.on === 'request' ? `${event.method} ${event.path}` : `webhook ${event.status} for ${event.transaction}`
      return `${event.time}  fault ${event.rule}${event.name ? ` (${event.name})` : ''} ${event.fault} on ${target}: ${event.effect}`
    }
  }
}
