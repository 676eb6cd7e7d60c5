/**
 * Driving a transaction by hand, as the processor would: `trigger` moves it to a status (only
 * along the state table unless forced) and sends that status's webhook; `resend` sends webhooks
 * it was already sent once more, to its address or another. Used by the admin routes under
 * /_emulator/ (and so by `paytx emulator trigger|resend` and the dashboard).
 */
import {FINAL_STATUSES, STATUSES, type TransactionStatus, isKnownStatus} from '../../api/contract.js'
import {isAbsoluteHttpUrl} from '../../http/url.js'
import type {Clock, TransactionLifecycle} from '../time/index.js'
import {ApiError} from '../http-exchange.js'
import {type EmulatorStore, type OutboxDelivery, type WebhookDelivery, timeOrderedUuid, webhookBody} from '../store/index.js'
import type {AssumptionSettings} from '../assumptions.js'

/**
 * The moves a processor makes, from each status (the spec shows none beyond creation; these
 * follow the states' meanings in service-api.md and api-notes.md). Final statuses move nowhere.
 */
export const ALLOWED_MOVES: Record<TransactionStatus, readonly TransactionStatus[]> = {
  INITIATED: ['IN_PROGRESS', 'PENDING', 'SETTLEMENT_REQUESTED', 'CANCELLED', 'DECLINED', 'FAILED', 'ABANDONED', 'UNKNOWN'],
  IN_PROGRESS: ['PENDING', 'SETTLEMENT_REQUESTED', 'CANCELLED', 'DECLINED', 'FAILED', 'ABANDONED', 'UNKNOWN'],
  PENDING: ['SETTLEMENT_REQUESTED', 'CANCELLED', 'DECLINED', 'FAILED', 'UNKNOWN'],
  // "this request can be cancelled"; "a very small chance of still failing".
  SETTLEMENT_REQUESTED: ['SETTLEMENT_COMPLETED', 'CANCELLED', 'FAILED', 'UNKNOWN'],
  // Critical, not final: it resolves to whatever the processor finds.
  UNKNOWN: ['PENDING', 'SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED', 'CANCELLED', 'DECLINED', 'FAILED', 'ABANDONED'],
  SETTLEMENT_COMPLETED: [],
  CANCELLED: [],
  DECLINED: [],
  FAILED: [],
  ABANDONED: [],
}

/** Why the state table refuses the move, or undefined when it allows it. */
export function moveProblem(from: string, to: TransactionStatus): string | undefined {
  if (!isKnownStatus(from)) return undefined
  if (ALLOWED_MOVES[from].includes(to)) return undefined
  if (from === to) return `The transaction is already ${from}.`
  if (FINAL_STATUSES.includes(from)) return `The transaction is ${from}, a final status: it moves nowhere.`
  return `${from} does not move to ${to}; from ${from} a transaction moves to ${ALLOWED_MOVES[from].join(', ')}.`
}

export interface TriggerRequest {
  status: TransactionStatus
  reason?: string
  force?: boolean
}

export interface TriggerResult {
  transaction: string
  from: string
  to: TransactionStatus
  forced: boolean
  /** The deliveries this move queued (none when the transaction has no webhook address). */
  deliveries: WebhookDelivery[]
}

/** Reads a trigger request body, naming the field at fault (400). */
export function parseTriggerRequest(body: Record<string, unknown>): TriggerRequest {
  const {status, reason, force} = body
  if (typeof status !== 'string' || !isKnownStatus(status)) {
    throw new ApiError(400, 'The request is not valid: status.', {'body.status': `must be one of ${STATUSES.join(', ')}`})
  }
  if (reason !== undefined && typeof reason !== 'string') throw new ApiError(400, 'The request is not valid: reason.', {'body.reason': 'must be a string'})
  if (force !== undefined && typeof force !== 'boolean') throw new ApiError(400, 'The request is not valid: force.', {'body.force': 'must be true or false'})
  return {status, ...(reason ? {reason} : {}), force: force === true}
}

function unknownTransaction(id: string): ApiError {
  return new ApiError(404, `No transaction has the id ${JSON.stringify(id)}.`, {'params.transaction_id': 'unknown transaction'})
}

