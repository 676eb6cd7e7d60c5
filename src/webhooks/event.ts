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

/** Receivers de-duplicate by (transaction id, status): the same status may be delivered twice. */
export function webhookDedupKey(event: WebhookEvent): string | undefined {
  if (!event.transactionId) return undefined
  return `${event.transactionId}\u0000${event.status ?? ''}`
}

/**
 * Remembers the (transaction id, status) pairs seen so far and says whether one is a repeat.
 * Bounded so that a long-running listener keeps a flat memory profile: pairs are kept in two
 * generations of `capacity / 2` each, and the older generation is dropped whole when the newer
 * one fills, so a pair is remembered for at least the next `capacity / 2` webhooks and every
 * check stays O(1).
 */
export class DuplicateDetector {
  private current = new Set<string>()
  private previous = new Set<string>()
  private readonly generationSize: number

  constructor(capacity = 100_000) {
    this.generationSize = Math.max(1, Math.floor(capacity / 2))
  }

  /** True when this event's (transaction id, status) was seen before; events without either are never duplicates. */
  isDuplicate(event: WebhookEvent): boolean {
    if (!event.status) return false
    const key = webhookDedupKey(event)
    if (key === undefined) return false
    if (this.current.has(key) || this.previous.has(key)) return true
    if (this.current.size >= this.generationSize) {
      this.previous = this.current
      this.current = new Set()
    }
    this.current.add(key)
    return false
  }
}

/** Webhook bodies larger than this are refused with 413 (the flow's listener; `webhook listen --max-body` by default). */
export const WEBHOOK_BODY_LIMIT_BYTES = 1024 * 1024
