/**
 * The transaction state machine: status changes, the moves that happen over time (settlement,
 * a pending payment resolving, an unfinished approval being abandoned) and a webhook queued in
 * the outbox for every change. A timed move is stored as the transaction's due time; whichever
 * emulator finds it due (its scheduler, or a read of that transaction) applies it, inside the
 * store's write lock, so it is applied once however many emulators share the store.
 */
import type {TransactionStatus} from '../../api/contract.js'
import type {SofortSender, Transaction} from '../../api/schemas.js'
import {formatExactDuration} from '../../duration.js'
import {type AssumptionSettings, DEFAULT_ASSUMPTIONS} from '../assumptions.js'
import type {Clock} from './clock.js'
import type {StatusEvent} from '../events.js'
import {type EmulatorStore, type StoredTransaction, type TransactionRenderer, timeOrderedUuid, webhookBody} from '../store/index.js'

export interface LifecycleSettings {
  settleAfterMs: number
  pendingForMs: number
  abandonAfterMs: number
  /** The webhook body's shape (assumptions.ts); default: the minimal one. */
  webhookShape?: Pick<AssumptionSettings, 'webhookPayload' | 'idKeys'>
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

/** The move a status leads to over time, if any. */
function timedMoveFrom(status: string): TransactionStatus | undefined {
  switch (status) {
    case 'INITIATED':
    case 'IN_PROGRESS':
      return 'ABANDONED'
    case 'PENDING':
      return 'SETTLEMENT_REQUESTED'
    case 'SETTLEMENT_REQUESTED':
      return 'SETTLEMENT_COMPLETED'
    default:
      return undefined
  }
}

/** When the move that follows the transaction's current status is due, counted from `since`. */
export function nextMoveDueAt(entry: StoredTransaction, settings: LifecycleSettings, since: number): number | undefined {
  const {status} = entry.transaction
  if (isAwaitingApproval(status)) return since + settings.abandonAfterMs
  if (status === 'PENDING') return since + settings.pendingForMs
  if (status === 'SETTLEMENT_REQUESTED' && !entry.settlementHeld) return since + settings.settleAfterMs
  return undefined
}

/** Told of every change this emulator commits: when something new is due, and what happened. */
export interface LifecycleListener {
  due(at: number): void
  status(event: StatusEvent): void
}

/** How much one commit of due moves may do. */
export interface DueBatchLimits {
  /** Transactions moved at most. */
  moves: number
  /** Milliseconds of work at most. */
  ms: number
  /** Asked between two transactions: true ends the batch there (a request waits for the lock, say). */
  stopEarly?: () => boolean
}

/**
 * A batch in the thread that answers requests: between batches the scheduler lets requests in, so
 * that an API read waits for about 4 ms at most while the emulator catches up on due moves.
 */
export const IN_THREAD_DUE_BATCH: DueBatchLimits = {moves: 50, ms: 4}

/** Due transactions are read this many at a time. */
const DUE_PAGE = 50

type PaymentProfile = ReturnType<EmulatorStore['paymentProfile']>

export class TransactionLifecycle {
  /** The payment profiles read during the current commit. */
  private profiles?: Map<string, PaymentProfile>

  constructor(
    private readonly store: EmulatorStore,
    private readonly clock: Clock,
    private readonly settings: LifecycleSettings,
    private readonly listener: LifecycleListener,
  ) {}

  /**
   * Records a new INITIATED transaction with its abandonment due, and queues its webhook. `build`
   * checks and makes the transaction inside the write (so that what its checks read is what the
   * write commits beside); the commit is shared with the other writes of this turn of the event
   * loop (store.writeGrouped): the transaction start's path under load.
   * Resolves with the transaction once it is committed; rejects with what `build` threw, or with
   * the commit's failure (then nothing of it is stored).
   */
  async created(build: () => {transaction: Transaction; cvvGiven: boolean}): Promise<Transaction> {
    let entry: StoredTransaction | undefined
    // Run at once, or later when a worker thread holds the write lock (store.writeGrouped).
    const events = await this.store.writeGrouped(() => {
      this.profiles = new Map()
      try {
        const {transaction, cvvGiven} = build()
        entry = this.newEntry(transaction, cvvGiven)
        return this.insertCreated(entry)
      } finally {
        this.profiles = undefined
      }
    })
    for (const event of events) this.listener.status(event)
    if (entry!.dueAt !== undefined) this.listener.due(entry!.dueAt)
    return entry!.transaction
  }

