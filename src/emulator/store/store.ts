/**
 * The emulator's data in its SQLite store: organisations, payment profiles, customers, cards,
 * transactions (with the due time of their next move) and the webhook outbox. Cards are stored
 * without their PAN (last four digits and a brand only) and transactions without a CVV (only
 * whether one was given). Every change runs inside `write`, one SQLite transaction committed
 * before the emulator answers, or inside `writeGrouped` (transaction starts), whose commit the
 * changes of one turn of the event loop share, the answer waiting for it; several emulators may
 * share one store.
 */
import type {Customer, Transaction} from '../../api/schemas.js'
import type {TestCard} from '../../test-mode/outcomes.js'
import {isDiskFull} from '../../storage/disk-full.js'
import {type AttachedUse, type Database, IN_MEMORY_STORE, SEARCH_ROWID_TOP, type Statement, attachDatabase, openDatabase} from './database.js'
import {attachSearchIndex, indexSearchBatch, indexedUpTo} from './search-file.js'
import {DeferredRows, ManyRowsStatement} from './deferred-rows.js'
import type {WriteTurn} from './write-turns.js'

export interface StoredCard {
  id: string
  customer: string
  organisation: string
  holder_name: string
  expiry_month: string
  expiry_year: string
  last4: string
  brand: string
  created_at: string
  /** What paying with this card leads to (decided by the test card number at tokenization). */
  testOutcome: TestCard['outcome']
}

export interface StoredTransaction {
  /** Exactly what the API returns for the transaction (its approval_url is set when read). */
  transaction: Transaction
  /** Whether `details.card_cvv` was given at start; the CVV itself is never kept. */
  cvvGiven: boolean
  /** The payer chose a settlement request that never settles (dummy "Request settlement only"). */
  settlementHeld?: boolean
  /** When the next move over time is due (epoch ms), if the status has one. */
  dueAt?: number
  /**
   * Where the store keeps it (the order it was stored in), once stored: its status changes and
   * deliveries are found by it, so that writing one needs no lookup of the id.
   */
  seq?: number
}

export interface PaymentProfile {
  id: string
  organisation: string
  name: string
  webhook_transaction_update: string
  created_at: string
}

export interface WebhookAttempt {
  attempt: number
  at: string
  duration_ms: number
  http_status?: number
  error?: string
  /** The fault rule that stood in for this attempt (`drop by f1`). */
  fault?: string
}

/** One status change of a transaction, and what made it. */
export interface StatusChange {
  from: string | null
  to: string
  reason: string
  at: string
  /** `start`, `approval page`, `timer`, `trigger` or `trigger --force`. */
  by: string
}

/** `held` and `dropped` are set by fault rules only (out of order, drop). */
export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'held' | 'dropped'

export interface WebhookDelivery {
  id: string
  transaction: string
  status: string
  url: string
  state: DeliveryState
  created_at: string
  delivered_at?: string
  attempts: WebhookAttempt[]
}

/** A delivery waiting in the outbox, with the JSON body it posts. */
export interface OutboxDelivery extends WebhookDelivery {
  payload: string
}

/** What a list of transactions asks for: see `EmulatorStore.transactionPage`. */
export interface TransactionQuery {
  limit: number
  search?: string
  status?: string
  product?: string
  customer?: string
  /** The id of the last transaction of the previous page. */
  before?: string
}

/** One page of a list: its transactions, and the id to ask for the next page with when more may follow. */
export interface TransactionPage {
  transactions: StoredTransaction[]
  next?: string
}

/** SQLite's default: the write-ahead log is copied back into the store file every 1000 pages (4 MiB). */
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000

/**
 * While a worker thread copies the log back, this connection's commits still copy what the thread
 * left once the log holds 4096 pages (16 MiB): only a writer that begins after the whole log was
 * copied starts it again from its first page, and under a steady stream of requests the serving
 * thread always begins its next write before a copy on another thread has caught up, so the log
 * grew without end (251 MB after 16,000 starts, with no copy left to do on this thread). By
 * then the thread has copied all but its last moments' pages.
 */
const LOG_COPIED_ELSEWHERE_PAGES = 4096

/**
 * A transaction's status changes and deliveries are found by its seq (the order it was stored
 * in), not by its random id: see the schema's version 4 (database.ts). This reads it from the id.
 */
const SEQ_OF_TRANSACTION = '(SELECT seq FROM transactions WHERE id = ?)'
/** The seq given, else read from the id (SQLite's coalesce runs the lookup only when the seq is null). */
const SEQ_GIVEN_OR_OF_TRANSACTION = `coalesce(?, ${SEQ_OF_TRANSACTION})`

const UPDATE_TRANSACTION = `UPDATE transactions SET body = ?, status = ?, settlement_held = ?, due_at = ? WHERE seq = ${SEQ_GIVEN_OR_OF_TRANSACTION}`

const MANY_STATUS_CHANGES = new ManyRowsStatement(
  (rows) => `INSERT INTO status_changes (transaction_id, transaction_seq, from_status, to_status, reason, at, by) VALUES ${rows}`,
  `(?, ${SEQ_GIVEN_OR_OF_TRANSACTION}, ?, ?, ?, ?, ?)`,
  8,
)

const MANY_DELIVERIES = new ManyRowsStatement(
  (rows) => `INSERT INTO webhook_deliveries (id, transaction_id, transaction_seq, status, url, payload, state, created_at, attempts, next_try_at) VALUES ${rows}`,
  `(?, ?, ${SEQ_GIVEN_OR_OF_TRANSACTION}, ?, ?, ?, 'pending', ?, '[]', ?)`,
  9,
)

