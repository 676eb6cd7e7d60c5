/**
 * One line per emulator webhook delivery, for `paytx emulator trigger|resend`: status, address
 * (query values hidden: they often hold a token) and how its first attempt went.
 */
import {displayWebhookUrl} from '../emulator/index.js'
import type {WebhookDelivery} from '../emulator/store/index.js'
import {visibleText} from '../terminal/visible-text.js'

export function describeAttempt(delivery: WebhookDelivery): string {
  const attempt = delivery.attempts.at(-1)
  if (!attempt) return 'not attempted yet (it goes out after the earlier webhooks to this address)'
  // The error is the receiver's or the network's, read back from the emulator: made visible.
  const answer = attempt.http_status === undefined ? visibleText(attempt.error ?? 'no answer') : `HTTP ${attempt.http_status}`
  const outcome = delivery.state === 'delivered' ? 'delivered' : delivery.state === 'failed' ? 'gave up' : 'will retry'
  return `attempt ${attempt.attempt}: ${answer}, ${outcome} (${attempt.duration_ms} ms)`
}

export function renderDeliveryLine(delivery: WebhookDelivery): string {
  return `webhook ${visibleText(delivery.status)} → ${visibleText(displayWebhookUrl(delivery.url))}  ${describeAttempt(delivery)}`
}

/** A delivery the receiver has not (yet) accepted. */
export function isUndelivered(delivery: WebhookDelivery): boolean {
  return delivery.state !== 'delivered'
}