  private newEntry(transaction: Transaction, cvvGiven: boolean): StoredTransaction {
    const entry: StoredTransaction = {transaction, cvvGiven}
    entry.dueAt = this.dueAt(entry, Date.parse(transaction.last_status_update))
    return entry
  }

  /** The new transaction's row, its first status change (its search row by the store's trigger) and its webhook, in the write under way. */
  private insertCreated(entry: StoredTransaction): StatusEvent[] {
    const {transaction} = entry
    this.store.insertTransaction(entry)
    this.store.recordStatusChange(transaction.id, {from: null, to: transaction.status, reason: '', at: transaction.created_at, by: 'start'}, entry.seq)
    this.notify(entry)
    return [{event: 'status', time: transaction.created_at, transaction: transaction.id, from: null, to: transaction.status, reason: ''}]
  }

  /** The approval page was opened: INITIATED becomes IN_PROGRESS. */
  opened(id: string): void {
    this.change(id, (entry) => (entry.transaction.status === 'INITIATED' ? this.move(entry, 'IN_PROGRESS', undefined, this.clock.now(), 'approval page') : []))
  }

  /**
   * The approval page completed with an outcome. SETTLEMENT_COMPLETED first becomes
   * SETTLEMENT_REQUESTED and settles later; SETTLEMENT_REQUESTED stays a request that never
   * settles; PENDING resolves later; the rest is where the transaction stays.
   */
  completed(id: string, outcome: TransactionStatus, options: {statusReason?: string; sender?: SofortSender} = {}): void {
    this.change(id, (entry) => {
      if (!isAwaitingApproval(entry.transaction.status)) return []
      if (options.sender && entry.transaction.details.sender) entry.transaction.details.sender = options.sender
      if (outcome === 'SETTLEMENT_REQUESTED') entry.settlementHeld = true
      const next: TransactionStatus = outcome === 'SETTLEMENT_COMPLETED' ? 'SETTLEMENT_REQUESTED' : outcome
      return this.move(entry, next, options.statusReason, this.clock.now(), 'approval page')
    })
  }

  /**
   * Moves the transaction to `to` as if the processor had (`paytx emulator trigger`): recorded,
   * with its webhook and the timed moves that follow the new status. `check` sees the current
   * status inside the write lock and throws to refuse the move (nothing is changed then).
   * Returns the status moved from, or undefined for an unknown transaction.
   */
  trigger(id: string, to: TransactionStatus, options: {reason?: string; by: string; check: (from: string) => void}): string | undefined {
    let from: string | undefined
    this.change(id, (entry) => {
      from = entry.transaction.status
      options.check(from)
      entry.settlementHeld = false
      return this.move(entry, to, options.reason, this.clock.now(), options.by)
    })
    return from
  }

  /** Applies what is due for one transaction, so that a read after its due time shows the move; the transaction as it then is (undefined when no transaction has the id). */
  catchUp(id: string): StoredTransaction | undefined {
    const entry = this.store.transaction(id)
    if (entry?.dueAt === undefined || entry.dueAt > this.clock.now()) return entry
    this.change(id, (current) => this.applyDue(current))
    return this.store.transaction(id)
  }

  /** As catchUp, the transaction written out by `render` (kept with it as read: EmulatorStore.renderedTransaction). */
  caughtUpRendering(id: string, render: TransactionRenderer): string | undefined {
    const read = this.store.renderedTransaction(id, render)
    if (read?.dueAt === undefined || read.dueAt > this.clock.now()) return read?.text
    this.change(id, (current) => this.applyDue(current))
    return this.store.renderedTransaction(id, render)?.text
  }

  /**
   * Applies the moves due by now in one commit, within `limits`, so that a caller can let others
   * in between batches (a restart over many overdue transactions). `more` says whether due moves
   * remain.
   */
  applyDueBatch(limits: DueBatchLimits = IN_THREAD_DUE_BATCH): {moved: number; more: boolean} {
    const now = this.clock.now()
    if (!this.store.hasDueTransactions(now)) return {moved: 0, more: false}
    const began = performance.now()
    let more = false
    // A batch writes its rows many per statement: see EmulatorStore.deferringWrites.
    const events = this.commit(() => this.store.deferringWrites(() => {
      const moved: StatusEvent[] = []
      let count = 0
      for (;;) {
        // Read under the write lock (another emulator may have moved them meanwhile), a page at a
        // time, so that a long batch can end between any two transactions.
        const wanted = Math.min(DUE_PAGE, limits.moves - count)
        const entries = this.store.dueTransactions(now, wanted)
        for (const entry of entries) {
          // At least one move per batch, so that every batch makes progress.
          if (count > 0 && (performance.now() - began > limits.ms || limits.stopEarly?.())) {
            more = true
            return moved
          }
          moved.push(...this.applyDue(entry))
          // Written even without a move, so that a due time with nothing to do is cleared.
          this.store.updateTransaction(entry)
          if (entry.dueAt !== undefined) this.listener.due(entry.dueAt)
          count++
        }
        more = count === limits.moves
        if (entries.length < wanted || more) return moved
      }
    }))
    return {moved: new Set(events.map((event) => event.transaction)).size, more}
  }