/** Updates of transactions by seq, several per statement: a row is (seq, body, status, settlement_held, due_at). */
const MANY_TRANSACTION_UPDATES = new ManyRowsStatement(
  (rows) => `UPDATE transactions SET body = v.column2, status = v.column3, settlement_held = v.column4, due_at = v.column5
    FROM (VALUES ${rows}) AS v WHERE transactions.seq = v.column1`,
  '(?, ?, ?, ?, ?)',
  5,
)

/**
 * How much a store keeps of the transactions last read (EmulatorStore.transaction), their bodies
 * or answers (renderedTransaction): 8 MiB, some 12,000 transactions of a few hundred bytes each.
 * What is kept lives as long as the store, so it counts whole towards the emulator's memory (its
 * target: under 150 MB at peak).
 */
const RECENTLY_READ_BYTES = 8 * 1024 * 1024

/** The trigram index finds substrings of three characters or more. */
const MIN_INDEXED_SEARCH = 3

/** The delivery log keeps the most recent finished deliveries only, so a long run cannot grow without end. */
export const MAX_LOGGED_DELIVERIES = 1000

interface DeliveryRow {
  id: string
  transaction_id: string
  status: string
  url: string
  payload: string
  state: DeliveryState
  created_at: string
  delivered_at: string | null
  attempts: string
}

const TRANSACTION_COLUMNS = 't.seq, t.body, t.cvv_given, t.settlement_held, t.due_at'

interface TransactionRow {
  seq: number
  body: string
  cvv_given: number
  settlement_held: number
  due_at: number | null
}

/** A transaction written out for an answer (the API's JSON of it): by one renderer, the same text for the same committed row. */
export type TransactionRenderer = (entry: StoredTransaction) => string

/**
 * A row kept as read: its body, or once a renderer wrote it out (renderedTransaction), that
 * instead (the next read of its body reads it again; an answer polled is the read that repeats).
 */
interface KeptRow extends Omit<TransactionRow, 'body'> {
  body?: string
  rendered?: {by: TransactionRenderer; text: string}
}

/** What is kept of a row, in characters: its body or its rendering. */
function keptSize(row: KeptRow): number {
  return (row.body?.length ?? 0) + (row.rendered?.text.length ?? 0)
}

function transactionFromRow(row: TransactionRow): StoredTransaction {
  return {
    transaction: JSON.parse(row.body) as Transaction,
    cvvGiven: row.cvv_given === 1,
    ...(row.settlement_held === 1 ? {settlementHeld: true} : {}),
    ...(row.due_at === null ? {} : {dueAt: row.due_at}),
    seq: row.seq,
  }
}

function deliveryFromRow(row: DeliveryRow): OutboxDelivery {
  return {
    id: row.id,
    transaction: row.transaction_id,
    status: row.status,
    url: row.url,
    state: row.state,
    created_at: row.created_at,
    ...(row.delivered_at ? {delivered_at: row.delivered_at} : {}),
    attempts: JSON.parse(row.attempts) as WebhookAttempt[],
    payload: row.payload,
  }
}

/** Grouped writes sharing one commit (EmulatorStore.writeGrouped), and who waits for it. */
interface GroupCommit {
  waiting: {resolved(): void; rejected(error: Error): void}[]
}

/** The rows newest first (by seq), each once, at most `limit`. */
function newestOnce(rows: TransactionRow[], limit: number): TransactionRow[] {
  const page: TransactionRow[] = []
  let last = Number.POSITIVE_INFINITY
  for (const row of rows.sort((a, b) => b.seq - a.seq)) {
    if (row.seq === last) continue
    last = row.seq
    page.push(row)
    if (page.length === limit) break
  }
  return page
}

/**
 * The stores of this thread with a group open. Two emulators of one process may share a store
 * file: one's open group holds the file's write lock until the end of the turn, and the other's
 * BEGIN would wait for it with the event loop blocked, so never. Each store commits the others'
 * groups before it begins a transaction of its own.
 */
const openGroups = new Set<EmulatorStore>()

function commitOtherGroups(store: EmulatorStore): void {
  for (const other of openGroups) if (other !== store) other.commitOpenGroup()
}

export class EmulatorStore {
  private readonly statements = new Map<string, Statement>()
  /** Rows held back while `deferringWrites` runs. */
  private deferred?: DeferredRows

  constructor(
    private readonly db: Database,
    /** The file, or `:memory:`. */
    readonly location: string,
  ) {}

  static open(location: string = IN_MEMORY_STORE): EmulatorStore {
    return new EmulatorStore(openDatabase(location), location)
  }

  /** One more connection to the store file this process opened, for a worker thread (database.ts, attachDatabase). */
  static attach(location: string, use: AttachedUse): EmulatorStore {
    const store = new EmulatorStore(attachDatabase(location, use), location)
    store.readsSearchFile = use === 'queries'
    return store
  }

  /**
   * The turns at the write lock this store's writes take (write-turns.ts): in a worker thread its
   * own side; on the serving thread the serving side of each worker thread writing meanwhile (the
   * catch-up, the search indexing).
   */
  private readonly turns: WriteTurn[] = []

  addWriteTurn(turn: WriteTurn): void {
    this.turns.push(turn)
  }

  removeWriteTurn(turn: WriteTurn): void {
    const at = this.turns.indexOf(turn)
    if (at >= 0) this.turns.splice(at, 1)
  }

  private beginTurns(): void {
    for (const turn of this.turns) turn.begin()
  }

  private endTurns(): void {
    for (const turn of this.turns) turn.end()
  }

  /**
   * Runs `change` as one SQLite transaction, taking the write lock first (so that what it reads
   * is still true when it writes, whichever emulator shares the store), committed on return.
   */
  write<T>(change: () => T): T {
    if (this.inGroupedChange) throw new Error('A grouped write cannot run a write of its own inside it.')
    this.commitGroup()
    commitOtherGroups(this)
    let result: T
    try {
      result = this.inTransaction(change)
    } catch (error) {
      if (isDiskFull(error) && !this.diskFull) this.diskFullChanged(true)
      throw error
    }
    if (this.diskFull) this.diskFullChanged(false)
    return result
  }

