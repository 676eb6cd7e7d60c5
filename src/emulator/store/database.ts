/**
 * The emulator's SQLite database: opening it (0600, WAL), recognising it as an emulator store,
 * and bringing its schema up to date. A file that is not an emulator store (corrupt, another
 * program's database, a newer paytx's) is refused and left exactly as it was: nothing is written
 * to it, its mode is kept, and nothing is created or changed beside it (read-only.ts).
 *
 * libsql is used for its better-sqlite3 API with prebuilt N-API binaries: one node_modules loads
 * under every supported Node version, with no compiler and no download outside the npm registry.
 */
import {chmodSync, closeSync, existsSync, openSync, statSync} from 'node:fs'

import type LibsqlDatabase from 'libsql'

import {loadLibsql, openReadOnly, quickCheckProblems, scalar, storeNeighbours} from './read-only.js'
import {StoreError} from './store-error.js'
import {EMULATOR_APPLICATION_ID, checkHeaderVersion, checkSqliteIdentity, checkWritable, newerStoreError, storeFileKind} from './store-file.js'

export type Database = LibsqlDatabase.Database
export type Statement = LibsqlDatabase.Statement<unknown[]>

export const IN_MEMORY_STORE = ':memory:'

/** How long an emulator waits for another one's lock on the shared store. */
export const BUSY_TIMEOUT_MS = 10_000

/**
 * A transaction's rowid in the search index is this less its seq: the index lists the newest
 * first (see the last migration). Far above any seq a store reaches, and within SQLite's rowids.
 */
export const SEARCH_ROWID_TOP = 2 ** 40

