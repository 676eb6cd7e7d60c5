/** The readings (readings.ts) an `emulator verify` run took from what the service showed. */
import type {Difference} from './compare.js'
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
    additive: seen.additive.map((difference) => ({request: difference.probe, path: difference.path, form: difference.real})),
  }
}