  /** The grouped writes of this turn of the event loop: one SQLite transaction, open until its end. */
  private group?: GroupCommit
  /** Set while a grouped write's change runs: its reads see the group's rows, and commit nothing. */
  private inGroupedChange = false
  /** Statements run that may have written a row, counted: whether a grouped change that threw had written. */
  private rowWrites = 0

  /**
   * Runs `change` inside the SQLite transaction that the grouped writes of this turn of the event
   * loop share; resolves with its result once that transaction is committed, at the end of the
   * turn, one commit for all of them, and rejects if the commit fails (nothing of the group is
   * then stored). A change that throws before it wrote a row (its checks failed) throws at once
   * and leaves the group as it was; one that throws after (a full disk) fails the whole group,
   * rolled back, each of its writes rejected: never half a change stored. (Not a savepoint per
   * change: SQLite's full-text index writes its pending rows out at every savepoint, which cost
   * as much as the row itself; one write-out per commit is the point of the group.) So whoever answers after it resolves answers only what is on disk, as after
   * `write`. A read or a `write` outside the group commits the group first, so that nothing
   * uncommitted is ever read outside it.
   */
  writeGrouped<T>(change: () => T): Promise<T> {
    if (this.inGroupedChange) throw new Error('A grouped write cannot run inside another.')
    const group = this.group ?? this.openGroup()
    this.inGroupedChange = true
    const rowsBefore = this.rowWrites
    let result: T
    try {
      result = change()
    } catch (error) {
      if (this.rowWrites !== rowsBefore || !this.db.inTransaction) this.endGroup(group, error)
      throw error
    } finally {
      this.inGroupedChange = false
    }
    return new Promise<T>((resolve, reject) => group.waiting.push({resolved: () => resolve(result), rejected: reject}))
  }

  /** Commits the group this store has open, if any (for another store of this thread that is about to write). */
  commitOpenGroup(): void {
    this.commitGroup()
  }

  private openGroup(): GroupCommit {
    commitOtherGroups(this)
    this.beginTurns()
    try {
      this.db.exec('BEGIN IMMEDIATE')
      // Holding the write lock from here: what another connection committed before is seen now.
      this.forgetIfChangedByOthers()
    } catch (error) {
      this.rollBack()
      this.endTurns()
      if (isDiskFull(error) && !this.diskFull) this.diskFullChanged(true)
      throw error
    }
    const group: GroupCommit = {waiting: []}
    this.group = group
    openGroups.add(this)
    setImmediate(() => this.commitGroup())
    return group
  }

  /** Commits the open group, if any, and tells each of its writes; synchronous, so that a read or write may follow. */
  private commitGroup(): void {
    const group = this.group
    if (!group) return
    try {
      this.db.exec('COMMIT')
    } catch (error) {
      this.endGroup(group, error)
      return
    }
    this.group = undefined
    openGroups.delete(this)
    this.endTurns()
    if (this.diskFull) this.diskFullChanged(false)
    this.committed()
    for (const write of group.waiting) write.resolved()
  }

  /** The group's transaction failed: rolled back, its writes rejected with the error, none acknowledged. */
  private endGroup(group: GroupCommit, error: unknown): void {
    if (this.group !== group) return
    this.group = undefined
    openGroups.delete(this)
    this.rollBack()
    this.endTurns()
    if (isDiskFull(error) && !this.diskFull) this.diskFullChanged(true)
    const failure = error instanceof Error ? error : new Error(String(error))
    for (const write of group.waiting) write.rejected(failure)
  }

  /**
   * Told when a write fails for a full disk (once, until one works again) and when writes work
   * again: reads go on meanwhile, and nothing needs restarting when space is freed.
   */
  onDiskFull?: (full: boolean) => void
  private diskFull = false

  private diskFullChanged(full: boolean): void {
    this.diskFull = full
    this.onDiskFull?.(full)
  }

  private inTransaction<T>(change: () => T): T {
    this.beginTurns()
    try {
      this.db.exec('BEGIN IMMEDIATE')
      try {
        this.forgetIfChangedByOthers()
        const result = change()
        this.db.exec('COMMIT')
        this.committed()
        return result
      } catch (error) {
        this.rollBack()
        throw error
      }
    } finally {
      this.endTurns()
    }
  }

  /** After SQLITE_FULL, SQLite may have rolled the transaction back itself; a second ROLLBACK would throw over the first error. */
  private rollBack(): void {
    this.transactionsStored = false
    this.forgetKept()
    if (!this.db.inTransaction) return
    try {
      this.db.exec('ROLLBACK')
    } catch {
      // The transaction is gone either way; the error that caused the rollback is the one to report.
    }
  }

  /**
   * Whether this connection's commits copy the write-ahead log back into the store file once it
   * has grown (SQLite's default, every 4 MiB), or only what a worker thread that copies it
   * instead (the catch-up, the search indexing) left, once it is four times as long
   * (LOG_COPIED_ELSEWHERE_PAGES); each thread says so here. The copy would otherwise fall to
   * whichever connection commits next, a request's write on the serving thread among them.
   */
  copyLogBackOnCommit(on: boolean): void {
    this.commitGroup()
    this.logCopiers += on ? -1 : 1
    const copying = this.logCopiers <= 0
    if (copying === this.copiesOnCommit) return
    this.copiesOnCommit = copying
    this.db.exec(`PRAGMA wal_autocheckpoint = ${copying ? DEFAULT_AUTOCHECKPOINT_PAGES : LOG_COPIED_ELSEWHERE_PAGES}`)
  }

  /** Worker threads that copy the write-ahead log back themselves, meanwhile. */
  private logCopiers = 0
  private copiesOnCommit = true

