/**
 * The transaction state machine: status changes, the moves that happen over time (settlement,
 * a pending payment resolving, an unfinished approval being abandoned) and a webhook for every
 * change. The next timed move depends only on a transaction's status and when it got it, so
 * timers are re-armed from the stored state after a restart.
 */
import type {SofortSender, Transaction, TransactionStatus} from '../api/contract.js'
import {formatExactDuration} from '../duration.js'
import type {Clock, TimerHandle} from './clock.js'
import type {StatusEvent} from './events.js'
import type {EmulatorStore, PaymentProfile, StoredTransaction} from './store.js'
import type {WebhookDispatcher} from './webhooks.js'

export interface LifecycleSettings {
  settleAfterMs: number
  pendingForMs: number
  abandonAfterMs: number
}

/** Why a transaction has its status, as `status_reason` says it. */
export const STATUS_REASONS: Record<TransactionStatus, string> = {
  INITIATED: '',
  IN_PROGRESS: 'the customer opened the approval page',
  PENDING: 'awaiting the processor',
  SETTLEMENT_REQUESTED: 'authorized; settlement requested',
  SETTLEMENT_COMPLETED: 'settled',
  CANCELLED: 'cancelled by the customer',
  DECLINED: 'declined by the processor',
  FAILED: 'processing error',
  UNKNOWN: 'the status cannot be determined at present',
  ABANDONED: 'abandoned by the customer',
}

/** Statuses a customer can still approve from. */
export function isAwaitingApproval(status: string): boolean {
  return status === 'INITIATED' || status === 'IN_PROGRESS'
}

export class TransactionLifecycle {
  private readonly timers = new Map<string, TimerHandle>()
  private stopped = false

  constructor(
    private readonly store: EmulatorStore,
    private readonly clock: Clock,
    private readonly settings: LifecycleSettings,
    private readonly webhooks: WebhookDispatcher,
    private readonly report: (event: StatusEvent) => void,
    private readonly changed: () => void,
  ) {}

  /** Records a new INITIATED transaction and starts its abandonment timer. */
  created(transaction: Transaction, cvvGiven: boolean): void {
    const entry: StoredTransaction = {transaction, cvvGiven}
    this.store.transactions.set(transaction.id, entry)
    this.report({event: 'status', time: transaction.created_at, transaction: transaction.id, from: null, to: transaction.status, reason: ''})
    this.notify(transaction)
    this.arm(entry)
    this.changed()
  }

  /** The approval page was opened: INITIATED becomes IN_PROGRESS. */
  opened(id: string): void {
    const entry = this.store.transactions.get(id)
    if (entry?.transaction.status === 'INITIATED') this.move(entry, 'IN_PROGRESS')
  }

  /**
   * The approval page completed with an outcome. SETTLEMENT_COMPLETED first becomes
   * SETTLEMENT_REQUESTED and settles later; SETTLEMENT_REQUESTED stays a request that never
   * settles; PENDING resolves later; the rest is where the transaction stays.
   */
  completed(id: string, outcome: TransactionStatus, options: {statusReason?: string; sender?: SofortSender} = {}): void {
    const entry = this.store.transactions.get(id)
    if (!entry || !isAwaitingApproval(entry.transaction.status)) return
    if (options.sender && entry.transaction.details.sender) entry.transaction.details.sender = options.sender
    if (outcome === 'SETTLEMENT_REQUESTED') entry.settlementHeld = true
    const next: TransactionStatus = outcome === 'SETTLEMENT_COMPLETED' ? 'SETTLEMENT_REQUESTED' : outcome
    this.move(entry, next, options.statusReason)
  }

  /** Arms the timed moves of every stored transaction (after loading a state file). */
  resume(): void {
    for (const entry of this.store.transactions.values()) this.arm(entry)
  }

  stop(): void {
    this.stopped = true
    for (const handle of this.timers.values()) this.clock.clearTimeout(handle)
    this.timers.clear()
  }

  private move(entry: StoredTransaction, to: TransactionStatus, reason?: string): void {
    const {transaction} = entry
    const from = transaction.status
    transaction.status = to
    transaction.status_reason = reason ?? STATUS_REASONS[to]
    transaction.last_status_update = new Date(this.clock.now()).toISOString()
    this.report({
      event: 'status',
      time: transaction.last_status_update,
      transaction: transaction.id,
      from,
      to,
      reason: transaction.status_reason,
    })
    this.notify(transaction)
    this.changed()
    this.arm(entry)
  }

  /** The timed move that follows the transaction's current status, if any. */
  private arm(entry: StoredTransaction): void {
    const {transaction} = entry
    const existing = this.timers.get(transaction.id)
    if (existing !== undefined) {
      this.clock.clearTimeout(existing)
      this.timers.delete(transaction.id)
    }
    if (this.stopped) return
    const next = this.timedMove(transaction.status)
    if (!next || (transaction.status === 'SETTLEMENT_REQUESTED' && entry.settlementHeld)) return
    const since = Date.parse(transaction.last_status_update)
    const delay = Math.max(0, since + next.afterMs - this.clock.now())
    const fire = () => {
      this.timers.delete(transaction.id)
      if (transaction.status === next.from) this.move(entry, next.to, next.reason)
    }
    if (next.afterMs === 0) {
      fire()
      return
    }
    this.timers.set(transaction.id, this.clock.setTimeout(fire, delay))
  }

  private timedMove(status: string): {from: string; to: TransactionStatus; afterMs: number; reason?: string} | undefined {
    const {settleAfterMs, pendingForMs, abandonAfterMs} = this.settings
    switch (status) {
      case 'INITIATED':
      case 'IN_PROGRESS':
        return {
          from: status,
          to: 'ABANDONED',
          afterMs: abandonAfterMs,
          reason: `the approval was not completed within ${formatExactDuration(abandonAfterMs)}`,
        }
      case 'PENDING':
        return {from: status, to: 'SETTLEMENT_REQUESTED', afterMs: pendingForMs}
      case 'SETTLEMENT_REQUESTED':
        return {from: status, to: 'SETTLEMENT_COMPLETED', afterMs: settleAfterMs}
      default:
        return undefined
    }
  }

  private notify(transaction: Transaction): void {
    const url = transaction.webhook_transaction_update || this.profileFor(transaction)?.webhook_transaction_update
    if (!url) return
    const {id, status, ...rest} = structuredClone(transaction)
    this.webhooks.send(url, id, status, {type: 'transaction', id, _id: id, status, ...rest})
  }

  private profileFor(transaction: Transaction): PaymentProfile | undefined {
    return transaction.payment_profile ? this.store.paymentProfiles.get(transaction.payment_profile) : undefined
  }
}
