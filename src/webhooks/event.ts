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
 * Remembers the statuses seen per transaction for the transactions heard of most recently, so a
 * long-running listener keeps a flat memory profile while a transaction still in motion is not
 * forgotten. Transactions are kept in two generations of `maxTransactions / 2`: one heard of
 * again moves to the newer generation, and the older one is dropped whole when the newer fills.
 * (A single Map in least-recently-used order would be simpler, but V8 makes finding its oldest
 * entry slow after many deletions.) Every check is O(1).
 */
export class DuplicateDetector {
  private current = new Map<string, string[]>()
  private previous = new Map<string, string[]>()
  private readonly generationSize: number

  /**
   * Retries of a webhook come within its transaction's life, long before 10,000 other
   * transactions pass by; more would only hold more memory (the bench measures it).
   */
  constructor(maxTransactions = 20_000) {
    this.generationSize = Math.max(1, Math.floor(maxTransactions / 2))
  }

  /** True when this event's (transaction id, status) was seen before; events without either are never duplicates. */
  isDuplicate(event: WebhookEvent): boolean {
    const {transactionId, status} = event
    if (!status || !transactionId) return false
    const statuses = this.current.get(transactionId) ?? this.remember(transactionId)
    if (statuses.includes(status)) return true
    statuses.push(status)
    if (statuses.length > STATUSES_PER_TRANSACTION) statuses.shift()
    return false
  }

  /** The statuses of a transaction not heard of in this generation: carried over from the last one, or none yet. */
  private remember(transactionId: string): string[] {
    const statuses = this.previous.get(transactionId) ?? []
    if (this.current.size >= this.generationSize) {
      this.previous = this.current
      this.current = new Map()
    }
    this.current.set(transactionId, statuses)
    return statuses
  }
}

/** Webhook bodies larger than this are refused with 413 (the flow's listener; `webhook listen --max-body` by default). */
export const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024