  /** Copies back what of the write-ahead log no reader still needs, without waiting for any. */
  copyLogBack(): void {
    this.commitGroup()
    this.db.exec('PRAGMA wal_checkpoint(PASSIVE)')
  }

  close(): void {
    this.commitGroup()
    this.statements.clear()
    if (this.location !== IN_MEMORY_STORE) this.copyLogBackWhole()
    this.db.close()
  }

  /**
   * libsql closes a connection only once its statements are collected, so SQLite's copy of the
   * write-ahead log back at close may never come, and the -wal kept the store's latest changes
   * after every emulator stopped. Copied here, without waiting for another emulator's readers (it
   * copies what none still reads), so that the file alone is the store once no emulator runs:
   * what `paytx doctor` reads, writing nothing.
   */
  private copyLogBackWhole(): void {
    try {
      this.db.exec('PRAGMA busy_timeout = 0')
      this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    } catch {
      // A full disk, a transaction still open, or another emulator writing: the next one copies it.
    }
  }

  /** Closes with everything in the database file itself (no WAL beside it), so that the file can be moved. */
  closeForMove(): void {
    this.commitGroup()
    this.db.exec('PRAGMA journal_mode = DELETE')
    this.close()
  }

  /** Empties the store: every organisation, profile, customer, card, transaction and delivery. */
  reset(): void {
    this.write(() => {
      this.forgetKept()
      for (const table of ['customer_search', 'status_changes', 'webhook_deliveries', 'transactions', 'cards', 'customers', 'payment_profiles', 'organisations']) this.run(`DELETE FROM main.${table}`)
      // The seqs start again from 1: the search index of the old epoch is of another store now (search-file.ts).
      this.run('UPDATE main.store_identity SET epoch = lower(hex(randomblob(16)))')
    })
  }

  addOrganisation(id: string, createdAt: string): void {
    this.run('INSERT OR IGNORE INTO organisations (id, created_at) VALUES (?, ?)', id, createdAt)
  }

  hasOrganisation(id: string): boolean {
    return this.get('SELECT 1 AS found FROM organisations WHERE id = ?', id) !== undefined
  }

  paymentProfile(id: string): PaymentProfile | undefined {
    const keep = this.mayKeep()
    const kept = keep ? this.knownProfiles.get(id) : undefined
    if (kept) return {...kept}
    const row = this.get('SELECT id, organisation, name, webhook_transaction_update, created_at FROM payment_profiles WHERE id = ?', id) as PaymentProfile | undefined
    const profile = row && {id: row.id, organisation: row.organisation, name: row.name, webhook_transaction_update: row.webhook_transaction_update, created_at: row.created_at}
    if (profile && keep) this.knownProfiles.set(id, {...profile})
    return profile
  }

  paymentProfiles(): PaymentProfile[] {
    return (this.all('SELECT id FROM payment_profiles ORDER BY created_at, id') as {id: string}[]).map((row) => this.paymentProfile(row.id)!)
  }

  /** Adds the profile, or, when it exists, sets its webhook address if one is given. */
  putPaymentProfile(profile: PaymentProfile, options: {replaceWebhook: boolean}): void {
    this.knownProfiles.delete(profile.id)
    this.run(
      `INSERT INTO payment_profiles (id, organisation, name, webhook_transaction_update, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET webhook_transaction_update = CASE WHEN ? THEN excluded.webhook_transaction_update ELSE webhook_transaction_update END`,
      profile.id,
      profile.organisation,
      profile.name,
      profile.webhook_transaction_update,
      profile.created_at,
      options.replaceWebhook ? 1 : 0,
    )
  }

  insertCustomer(customer: Customer): void {
    this.run('INSERT INTO customers (id, body) VALUES (?, ?)', customer.id, JSON.stringify(customer))
  }

  customer(id: string): Customer | undefined {
    const row = this.get('SELECT body FROM customers WHERE id = ?', id) as {body: string} | undefined
    return row && (JSON.parse(row.body) as Customer)
  }

  hasCustomer(id: string): boolean {
    const keep = this.mayKeep()
    if (keep && this.knownCustomers.has(id)) return true
    const found = this.get('SELECT 1 AS found FROM customers WHERE id = ?', id) !== undefined
    if (found && keep) this.knownCustomers.add(id)
    return found
  }

  insertCard(card: StoredCard): void {
    this.run('INSERT INTO cards (id, body) VALUES (?, ?)', card.id, JSON.stringify(card))
  }

  card(id: string): StoredCard | undefined {
    const row = this.get('SELECT body FROM cards WHERE id = ?', id) as {body: string} | undefined
    return row && (JSON.parse(row.body) as StoredCard)
  }

