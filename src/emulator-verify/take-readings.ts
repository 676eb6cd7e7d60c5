/** The readings (readings.ts) an `emulator verify` run took from what the service showed. */
import {type Difference, valueAt} from './compare.js'
import {NO_READINGS, READINGS_VERSION, type Readings, cardReadings, idKeysOf} from '../emulator-readings/readings.js'
import type {WebhookSighting} from './webhooks.js'

interface Seen {
  profileName: string
  probes: {probe: string; real?: {status: number; body: unknown}}[]
  sightings?: {real: WebhookSighting}
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

function additiveField(seen: Seen, difference: Difference): Readings['additive'][number] {
  const body = difference.probe === 'webhook' ? seen.sightings?.real.body : seen.probes.find((probe) => probe.probe === difference.probe)?.real?.body
  return {request: difference.probe, path: difference.path, form: formOf(valueAt(body, difference.path), difference.real)}
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
    additive: seen.additive.map((difference) => additiveField(seen, difference)),
  }
}
