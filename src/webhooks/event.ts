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

/** More statuses than a transaction can pass through: a sender inventing new ones cannot grow an entry. */
const STATUSES_PER_TRANSACTION = 16

/**
 * Receivers de-duplicate by (transaction id, status): the same status may be delivered twice.
 * Remembers the statuses seen per transaction, for the `maxTransactions` transactions heard of
 * most recently (a Map in least-recently-used order), so a long-running listener keeps a flat
 * memory profile while a transaction still in motion is never forgotten, and each check is O(1).
 */
export class DuplicateDetector {
  private readonly statusesByTransaction = new Map<string, string[]>()

  constructor(private readonly maxTransactions = 50_000) {}

  /** True when this event's (transaction id, status) was seen before; events without either are never duplicates. */
  isDuplicate(event: WebhookEvent): boolean {
    const {transactionId, status} = event
    if (!status || !transactionId) return false
    const seen = this.statusesByTransaction.get(transactionId)
    if (seen) {
      // Moved to the most recent end.
      this.statusesByTransaction.delete(transactionId)
      this.statusesByTransaction.set(transactionId, seen)
      if (seen.includes(status)) return true
      seen.push(status)
      if (seen.length > STATUSES_PER_TRANSACTION) seen.shift()
      return false
    }
    this.statusesByTransaction.set(transactionId, [status])
    if (this.statusesByTransaction.size > this.maxTransactions) {
      this.statusesByTransaction.delete(this.statusesByTransaction.keys().next().value!)
    }
    return false
  }
}

/** Webhook bodies larger than this are refused with 413 (the flow's listener; `webhook listen --max-body` by default). */
export const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024