  /** Stores a new transaction with the columns lists filter, sort and search on, taken from its body; sets its seq. */
  insertTransaction(entry: StoredTransaction): void {
    const {transaction} = entry
    this.transactionsStored = true
    entry.seq = this.insert(
      `INSERT INTO transactions (id, body, cvv_given, settlement_held, due_at, status, created_at, merchant_reference, customer, product)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      transaction.id,
      JSON.stringify(transaction),
      entry.cvvGiven ? 1 : 0,
      entry.settlementHeld ? 1 : 0,
      entry.dueAt ?? null,
      transaction.status,
      transaction.created_at,
      transaction.merchant_reference ?? null,
      transaction.customer ?? null,
      transaction.payment_product,
    )
  }

  /**
   * Writes the transaction's body, status and due time. Its creation time, merchant reference,
   * customer and product are set at start and never change, so their columns (and indexes) are
   * left as they are.
   */
  updateTransaction(entry: StoredTransaction): void {
    this.forgetRead(entry.transaction.id)
    const values = [JSON.stringify(entry.transaction), entry.transaction.status, entry.settlementHeld ? 1 : 0, entry.dueAt ?? null]
    if (this.deferred && entry.seq !== undefined) this.deferred.add(MANY_TRANSACTION_UPDATES, [entry.seq, ...values])
    else this.run(UPDATE_TRANSACTION, ...values, entry.seq ?? null, entry.transaction.id)
  }

  transaction(id: string): StoredTransaction | undefined {
    const row = this.transactionRow(id)
    return row && transactionFromRow(row)
  }

  /**
   * The transaction as `render` writes it (an API answer), and when its next move is due (the
   * caller catches up first when it is): kept with the transaction as read, so that a status
   * polled again is answered with no JSON read or written. A renderer is known by its identity:
   * one that writes differently is another function.
   */
  renderedTransaction(id: string, render: TransactionRenderer): {text: string; dueAt?: number} | undefined {
    const kept = this.keptRow(id)
    if (kept?.rendered?.by === render) return {text: kept.rendered.text, dueAt: kept.due_at ?? undefined}
    const row = this.transactionRow(id)
    if (!row) return undefined
    const text = render(transactionFromRow(row))
    // Kept only with a row kept (one read inside a write of its own is not).
    const keeping: KeptRow | undefined = this.recentlyRead.get(id)
    if (keeping === row) {
      this.keptBytes -= keptSize(keeping)
      keeping.body = undefined
      keeping.rendered = {by: render, text}
      this.keptBytes += keptSize(keeping)
      this.keepWithinBudget()
    }
    return {text, dueAt: row.due_at ?? undefined}
  }

  /** What is kept of the transaction, when it may be used: outside a write, what is read is committed. */
  private keptRow(id: string): KeptRow | undefined {
    const committed = !this.group && !this.db.inTransaction
    return committed && this.mayKeep() ? this.recentlyRead.get(id) : undefined
  }

  private transactionRow(id: string): TransactionRow | undefined {
    // Kept for the next read of it (a status polled).
    const kept = this.keptRow(id)
    if (kept?.body !== undefined) return kept as TransactionRow
    const committed = !this.group && !this.db.inTransaction
    const row = this.get('SELECT seq, body, cvv_given, settlement_held, due_at FROM transactions WHERE id = ?', id) as TransactionRow | undefined
    if (row && committed) this.keepRead(id, row)
    return row
  }

  /**
   * What this connection keeps as read, so that a read of it skips SQLite (most of the cost of a
   * status read under load is SQLite's read transaction; a start checks its customer and payment
   * profile): transactions read lately, as committed, by id; customers and payment profiles known
   * to exist (only a reset removes one). This connection forgets what it changes, and everything
   * when a write of its own rolls back; any commit of another connection (a worker thread,
   * another emulator sharing the store) forgets it all, as SQLite's data version tells: once a
   * turn of the event loop for reads (the requests answered in a turn came before its first
   * read, so each is answered with the store as it was when it came, or later), and at the start
   * of every write (which holds the write lock from then on: what it checks stays true).
   */
  private readonly recentlyRead = new Map<string, KeptRow>()
  private readonly knownCustomers = new Set<string>()
  private readonly knownProfiles = new Map<string, PaymentProfile>()
  private dataVersion?: number
  private checkedThisTurn = false

  /** Whether what is kept may be used (and more kept) now: not inside a write of its own (it may roll back); checked against others first. */
  private mayKeep(): boolean {
    if (this.db.inTransaction && !this.group) return false
    if (this.checkedThisTurn) return true
    this.checkedThisTurn = true
    setImmediate(() => (this.checkedThisTurn = false))
    this.forgetIfChangedByOthers()
    return true
  }

  private forgetIfChangedByOthers(): void {
    const version = (this.statement('PRAGMA data_version').get() as {data_version: number}).data_version
    if (version === this.dataVersion) return
    this.dataVersion = version
    this.forgetKept()
  }

  private forgetKept(): void {
    this.recentlyRead.clear()
    this.keptBytes = 0
    this.knownCustomers.clear()
    this.knownProfiles.clear()
  }

  private forgetRead(id: string): void {
    const kept = this.recentlyRead.get(id)
    if (!kept) return
    this.recentlyRead.delete(id)
    this.keptBytes -= keptSize(kept)
  }

  private keepRead(id: string, row: TransactionRow): void {
    this.forgetRead(id)
    this.recentlyRead.set(id, row)
    this.keptBytes += keptSize(row)
    this.keepWithinBudget()
  }

  /** Forgets the transactions read longest ago until what is kept fits RECENTLY_READ_BYTES. */
  private keepWithinBudget(): void {
    while (this.keptBytes > RECENTLY_READ_BYTES) {
      const [oldest, kept] = this.recentlyRead.entries().next().value!
      this.recentlyRead.delete(oldest)
      this.keptBytes -= keptSize(kept)
    }
  }

  /** The size of what is kept as read (characters), held within RECENTLY_READ_BYTES. */
  private keptBytes = 0

  /** Transactions whose next move is due at `now`, oldest due first, read in one pass of the due index. */
  dueTransactions(now: number, limit: number): StoredTransaction[] {
    const rows = this.all('SELECT seq, body, cvv_given, settlement_held, due_at FROM transactions WHERE due_at <= ? ORDER BY due_at LIMIT ?', now, limit) as TransactionRow[]
    return rows.map(transactionFromRow)
  }

  /** How many transactions' next moves are due at `now`, counted up to `atMost`. */
  dueCount(now: number, atMost: number): number {
    return (this.get('SELECT count(*) AS due FROM (SELECT 1 FROM transactions WHERE due_at <= ? LIMIT ?)', now, atMost) as {due: number}).due
  }

  /** Whether any transaction's next move is due at `now`. */
  hasDueTransactions(now: number): boolean {
    return this.get('SELECT 1 AS found FROM transactions WHERE due_at <= ? LIMIT 1', now) !== undefined
  }

  /**
   * The earliest time anything is due: a transaction's move, a webhook attempt no emulator holds,
   * or the end of a hold. Each read from an index, never all the pending deliveries (100,000
   * after a catch-up): the held ones are few, those in flight at most.
   */
  nextDueAt(): number | undefined {
    const row = this.get(
      `SELECT min(
         coalesce((SELECT min(due_at) FROM transactions WHERE due_at IS NOT NULL), 9e15),
         coalesce((SELECT next_try_at FROM webhook_deliveries WHERE state = 'pending' AND claimed_until IS NULL ORDER BY next_try_at LIMIT 1), 9e15),
         coalesce((SELECT min(max(next_try_at, claimed_until)) FROM webhook_deliveries WHERE claimed_until IS NOT NULL AND state = 'pending'), 9e15)
       ) AS at`,
    ) as {at: number}
    return row.at >= 9e15 ? undefined : row.at
  }

  /** Queues the delivery; `transactionSeq` is its transaction's seq when the caller has it at hand. */
  enqueueDelivery(delivery: OutboxDelivery, nextTryAt: number, transactionSeq?: number): void {
    const params = [delivery.id, delivery.transaction, transactionSeq ?? null, delivery.transaction, delivery.status, delivery.url, delivery.payload, delivery.created_at, nextTryAt]
    if (this.deferred) this.deferred.add(MANY_DELIVERIES, params)
    else this.run(MANY_DELIVERIES.text(1), ...params)
  }

  /**
   * Pending deliveries whose attempt is due and that no emulator holds: the first pending one of
   * each (address, transaction), so that one transaction's webhooks go out in status order.
   */
  dueDeliveries(now: number, limit: number, skip: ReadonlySet<string>): OutboxDelivery[] {
    const rows = this.all(
      `SELECT d.* FROM webhook_deliveries d
       WHERE d.state = 'pending' AND d.next_try_at <= ? AND (d.claimed_until IS NULL OR d.claimed_until <= ?)
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                         WHERE e.transaction_seq = d.transaction_seq AND e.url = d.url AND e.state = 'pending' AND e.seq < d.seq)
       ORDER BY d.seq LIMIT ?`,
      now,
      now,
      limit + skip.size,
    ) as DeliveryRow[]
    return rows
      .filter((row) => !skip.has(row.id))
      .slice(0, limit)
      .map(deliveryFromRow)
  }

  /** Marks the delivery as held until `until`, so that no other emulator attempts it meanwhile. */
  claimDelivery(id: string, until: number): void {
    this.run('UPDATE webhook_deliveries SET claimed_until = ? WHERE id = ?', until, id)
  }

  releaseDelivery(id: string): void {
    this.run('UPDATE webhook_deliveries SET claimed_until = NULL WHERE id = ?', id)
  }

  /** Records an attempt: the delivery's state, its attempts so far and, when pending, its next try. */
  recordAttempt(delivery: WebhookDelivery, nextTryAt: number | undefined): void {
    this.run(
      'UPDATE webhook_deliveries SET state = ?, delivered_at = ?, attempts = ?, next_try_at = ?, claimed_until = NULL WHERE id = ?',
      delivery.state,
      delivery.delivered_at ?? null,
      JSON.stringify(delivery.attempts),
      nextTryAt ?? null,
      delivery.id,
    )
    if (delivery.state !== 'pending') {
      this.run(
        "DELETE FROM webhook_deliveries WHERE state != 'pending' AND seq <= (SELECT max(seq) FROM webhook_deliveries) - ?",
        MAX_LOGGED_DELIVERIES,
      )
    }
  }

  /** Puts the deliveries a fault held back for this transaction and address back in line, due at `now`. */
  releaseHeldDeliveries(transactionId: string, url: string, now: number): number {
    const held = this.all(`SELECT id FROM webhook_deliveries WHERE state = 'held' AND transaction_seq = ${SEQ_OF_TRANSACTION} AND url = ?`, transactionId, url)
    if (held.length > 0) this.run(`UPDATE webhook_deliveries SET state = 'pending', next_try_at = ? WHERE state = 'held' AND transaction_seq = ${SEQ_OF_TRANSACTION} AND url = ?`, now, transactionId, url)
    return held.length
  }

  /** When the earliest held delivery is to go out anyway, or undefined when none is held. */
  earliestHoldEnd(): number | undefined {
    const row = this.get("SELECT min(next_try_at) AS at FROM webhook_deliveries WHERE state = 'held'") as {at: number | null}
    return row.at ?? undefined
  }

  /** Puts held deliveries whose time is up back in line, due at once. */
  releaseExpiredHolds(now: number): void {
    this.run("UPDATE webhook_deliveries SET state = 'pending' WHERE state = 'held' AND next_try_at <= ?", now)
  }

  /** The delivery log, oldest first, for one transaction or all. */
  deliveries(transactionId?: string): WebhookDelivery[] {
    const rows = (
      transactionId === undefined
        ? this.all('SELECT * FROM webhook_deliveries ORDER BY seq')
        : this.all(`SELECT * FROM webhook_deliveries WHERE transaction_seq = ${SEQ_OF_TRANSACTION} ORDER BY seq`, transactionId)
    ) as DeliveryRow[]
    return rows.map((row) => {
      const {payload: _payload, ...delivery} = deliveryFromRow(row)
      return delivery
    })
  }

  /** Records a status change; `transactionSeq` is the transaction's seq when the caller has it at hand. */
  recordStatusChange(transactionId: string, change: StatusChange, transactionSeq?: number): void {
    const params = [transactionId, transactionSeq ?? null, transactionId, change.from, change.to, change.reason, change.at, change.by]
    if (this.deferred) this.deferred.add(MANY_STATUS_CHANGES, params)
    else this.run(MANY_STATUS_CHANGES.text(1), ...params)
  }

  /** The transaction's status changes, oldest first. */
  statusChanges(transactionId: string): StatusChange[] {
    const rows = this.all(`SELECT from_status, to_status, reason, at, by FROM status_changes WHERE transaction_seq = ${SEQ_OF_TRANSACTION} ORDER BY seq`, transactionId) as {
      from_status: string | null
      to_status: string
      reason: string
      at: string
      by: string
    }[]
    return rows.map((row) => ({from: row.from_status, to: row.to_status, reason: row.reason, at: row.at, by: row.by}))
  }

  /** The transaction's deliveries with the bodies they post, oldest first (what a resend sends again). */
  outboxDeliveries(transactionId: string): OutboxDelivery[] {
    return (this.all(`SELECT * FROM webhook_deliveries WHERE transaction_seq = ${SEQ_OF_TRANSACTION} ORDER BY seq`, transactionId) as DeliveryRow[]).map(deliveryFromRow)
  }

  /** Set when a commit stored a new transaction: told after it (search-indexing.ts wakes its thread). */
  onTransactionsStored?: () => void
  private transactionsStored = false

  private committed(): void {
    if (!this.transactionsStored) return
    this.transactionsStored = false
    this.onTransactionsStored?.()
  }

  /** Whether this connection has the search index attached as `search` (search-file.ts). */
  private searchAttached = false
  /** Set for a connection that reads the store's search file (a query connection): attached when it is there. */
  private readsSearchFile = false

  /**
   * Attaches the search index to this connection to write it: its file beside a store file (a
   * connection of the indexing's own, never the one that answers requests: its immediate writes
   * would lock the index too), or one in memory beside an in-memory store. Whether it is attached.
   */
  attachSearchIndexForWriting(): boolean {
    this.searchAttached ||= attachSearchIndex(this.db, this.location, 'write')
    return this.searchAttached
  }

  /** Indexes for search up to `limit` transactions the index does not hold yet (search-file.ts); how many. */
  indexForSearch(limit: number): number {
    if (!this.searchAttached) return 0
    this.commitGroup()
    commitOtherGroups(this)
    this.flushDeferred()
    return indexSearchBatch(this.db, limit)
  }

  /** How many stored transactions the search index does not hold yet (searches find them all the same); undefined without one. */
  searchPending(): number | undefined {
    if (!this.searchAttached && !this.attachedForReading()) return undefined
    return Math.max(0, this.lastStoredSeq() - indexedUpTo(this.db))
  }

  /** Up to which seq the search index attached holds every transaction of the store. */
  searchIndexedUpTo(): number {
    return this.searchAttached ? indexedUpTo(this.db) : 0
  }

  /** The seq of the newest transaction stored, 0 for none. */
  lastStoredSeq(): number {
    return (this.get('SELECT coalesce(max(seq), 0) AS stored FROM main.transactions') as {stored: number}).stored
  }

  private attachedForReading(): boolean {
    if (!this.searchAttached && this.readsSearchFile && !this.db.inTransaction) this.searchAttached = attachSearchIndex(this.db, this.location, 'read')
    return this.searchAttached
  }

  /**
   * One page of transactions, newest first, each filter an indexed column; `before` is the id of
   * the previous page's last transaction (keyset paging: a page costs the same however deep it
   * is), and `next` is set when more may follow.
   *
   * With `search`, those whose id, merchant reference or customer (id, name or e-mail address)
   * contains it, ignoring case. A search of three characters or more reads the trigram index in
   * the order transactions were stored, newest first, and stops when the page is full; a
   * shorter one walks the transactions newest first, testing each, until the page is full.
   */
  transactionPage(query: TransactionQuery): TransactionPage {
    const where: string[] = []
    const params: unknown[] = []
    for (const column of ['status', 'product', 'customer'] as const) {
      if (query[column] === undefined) continue
      where.push(`t.${column} = ?`)
      params.push(query[column])
    }
    const search = query.search?.trim()
    const indexed = search !== undefined && [...search].length >= MIN_INDEXED_SEARCH
    // Attached (when it is there) before the read transaction: SQLite attaches none inside one.
    if (indexed) this.attachedForReading()
    const rows = indexed ? this.inReadTransaction(() => this.searchPage(search, where, params, query)) : this.listPage(search || undefined, where, params, query)
    const transactions = rows.slice(0, query.limit).map(transactionFromRow)
    return rows.length > query.limit ? {transactions, next: transactions.at(-1)!.transaction.id} : {transactions}
  }

  /**
   * Rows by the trigram indexes, newest stored first; one more than the page, to know whether
   * more follow. Two lists, each read newest first and no further than a page: the transactions
   * whose id or merchant reference holds the search (their index's rowids count down), and those
   * of the customers whose id, name or e-mail address holds it (by customer and seq). The page is
   * the newest of both, each transaction once.
   */
  private searchPage(search: string, where: string[], params: unknown[], query: TransactionQuery): TransactionRow[] {
    const phrase = `"${search.replaceAll('"', '""')}"`
    const byText = [...where]
    const byTextParams = [...params]
    if (query.before !== undefined) {
      const cursor = this.get('SELECT seq FROM transactions WHERE id = ?', query.before) as {seq: number} | undefined
      if (!cursor) return []
      // The index's rowids count down as transactions are stored: older ones come after.
      byText.push('s.rowid > ?')
      byTextParams.push(SEARCH_ROWID_TOP - cursor.seq)
      where.push('t.seq < ?')
      params.push(cursor.seq)
    }
    const limit = query.limit + 1
    const and = (conditions: string[]) => conditions.map((condition) => `AND ${condition}`).join(' ')
    // The index holds every transaction up to `upTo` (of this store's epoch): the newer ones are
    // tested here. Read in one read transaction, the index and the store are seen as of one moment each.
    const indexed = this.attachedForReading() ? indexedUpTo(this.db) : 0
    const rows = this.pendingMatches(search, indexed, and(where), params, limit)
    if (indexed > 0) {
      rows.push(
        ...(this.all(
          `SELECT ${TRANSACTION_COLUMNS} FROM search.transaction_search s JOIN main.transactions t ON t.seq = ${SEARCH_ROWID_TOP} - s.rowid
           WHERE s.transaction_search MATCH ? ${and(byText)} ORDER BY s.rowid LIMIT ?`,
          phrase,
          ...byTextParams,
          limit,
        ) as TransactionRow[]),
      )
    }
    const customers = this.all('SELECT id FROM customer_search WHERE customer_search MATCH ?', phrase) as {id: string}[]
    if (customers.length === 0) return newestOnce(rows, limit)
    // The customers' newest transactions by the index on (customer, seq), named so that SQLite
    // reads it customer by customer and stops each at a page; left to choose, with a status
    // filter it walked every transaction of that status.
    const sql = `SELECT ${TRANSACTION_COLUMNS} FROM transactions t INDEXED BY transactions_by_customer_seq
      WHERE t.customer IN (SELECT value FROM json_each(?)) ${and(where)} ORDER BY t.seq DESC LIMIT ?`
    rows.push(...(this.all(sql, JSON.stringify(customers.map(({id}) => id)), ...params, limit) as TransactionRow[]))
    return newestOnce(rows, limit)
  }

