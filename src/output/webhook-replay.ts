/** What `webhook replay` shows for each delivery: one line drawn from its NDJSON object. */
import {visibleText} from '../terminal/visible-text.js'
import type {ReplayedDelivery} from '../webhooks/replay.js'
import {wrapHanging} from './wrap.js'

/**
 * Status, type and transaction id come from the save file, the error from the receiver: each is
 * made visible, so that a saved webhook cannot write the clipboard, retitle or clear the terminal.
 * On a terminal (`width`) the line is broken between words, continuations indented by two (a
 * transaction id is never cut); in a pipe it stays one line.
 */
export function renderReplayedDelivery(delivery: ReplayedDelivery, width?: number): string {
  const answer = delivery.http_status === undefined ? `failed: ${delivery.error ?? 'no answer'}` : `${delivery.ok ? '' : 'failed: '}HTTP ${delivery.http_status}`
  const line = [`seq ${delivery.seq}`, delivery.status ?? delivery.type, delivery.transaction_id ?? '(no transaction id)', `→ ${answer}`, `${delivery.duration_ms}ms`]
    .map(visibleText)
    .join('  ')
  return wrapHanging(line, width, 2).join('\n')
}
