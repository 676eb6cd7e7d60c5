/** The readings (readings.ts) an `emulator verify` run took from what the service showed. */
import {type Difference, jsonType, valueAt} from './compare.js'
import {NO_READINGS, READINGS_VERSION, type Readings, type TimingReading, type TimingReadings, cardReadings, idKeysOf} from '../emulator-readings/readings.js'
import type {WebhookSighting} from './webhooks.js'

/** The dummy transaction's status on each side at the end, and how long the service took to move it, or kept it INITIATED. */
export interface FollowedStatus {
  real: string
  emulator: string
  /** From its creation to its last status change, by the service's own times (created_at, last_status_update). */
  realMovedAfterMs?: number
  /** Still INITIATED on the service this long after its creation, at least. */
  initiatedForMs?: number
}

interface Seen {
  profileName: string
  probes: {probe: string; real?: {status: number; body: unknown}}[]
  sightings?: {real: WebhookSighting}
  /** The dummy transaction followed to the end of --webhook-wait. */
  statuses?: FollowedStatus
  /** The header the service took the key in (undefined when it refused the key). */
  apiKeyHeader?: string
  additive: Difference[]
}

/** A field's form: its JSON type, and for a string the shape it has (a UUID, an ISO 8601 time, digits). */
export function formOf(value: unknown, type: string): string {
  if (typeof value !== 'string') return type
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) return 'string (UUID)'
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return 'string (ISO 8601 time)'
  if (/^\d+$/.test(value)) return 'string (digits)'
  return 'string'
}

type AdditiveField = Readings['additive'][number]

/**
 * A field only the service sent, and each field inside it (an object's fields, an array's first
 * item's), so that an emulator adding them all sends the same shape.
 */
function additiveFields(seen: Seen, difference: Difference): AdditiveField[] {
  const answer = difference.probe === 'webhook' ? undefined : seen.probes.find((probe) => probe.probe === difference.probe)?.real
  const body = difference.probe === 'webhook' ? seen.sightings?.real.body : answer?.body
  const status = answer ? {status: answer.status} : {}
  const fields: AdditiveField[] = []
  const walk = (value: unknown, path: string, depth: number) => {
    fields.push({request: difference.probe, ...status, path, form: formOf(value, jsonType(value))})
    if (depth > 8) return
    if (Array.isArray(value) && value.length > 0) walk(value[0], `${path}[]`, depth + 1)
    else if (value && typeof value === 'object' && !Array.isArray(value)) for (const [key, inner] of Object.entries(value)) walk(inner, `${path}.${key}`, depth + 1)
  }
  const value = difference.path.includes('[]') ? undefined : valueAt(body, difference.path)
  if (value === undefined) fields.push({request: difference.probe, ...status, path: difference.path, form: difference.real})
  else walk(value, difference.path, 0)
  return fields
}

const APPROVAL = "not seen: it follows an approval, which needs a payer on the service's approval page"
const tolerance = (ms: number) => Math.max(1000, Math.round(ms * 0.05))

/** The timings the run could observe: the dummy transaction's abandonment, the first webhook retry's wait. */
function timingOf(seen: Seen): TimingReadings {
  const notSeen = (how: string): TimingReading => ({seen: 'not-seen', value: null, tolerance: null, how})
  const {statuses} = seen
  const webhook = seen.sightings?.real
  let abandon = notSeen('not seen: the dummy transaction was not followed (no answer, or the key was refused)')
  if (statuses?.real === 'ABANDONED' && statuses.realMovedAfterMs !== undefined) {
    abandon = {seen: 'observed', value: statuses.realMovedAfterMs, tolerance: tolerance(statuses.realMovedAfterMs), how: "the dummy transaction became ABANDONED: from its created_at to its last_status_update, the service's own times"}
  } else if (statuses?.initiatedForMs !== undefined) {
    abandon = {seen: 'at-least', value: statuses.initiatedForMs, tolerance: null, how: 'the dummy transaction was still INITIATED this long after its creation (the end of --webhook-wait)'}
  } else if (statuses) {
    abandon = notSeen(`not seen: the dummy transaction went to ${statuses.real}, not ABANDONED`)
  }
  const retried = webhook?.retried === true && webhook.retryAfterMs !== undefined
  return {
    'abandon-after': abandon,
    'settle-after': notSeen(APPROVAL),
    'pending-for': notSeen(APPROVAL),
    'webhook-backoff': retried
      ? {seen: 'observed', value: webhook.retryAfterMs!, tolerance: tolerance(webhook.retryAfterMs!), how: "from the first delivery, answered 500, to its retry's arrival (one delivery's time included)"}
      : notSeen(webhook && webhook.attempts > 0 ? 'not seen: the delivery answered 500 was not sent again within --webhook-wait' : 'not seen: no webhook came'),
    'webhook-attempts': retried
      ? {seen: 'at-least', value: 2, tolerance: null, how: "sent again at least once: verify accepts the retry, so the sender's last attempt is not seen"}
      : notSeen(webhook && webhook.attempts > 0 ? 'not retried within --webhook-wait: see webhook-retries' : 'not seen: no webhook came'),
  }
}

function webhookBody(body: unknown): 'minimal' | 'full' {
  const record = body && typeof body === 'object' ? (body as Record<string, unknown>) : {}
  return 'status' in record || 'amount' in record ? 'full' : 'minimal'
}

export function readingsOf(seen: Seen): Readings {
  const card = seen.probes.find((probe) => probe.probe === 'card' && probe.real && probe.real.status >= 200 && probe.real.status < 300)
  const fromCard = card ? cardReadings(card.real!.body) : {'id-keys': null, 'card-record': null}
  const webhook = seen.sightings?.real
  const seenWebhook = webhook !== undefined && webhook.attempts > 0
  return {
    version: READINGS_VERSION,
    profile: seen.profileName,
    taken_at: new Date().toISOString(),
    assumptions: {
      ...NO_READINGS,
      'id-keys': fromCard['id-keys'] ?? (seenWebhook ? idKeysOf(webhook.body) : null),
      'card-record': fromCard['card-record'],
      'webhook-body': seenWebhook ? webhookBody(webhook.body) : null,
      'webhook-retries': seenWebhook ? (webhook.retried ? 'retried' : 'not-retried') : null,
      'api-key-header': seen.apiKeyHeader ?? null,
    },
    additive: seen.additive.flatMap((difference) => additiveFields(seen, difference)),
    timing: timingOf(seen),
  }
}