  /**
   * The transactions stored after the last one indexed for search whose id or merchant reference
   * contains the search, ignoring case as the index does; newest first, at most `limit`. Few
   * wait as a rule (the indexing thread keeps up between bursts of starts).
   */
  private pendingMatches(search: string, indexed: number, and: string, params: unknown[], limit: number): TransactionRow[] {
    const needle = search.toLowerCase()
    const sql = `SELECT ${TRANSACTION_COLUMNS}, t.id, t.merchant_reference FROM main.transactions t WHERE t.seq > ? ${and} ORDER BY t.seq DESC`
    const found: TransactionRow[] = []
    for (const row of this.statement(sql).iterate(indexed, ...params) as Iterable<TransactionRow & {id: string; merchant_reference: string | null}>) {
      if (!row.id.toLowerCase().includes(needle) && !(row.merchant_reference ?? '').toLowerCase().includes(needle)) continue
      found.push(row)
      if (found.length === limit) break
    }
    return found
  }

  /** `read` in one read transaction: the store and its search index each seen as of one moment (an in-memory store is this connection's alone). */
  private inReadTransaction<T>(read: () => T): T {
    if (this.location === IN_MEMORY_STORE || this.group || this.db.inTransaction) return read()
    this.db.exec('BEGIN')
    try {
      return read()
    } finally {
      this.db.exec('COMMIT')
    }
  }

