/** What `webhook replay` shows for each delivery: one line drawn from its NDJSON object. */
import type {ReplayedDelivery} from '../webhooks/replay.js'

export function renderReplayedDelivery(delivery: ReplayedDelivery): string {
  const answer = delivery.http_status === undefined ? `failed: ${delivery.error ?? 'no answer'}` : `${delivery.ok ? '' : 'failed: '}HTTP ${delivery.http_status}`
  return [`seq ${delivery.seq}`, delivery.status ?? delivery.type, delivery.transaction_id ?? '(no transaction id)', `→ ${answer}`, `${delivery.duration_ms}ms`].join('  ')
}
