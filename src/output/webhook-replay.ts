/** What `webhook replay` shows for each delivery: one line drawn from its NDJSON object. */
import {visibleText} from '../terminal/visible-text.js'
import type {ReplayedDelivery} from '../webhooks/replay.js'

/**
 * Status, type and transaction id come from the save file, the error from the receiver: each is
 * made visible, so that a saved webhook cannot write the clipboard, retitle or clear the terminal.
 */
export function renderReplayedDelivery(delivery: ReplayedDelivery): string {
  const answer = delivery.http_status === undefined ? `failed: ${delivery.error ?? 'no answer'}` : `${delivery.ok ? '' : 'failed: '}HTTP ${delivery.http_status}`
  return [`seq ${delivery.seq}`, delivery.status ?? delivery.type, delivery.transaction_id ?? '(no transaction id)', `→ ${answer}`, `${delivery.duration_ms}ms`].map(visibleText).join('  ')
}