  /** Rows by creation time, newest first, tested against a short search if any; one more than the page. */
  private listPage(search: string | undefined, where: string[], params: unknown[], query: TransactionQuery): TransactionRow[] {
    if (search !== undefined) {
      where.push(`(instr(lower(t.id), lower(?)) > 0 OR instr(lower(coalesce(t.merchant_reference, '')), lower(?)) > 0
        OR t.customer IN (SELECT id FROM customers WHERE instr(lower(id), lower(?)) > 0
          OR instr(lower(coalesce(json_extract(body, '$.first_name'), '') || ' ' || coalesce(json_extract(body, '$.last_name'), '')), lower(?)) > 0
          OR instr(lower(coalesce(json_extract(body, '$.email_address'), '')), lower(?)) > 0))`)
      params.push(...Array.from({length: 5}, () => search))
    }
    if (query.before !== undefined) {
      const cursor = this.get('SELECT created_at, rowid AS seq FROM transactions WHERE id = ?', query.before) as {created_at: string; seq: number} | undefined
      if (!cursor) return []
      where.push('(t.created_at, t.rowid) < (?, ?)')
      params.push(cursor.created_at, cursor.seq)
    }
    const sql = `SELECT ${TRANSACTION_COLUMNS} FROM transactions t ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY t.created_at DESC, t.rowid DESC LIMIT ?`
    return this.all(sql, ...params, query.limit + 1) as TransactionRow[]
  }