/** Queued deliveries of the transaction that were not there before `change` ran. */
function deliveriesQueuedBy(store: EmulatorStore, id: string, change: () => void): WebhookDelivery[] {
  const before = new Set(store.deliveries(id).map((delivery) => delivery.id))
  change()
  return store.deliveries(id).filter((delivery) => !before.has(delivery.id))
}

/** Moves the transaction (409 when the state table refuses and it is not forced). */
export function triggerStatus(store: EmulatorStore, lifecycle: TransactionLifecycle, id: string, request: TriggerRequest): TriggerResult {
  lifecycle.catchUp(id)
  let from: string | undefined
  const deliveries = deliveriesQueuedBy(store, id, () => {
    from = lifecycle.trigger(id, request.status, {
      reason: request.reason,
      by: request.force ? 'trigger --force' : 'trigger',
      check(current) {
        const problem = request.force ? undefined : moveProblem(current, request.status)
        if (problem) throw new ApiError(409, `${problem} Send "force": true to move it all the same.`, {'body.status': problem})
      },
    })
  })
  if (from === undefined) throw unknownTransaction(id)
  return {transaction: id, from, to: request.status, forced: request.force === true, deliveries}
}

export interface ResendRequest {
  /** Every webhook of the transaction, not only the last. */
  all?: boolean
  /** Another address to send them to. */
  to?: string
}

export function parseResendRequest(body: Record<string, unknown>): ResendRequest {
  const {all, to} = body
  if (all !== undefined && typeof all !== 'boolean') throw new ApiError(400, 'The request is not valid: all.', {'body.all': 'must be true or false'})
  if (to !== undefined && (typeof to !== 'string' || !isAbsoluteHttpUrl(to))) {
    throw new ApiError(400, 'The request is not valid: to.', {'body.to': 'must be an absolute http(s) URL'})
  }
  return {all: all === true, ...(to ? {to} : {})}
}

/**
 * Queues the transaction's last webhook (or every one) again, with the body it was sent with, to
 * its address or `to`. A transaction never sent one (no address until now) gets the webhook of
 * its current status.
 */
export function resendWebhooks(
  store: EmulatorStore,
  clock: Clock,
  assumptions: AssumptionSettings,
  id: string,
  request: ResendRequest,
): WebhookDelivery[] {
  const entry = store.transaction(id)
  if (!entry) throw unknownTransaction(id)
  const {transaction} = entry
  const profile = transaction.payment_profile ? store.paymentProfile(transaction.payment_profile) : undefined
  const address = transaction.webhook_transaction_update || profile?.webhook_transaction_update
  const sent = store.outboxDeliveries(id)
  const originals: Pick<OutboxDelivery, 'status' | 'url' | 'payload'>[] =
    sent.length > 0 ? (request.all ? sent : sent.slice(-1)) : [{status: transaction.status, url: address ?? '', payload: JSON.stringify(webhookBody(transaction, assumptions))}]
  const now = clock.now()
  const queued = originals.map(
    (original): OutboxDelivery => ({
      id: timeOrderedUuid(now),
      transaction: id,
      status: original.status,
      url: request.to ?? original.url,
      state: 'pending',
      created_at: new Date(now).toISOString(),
      attempts: [],
      payload: original.payload,
    }),
  )
  if (queued.some((delivery) => delivery.url === '')) {
    const problem = "The transaction has no webhook address (neither its own nor its payment profile's)."
    throw new ApiError(409, `${problem} Send "to" with an address.`, {'body.to': problem})
  }
  store.write(() => {
    for (const delivery of queued) store.enqueueDelivery(delivery, now)
  })
  return queued.map(({payload: _payload, ...delivery}) => delivery)
}

/** The state table as docs/emulator.md shows it (a test checks the page holds exactly this). */
export function movesMarkdownTable(): string {
  const rows = STATUSES.map((from) => `| \`${from}\` | ${ALLOWED_MOVES[from].length > 0 ? ALLOWED_MOVES[from].map((to) => `\`${to}\``).join(', ') : '(final: none)'} |`)
  return ['| from | moves to |', '|---|---|', ...rows].join('\n')
}
