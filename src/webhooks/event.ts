/**
 * Reading a transaction webhook the way every known client does: `type` when present, the id
 * from `id` or `_id`, and the status if the body carries one (it may not: receivers re-fetch the
 * transaction and trust that). Shared by `webhook listen` and the flow's listener.
 */
import {readId} from '../api/contract.js'

export interface WebhookEvent {
  type: string
  transactionId?: string
  status?: string
  body: unknown
}

export function readWebhookEvent(body: unknown): WebhookEvent {
  const object = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
  return {
    type: typeof object.type === 'string' ? object.type : 'transaction',
    transactionId: readId(object),
    status: typeof object.status === 'string' ? object.status : undefined,
    body,
  }
}

/** Webhook bodies larger than this are refused with 413 (the flow's listener; `webhook listen --max-body` by default). */
export const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024

/**
 * Whether the service had moved on from what a webhook is about by the time its transaction was
 * read back: the status it reports is not the one the body carries, or (a body without a status)
 * the service reached that status after the webhook came, so it is not the status the webhook
 * was sent for. That last one compares the service's last_status_update with this machine's
 * clock at arrival: exact against the emulator (one clock), shifted by any skew against a remote
 * service.
 */
export function serviceMovedOn(event: Pick<WebhookEvent, 'status'>, receivedAt: string, service: {status?: string; updatedAt?: string}): boolean {
  if (service.status === undefined) return false
  if (event.status !== undefined) return service.status !== event.status
  if (service.updatedAt === undefined) return false
  const updated = Date.parse(service.updatedAt)
  const received = Date.parse(receivedAt)
  return Number.isFinite(updated) && Number.isFinite(received) && updated > received
}