  /**
   * Runs `change` inside a write with the status changes, deliveries and updates of stored
   * transactions it makes held back and written many per statement (deferred-rows.ts), whenever
   * the store is about to read or write anything else, and at the end.
   */
  deferringWrites<T>(change: () => T): T {
    this.deferred = new DeferredRows()
    try {
      const result = change()
      this.flushDeferred()
      return result
    } finally {
      this.deferred = undefined
    }
  }

  private flushDeferred(): void {
    this.deferred?.flush((sql, params) => this.statement(sql).run(...params))
  }

  private statement(sql: string) {
    let statement = this.statements.get(sql)
    if (!statement) {
      statement = this.db.prepare(sql) as Statement
      this.statements.set(sql, statement)
    }
    return statement
  }

  // Each of these writes what is held back first: it may read it, or write after it.
  private run(sql: string, ...params: unknown[]): void {
    if (this.group && !this.inGroupedChange) this.commitGroup()
    this.flushDeferred()
    this.rowWrites++
    this.statement(sql).run(...params)
  }

  /** Runs an INSERT; the new row's rowid. */
  private insert(sql: string, ...params: unknown[]): number {
    if (this.group && !this.inGroupedChange) this.commitGroup()
    this.flushDeferred()
    this.rowWrites++
    return Number((this.statement(sql).run(...params) as {lastInsertRowid: number | bigint}).lastInsertRowid)
  }

  private get(sql: string, ...params: unknown[]): unknown {
    if (this.group && !this.inGroupedChange) this.commitGroup()
    this.flushDeferred()
    return this.statement(sql).get(...params)
  }

  private all(sql: string, ...params: unknown[]): unknown[] {
    if (this.group && !this.inGroupedChange) this.commitGroup()
    this.flushDeferred()
    return this.statement(sql).all(...params)
  }
}