/** Each entry moves the schema from version `index` to `index + 1`; never edit a released one. */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE organisations (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
  );
  CREATE TABLE payment_profiles (
    id TEXT PRIMARY KEY,
    organisation TEXT NOT NULL,
    name TEXT NOT NULL,
    webhook_transaction_update TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE customers (
    id TEXT PRIMARY KEY,
    body TEXT NOT NULL
  );
  CREATE TABLE cards (
    id TEXT PRIMARY KEY,
    body TEXT NOT NULL
  );
  CREATE TABLE transactions (
    id TEXT PRIMARY KEY,
    body TEXT NOT NULL,
    cvv_given INTEGER NOT NULL,
    settlement_held INTEGER NOT NULL DEFAULT 0,
    due_at INTEGER
  );
  CREATE INDEX transactions_due ON transactions (due_at) WHERE due_at IS NOT NULL;
  CREATE TABLE webhook_deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    transaction_id TEXT NOT NULL,
    status TEXT NOT NULL,
    url TEXT NOT NULL,
    payload TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at TEXT NOT NULL,
    delivered_at TEXT,
    attempts TEXT NOT NULL DEFAULT '[]',
    next_try_at INTEGER,
    claimed_until INTEGER
  );
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_try_at) WHERE state = 'pending';
  CREATE INDEX webhook_deliveries_by_transaction ON webhook_deliveries (transaction_id, url, state);
  `,
  // Every status change of a transaction, for its timeline (the dashboard, /_emulator/transactions/<id>).
  `
  CREATE TABLE status_changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    transaction_id TEXT NOT NULL,
    from_status TEXT,
    to_status TEXT NOT NULL,
    reason TEXT NOT NULL,
    at TEXT NOT NULL,
    by TEXT NOT NULL
  );
  CREATE INDEX status_changes_by_transaction ON status_changes (transaction_id, seq);
  `,
  // The transaction's fields that lists filter, sort and search on, as columns SQLite keeps in
  // step with the body (virtual: nothing is stored twice but their indexes), and a trigram index
  // for search: any case-insensitive substring of the id, the merchant reference or the customer's
  // id, name or e-mail address is found without reading every row. Its rowids follow the order
  // transactions were stored, so a search reads it newest first and stops at a full page.
  // Finished deliveries get an index of their own, so that trimming the delivery log after each
  // attempt does not read the pending ones (100,000 after a restart over as many overdue moves).
  `
  ALTER TABLE transactions ADD COLUMN status TEXT GENERATED ALWAYS AS (json_extract(body, '$.status')) VIRTUAL;
  ALTER TABLE transactions ADD COLUMN created_at TEXT GENERATED ALWAYS AS (json_extract(body, '$.created_at')) VIRTUAL;
  ALTER TABLE transactions ADD COLUMN merchant_reference TEXT GENERATED ALWAYS AS (json_extract(body, '$.merchant_reference')) VIRTUAL;
  ALTER TABLE transactions ADD COLUMN customer TEXT GENERATED ALWAYS AS (json_extract(body, '$.customer')) VIRTUAL;
  ALTER TABLE transactions ADD COLUMN product TEXT GENERATED ALWAYS AS (json_extract(body, '$.payment_product')) VIRTUAL;
  CREATE INDEX transactions_by_created ON transactions (created_at);
  CREATE INDEX transactions_by_status ON transactions (status, created_at);
  CREATE INDEX transactions_by_product ON transactions (product, created_at);
  CREATE INDEX transactions_by_customer ON transactions (customer, created_at);
  CREATE INDEX transactions_by_reference ON transactions (merchant_reference);
  CREATE INDEX webhook_deliveries_finished ON webhook_deliveries (seq) WHERE state != 'pending';
  CREATE VIRTUAL TABLE transaction_search USING fts5 (id, merchant_reference, customer_id, customer_name, customer_email, tokenize = 'trigram');
  CREATE TRIGGER transactions_searchable AFTER INSERT ON transactions BEGIN
    INSERT INTO transaction_search (rowid, id, merchant_reference, customer_id, customer_name, customer_email)
    SELECT new.rowid, new.id, coalesce(new.merchant_reference, ''), coalesce(new.customer, ''),
           coalesce(trim(coalesce(json_extract(c.body, '$.first_name'), '') || ' ' || coalesce(json_extract(c.body, '$.last_name'), '')), ''),
           coalesce(json_extract(c.body, '$.email_address'), '')
    FROM (SELECT 1) LEFT JOIN customers c ON c.id = new.customer;
  END;
  INSERT INTO transaction_search (rowid, id, merchant_reference, customer_id, customer_name, customer_email)
  SELECT t.rowid, t.id, coalesce(t.merchant_reference, ''), coalesce(t.customer, ''),
         coalesce(trim(coalesce(json_extract(c.body, '$.first_name'), '') || ' ' || coalesce(json_extract(c.body, '$.last_name'), '')), ''),
         coalesce(json_extract(c.body, '$.email_address'), '')
  FROM transactions t LEFT JOIN customers c ON c.id = t.customer ORDER BY t.rowid;
  `,
  // The columns lists filter, sort and search on become plain ones the store writes beside the
  // body: a virtual column is computed from the JSON body on every read, and an UPDATE of the body
  // rewrites all five of its indexes; a status move now writes the status and the due indexes only.
  // The table is rebuilt keeping every rowid (the search index refers to them), with the rowid a
  // column of its own (seq), so that a VACUUM cannot renumber them. A transaction's status changes
  // and deliveries are indexed by that seq instead of its random id: moves made in the order they
  // fell due (a catch-up) add to the end of those indexes instead of to a page almost each.
  // Deliveries held by an emulator get an index of their own, so that the next due time is found
  // without reading every pending delivery.
  `
  DROP TRIGGER transactions_searchable;
  CREATE TABLE transactions_stored (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    body TEXT NOT NULL,
    cvv_given INTEGER NOT NULL,
    settlement_held INTEGER NOT NULL DEFAULT 0,
    due_at INTEGER,
    status TEXT,
    created_at TEXT,
    merchant_reference TEXT,
    customer TEXT,
    product TEXT
  );
  INSERT INTO transactions_stored (seq, id, body, cvv_given, settlement_held, due_at, status, created_at, merchant_reference, customer, product)
  SELECT rowid, id, body, cvv_given, settlement_held, due_at, status, created_at, merchant_reference, customer, product FROM transactions ORDER BY rowid;
  DROP TABLE transactions;
  ALTER TABLE transactions_stored RENAME TO transactions;
  CREATE INDEX transactions_due ON transactions (due_at) WHERE due_at IS NOT NULL;
  CREATE INDEX transactions_by_created ON transactions (created_at);
  CREATE INDEX transactions_by_status ON transactions (status, created_at);
  CREATE INDEX transactions_by_product ON transactions (product, created_at);
  CREATE INDEX transactions_by_customer ON transactions (customer, created_at);
  CREATE INDEX transactions_by_reference ON transactions (merchant_reference);
  ALTER TABLE status_changes ADD COLUMN transaction_seq INTEGER;
  UPDATE status_changes SET transaction_seq = (SELECT seq FROM transactions t WHERE t.id = status_changes.transaction_id);
  DROP INDEX status_changes_by_transaction;
  CREATE INDEX status_changes_by_transaction ON status_changes (transaction_seq, seq);
  ALTER TABLE webhook_deliveries ADD COLUMN transaction_seq INTEGER;
  UPDATE webhook_deliveries SET transaction_seq = (SELECT seq FROM transactions t WHERE t.id = webhook_deliveries.transaction_id);
  DROP INDEX webhook_deliveries_by_transaction;
  CREATE INDEX webhook_deliveries_by_transaction ON webhook_deliveries (transaction_seq, url, state);
  CREATE INDEX webhook_deliveries_claimed ON webhook_deliveries (claimed_until) WHERE claimed_until IS NOT NULL;
  CREATE TRIGGER transactions_searchable AFTER INSERT ON transactions BEGIN
    INSERT INTO transaction_search (rowid, id, merchant_reference, customer_id, customer_name, customer_email)
    SELECT new.seq, new.id, coalesce(new.merchant_reference, ''), coalesce(new.customer, ''),
           coalesce(trim(coalesce(json_extract(c.body, '$.first_name'), '') || ' ' || coalesce(json_extract(c.body, '$.last_name'), '')), ''),
           coalesce(json_extract(c.body, '$.email_address'), '')
    FROM (SELECT 1) LEFT JOIN customers c ON c.id = new.customer;
  END;
  `,
  // The search index's rowids count down as transactions are stored (2^40 - seq), so that newest
  // first is the order FTS5 reads a term's list in: read backwards, it loads each list whole, and a
  // search with trigrams every transaction has (a common reference prefix, a shared name) read a
  // million entries of each, 2.6 ms for one reference over 1,000,000 stored (0.8 ms read forwards).
  `
  CREATE TEMP TABLE search_rows AS SELECT rowid AS seq, id, merchant_reference, customer_id, customer_name, customer_email FROM transaction_search;
  DROP TRIGGER transactions_searchable;
  DROP TABLE transaction_search;
  CREATE VIRTUAL TABLE transaction_search USING fts5 (id, merchant_reference, customer_id, customer_name, customer_email, tokenize = 'trigram');
  INSERT INTO transaction_search (rowid, id, merchant_reference, customer_id, customer_name, customer_email)
  SELECT ${SEARCH_ROWID_TOP} - seq, id, merchant_reference, customer_id, customer_name, customer_email FROM temp.search_rows ORDER BY seq DESC;
  DROP TABLE temp.search_rows;
  CREATE TRIGGER transactions_searchable AFTER INSERT ON transactions BEGIN
    INSERT INTO transaction_search (rowid, id, merchant_reference, customer_id, customer_name, customer_email)
    SELECT ${SEARCH_ROWID_TOP} - new.seq, new.id, coalesce(new.merchant_reference, ''), coalesce(new.customer, ''),
           coalesce(trim(coalesce(json_extract(c.body, '$.first_name'), '') || ' ' || coalesce(json_extract(c.body, '$.last_name'), '')), ''),
           coalesce(json_extract(c.body, '$.email_address'), '')
    FROM (SELECT 1) LEFT JOIN customers c ON c.id = new.customer;
  END;
  `,
  // Customers get a search index of their own, and the transactions' index keeps their id and
  // merchant reference only. With the customer's id, name and e-mail address beside every one of
  // its transactions, a shop that runs everything as one test customer had each trigram of that
  // customer in every transaction's entry: a search sharing one trigram with it (part of an id)
  // read a list as long as the store, 5.7 to 12.7 ms over 1,000,000 against 0.6 ms without. A
  // search now finds the customers, then their transactions newest first by the index on
  // (customer, seq), beside the matches of the id and reference.
  `
  DROP TRIGGER transactions_searchable;
  DROP TABLE transaction_search;
  CREATE VIRTUAL TABLE transaction_search USING fts5 (id, merchant_reference, tokenize = 'trigram');
  INSERT INTO transaction_search (rowid, id, merchant_reference)
  SELECT ${SEARCH_ROWID_TOP} - seq, id, coalesce(merchant_reference, '') FROM transactions ORDER BY seq DESC;
  CREATE TRIGGER transactions_searchable AFTER INSERT ON transactions BEGIN
    INSERT INTO transaction_search (rowid, id, merchant_reference) VALUES (${SEARCH_ROWID_TOP} - new.seq, new.id, coalesce(new.merchant_reference, ''));
  END;
  CREATE VIRTUAL TABLE customer_search USING fts5 (id, name, email_address, tokenize = 'trigram');
  INSERT INTO customer_search (rowid, id, name, email_address)
  SELECT rowid, id, trim(coalesce(json_extract(body, '$.first_name'), '') || ' ' || coalesce(json_extract(body, '$.last_name'), '')),
         coalesce(json_extract(body, '$.email_address'), '')
  FROM customers ORDER BY rowid;
  CREATE TRIGGER customers_searchable AFTER INSERT ON customers BEGIN
    INSERT INTO customer_search (rowid, id, name, email_address)
    VALUES (new.rowid, new.id, trim(coalesce(json_extract(new.body, '$.first_name'), '') || ' ' || coalesce(json_extract(new.body, '$.last_name'), '')),
            coalesce(json_extract(new.body, '$.email_address'), ''));
  END;
  CREATE INDEX transactions_by_customer_seq ON transactions (customer, seq);
  `,
  // The transactions' search index moves to a file of its own beside the store (search-file.ts),
  // written behind the starts, many a commit, by a thread of its own (search-indexing.ts): in
  // this file its trigram index cost a start more than its row, its other indexes and its commit
  // together, and held the one write lock meanwhile. A search reads the index and tests the
  // transactions it does not hold yet itself, so it stays exact (EmulatorStore.searchPage). The
  // store's epoch changes when it is emptied (a reset): an index of another epoch is of another store.
  `
  DROP TRIGGER transactions_searchable;
  DROP TABLE transaction_search;
  CREATE TABLE store_identity (epoch TEXT NOT NULL);
  INSERT INTO store_identity (epoch) VALUES (lower(hex(randomblob(16))));
  `,
]

export const SCHEMA_VERSION = MIGRATIONS.length

/**
 * Opens (or creates) the store at `path`, or an in-memory one for `:memory:`, with the schema
 * at the current version. Throws StoreError (exit 2) for anything but a missing path, an empty
 * regular file or an emulator store, before changing anything of it or beside it.
 */
export function openDatabase(path: string): Database {
  if (path === IN_MEMORY_STORE) return openChecked(path, {checked: false})
  const kind = storeFileKind(path)
  if (kind === 'other') throw new StoreError(path, 'is not an emulator store (not an SQLite database).')
  if (kind === 'json') throw new StoreError(path, 'is a JSON file, not an emulator store.')
  if (kind === 'sqlite') {
    checkSqliteIdentity(path)
    checkHeaderVersion(path, SCHEMA_VERSION)
  }
  checkWritable(path, kind)
  const checked = kind === 'sqlite' && checkWritingNothing(path)
  if (kind === 'missing') createStoreFile(path)
  // Known now to be an emulator store (or a new, empty file): only its owner may read it. Made so
  // before SQLite opens it, since its -wal and -shm take the file's mode when SQLite creates them.
  const {mode} = statSync(path)
  if ((mode & 0o077) !== 0) chmodSync(path, 0o600)
  try {
    return openChecked(path, {checked})
  } catch (error) {
    // Refused after all (changed meanwhile by another process): the mode it had is given back.
    if ((mode & 0o077) !== 0) chmodSync(path, mode & 0o7777)
    throw error
  }
}

/**
 * Checks the store on a connection that writes nothing (read-only.ts): what it is, its version,
 * SQLite's quick check; whether it could tell. While nothing lies beside it, the file is read
 * alone; if that finds it damaged and its -wal or -journal changed meanwhile (another emulator
 * opened it), the file may have been read half-way through that emulator's copy of its -wal:
 * it is read again, with its neighbours. A store the read-only connection cannot read at all (a
 * rollback journal left by a crash is SQLite's to roll back, which takes writing) is checked by
 * the open for writing, as before.
 */
function checkWritingNothing(path: string): boolean {
  const before = storeNeighbours(path)
  let fileAlone = before.fileAlone
  for (;;) {
    try {
      withReadOnly(path, fileAlone, (db) => retryWhileBusy(() => checkContents(db, path, {integrity: true})))
      return true
    } catch (error) {
      if (fileAlone && storeNeighbours(path).signature !== before.signature) fileAlone = false
      else if (error instanceof StoreError || isDamage(error)) throw asStoreError(error, path)
      else return false
    }
  }
}

function withReadOnly(path: string, fileAlone: boolean, use: (db: Database) => void): void {
  const db = openReadOnly(path, fileAlone)
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    use(db)
  } finally {
    db.close()
  }
}

/** What a worker's own connection to the store is for. */
export type AttachedUse = 'catch-up' | 'queries' | 'search-index'

/**
 * Each use's settings. A catch-up writes thousands of moves a commit, into indexes keyed by
 * random ids: a page cache of 64 MiB keeps their pages at hand. It copies the write-ahead log
 * back itself, between commits (EmulatorStore.copyLogBack): done inside a commit, as SQLite does,
 * the copy would hold the write lock it takes turns at with requests. Queries never write.
 */
const ATTACHED_PRAGMAS: Record<AttachedUse, string[]> = {
  'catch-up': ['cache_size = -65536', 'wal_autocheckpoint = 0'],
  queries: ['query_only = ON'],
  'search-index': ['cache_size = -256'],
}

/**
 * One more connection to a store this process opened with `openDatabase` (so checked and migrated
 * already), for a worker thread of the same emulator: only that it is still an emulator store of
 * this schema version is checked, not its every page again.
 */
export function attachDatabase(path: string, use: AttachedUse): Database {
  // SQLite would create a file that is gone: a new, empty one is not the store this emulator checked.
  if (!existsSync(path)) throw new StoreError(path, 'was removed while the emulator ran.', 'Restart the emulator.')
  const db = new (loadLibsql())(path)
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    const applicationId = Number(scalar(db, 'PRAGMA application_id'))
    const version = Number(scalar(db, 'PRAGMA user_version'))
    if (applicationId !== EMULATOR_APPLICATION_ID || version !== SCHEMA_VERSION) {
      throw new StoreError(path, `changed while the emulator ran (store version ${version}, expected ${SCHEMA_VERSION}).`, 'Restart the emulator.')
    }
    for (const pragma of ['synchronous = NORMAL', ...ATTACHED_PRAGMAS[use]]) db.exec(`PRAGMA ${pragma}`)
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

/** A new, empty store file readable by its owner alone; another emulator may create it first. */
function createStoreFile(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    if (code === 'EEXIST') return
    throw new StoreError(path, `cannot be created (${code}).`, 'Check that its folder exists and is writable, or pass another --store.', error)
  }
}

/** Opens the store for writing, checks it (`checked`: all but its identity and version were, by checkWritingNothing) and migrates it. */
function openChecked(path: string, {checked}: {checked: boolean}): Database {
  const Libsql = loadLibsql()
  let db: Database
  try {
    db = new Libsql(path)
  } catch (error) {
    throw new StoreError(path, `cannot be opened (${(error as Error).message}).`, 'Pass another --store.', error)
  }
  try {
    // Another emulator may hold the lock for a moment (creating the same store, say): wait for it.
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    retryWhileBusy(() => checkAndMigrate(db, path, {integrity: !checked}))
    return db
  } catch (error) {
    db.close()
    throw asStoreError(error, path)
  }
}

function isDamage(error: unknown): boolean {
  const code = (error as {code?: string}).code
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT'
}

function asStoreError(error: unknown, path: string): StoreError {
  if (error instanceof StoreError) return error
  if (isDamage(error)) return new StoreError(path, 'is not an emulator store (the database file is damaged or not SQLite).')
  return new StoreError(path, `cannot be used (${(error as Error).message}).`, 'Pass another --store.', error)
}

function isBusy(error: unknown): boolean {
  const {code, message} = error as {code?: string; message?: string}
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || /database is locked/.test(message ?? '')
}

/** Runs `work` again while another emulator holds the lock, up to the busy timeout. */
function retryWhileBusy(work: () => void): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS
  for (;;) {
    try {
      work()
      return
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20)
    }
  }
}

/**
 * Refuses a file that is no emulator store this paytx knows, reading only (so that a foreign,
 * corrupt or newer file stays untouched); the schema version found.
 */
function checkContents(db: Database, path: string, {integrity}: {integrity: boolean}): number {
  const applicationId = Number(scalar(db, 'PRAGMA application_id'))
  const version = Number(scalar(db, 'PRAGMA user_version'))
  const tables = Number(scalar(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"))
  const fresh = applicationId === 0 && version === 0 && tables === 0
  if (!fresh && applicationId !== EMULATOR_APPLICATION_ID) throw new StoreError(path, 'is an SQLite database of another program, not an emulator store.')
  if (!fresh && integrity) checkIntegrity(db, path)
  if (version > SCHEMA_VERSION) throw newerStoreError(path, version, SCHEMA_VERSION)
  return version
}

/** Checks what the file is, then sets WAL and migrates. */
function checkAndMigrate(db: Database, path: string, {integrity}: {integrity: boolean}): void {
  const version = checkContents(db, path, {integrity})
  if (path !== IN_MEMORY_STORE) {
    db.exec('PRAGMA journal_mode = WAL')
    // In WAL mode, NORMAL commits survive a crash of the process (kill -9); only a power loss
    // may take back the last commits. That is the promise an emulator needs, at a fraction of the cost.
    db.exec('PRAGMA synchronous = NORMAL')
  }
  migrate(db, version)
}

/**
 * A store damaged beyond its first pages opens fine and fails request after request later: SQLite's
 * quick check (the structure of every page, without the slower index cross-checks) finds it now.
 */
function checkIntegrity(db: Database, path: string): void {
  const problems = quickCheckProblems(db)
  if (problems.length === 0) return
  throw new StoreError(
    path,
    `is damaged (SQLite's quick check: ${problems.join('; ')}).`,
    'It was left untouched: keep it for inspection, recover what it holds with `sqlite3 <store> .recover`, or pass another --store.',
  )
}

function migrate(db: Database, from: number): void {
  if (from === SCHEMA_VERSION) return
  db.exec('BEGIN IMMEDIATE')
  try {
    // Another emulator may have migrated between our read and this lock.
    const current = Number(scalar(db, 'PRAGMA user_version'))
    for (let version = current; version < SCHEMA_VERSION; version++) db.exec(MIGRATIONS[version])
    db.exec(`PRAGMA application_id = ${EMULATOR_APPLICATION_ID}`)
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`)
    db.exec('COMMIT')
  } catch (error) {
    db.exec('ROLLBACK')
    throw error
  }
}