  /** Moves the transaction through every timed move due by now, each at its own due time. */
  private applyDue(entry: StoredTransaction): StatusEvent[] {
    const events: StatusEvent[] = []
    const now = this.clock.now()
    while (entry.dueAt !== undefined && entry.dueAt <= now) {
      const to = timedMoveFrom(entry.transaction.status)
      if (!to) {
        entry.dueAt = undefined
        break
      }
      const at = entry.dueAt
      const reason =
        to === 'ABANDONED'
          ? `the approval was not completed within ${formatExactDuration(at - Date.parse(entry.transaction.last_status_update))}`
          : undefined
      events.push(...this.move(entry, to, reason, at, 'timer'))
    }
    return events
  }

  /** Reads, changes and writes one transaction inside one commit; reports after the commit. */
  private change(id: string, apply: (entry: StoredTransaction) => StatusEvent[]): void {
    let dueAt: number | undefined
    this.commit(() => {
      const entry = this.store.transaction(id)
      if (!entry) return []
      const events = apply(entry)
      // A move with no delay (e.g. --settle-after 0) happens in the same commit.
      if (events.length > 0) events.push(...this.applyDue(entry))
      if (events.length > 0) this.store.updateTransaction(entry)
      dueAt = entry.dueAt
      return events
    })
    if (dueAt !== undefined) this.listener.due(dueAt)
  }

  private commit(change: () => StatusEvent[]): StatusEvent[] {
    // Under the write lock no other emulator changes a payment profile: each is read once a commit.
    this.profiles = new Map()
    let events: StatusEvent[]
    try {
      events = this.store.write(change)
    } finally {
      this.profiles = undefined
    }
    for (const event of events) this.listener.status(event)
    return events
  }

  private paymentProfile(id: string): PaymentProfile {
    if (!this.profiles) return this.store.paymentProfile(id)
    if (!this.profiles.has(id)) this.profiles.set(id, this.store.paymentProfile(id))
    return this.profiles.get(id)
  }

  private move(entry: StoredTransaction, to: TransactionStatus, reason: string | undefined, at: number, by: string): StatusEvent[] {
    const {transaction} = entry
    const from = transaction.status
    transaction.status = to
    transaction.status_reason = reason ?? STATUS_REASONS[to]
    transaction.last_status_update = new Date(at).toISOString()
    entry.dueAt = this.dueAt(entry, at)
    this.store.recordStatusChange(transaction.id, {from, to, reason: transaction.status_reason, at: transaction.last_status_update, by}, entry.seq)
    this.notify(entry)
    return [{event: 'status', time: transaction.last_status_update, transaction: transaction.id, from, to, reason: transaction.status_reason}]
  }

  private dueAt(entry: StoredTransaction, since: number): number | undefined {
    return nextMoveDueAt(entry, this.settings, since)
  }

  /** Queues the webhook of the transaction's current status in the outbox, in the same commit. */
  private notify({transaction, seq}: StoredTransaction): void {
    const profile = transaction.payment_profile ? this.paymentProfile(transaction.payment_profile) : undefined
    const url = transaction.webhook_transaction_update || profile?.webhook_transaction_update
    if (!url) return
    const {id, status} = transaction
    const now = this.clock.now()
    this.store.enqueueDelivery(
      {
        id: timeOrderedUuid(now),
        transaction: id,
        status,
        url,
        state: 'pending',
        created_at: new Date(now).toISOString(),
        attempts: [],
        payload: JSON.stringify(webhookBody(transaction, this.settings.webhookShape ?? DEFAULT_ASSUMPTIONS)),
      },
      now,
      seq,
    )
    this.listener.due(now)
  }
}
