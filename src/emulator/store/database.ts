/**
 * The emulator's SQLite database: opening it (0600, WAL), recognising it as an emulator store,
 * and bringing its schema up to date. A file that is not an emulator store (corrupt, another
 * program's database) is refused and left exactly as it was: nothing is written to it.
 *
 * libsql is used for its better-sqlite3 API with prebuilt N-API binaries: one node_modules loads
 * under every supported Node version, with no compiler and no download outside the npm registry.
 */
import {chmodSync, closeSync, openSync, statSync} from 'node:fs'
import {createRequire} from 'node:module'

import type LibsqlDatabase from 'libsql'

import {StoreError} from './store-error.js'
import {EMULATOR_APPLICATION_ID, checkSqliteIdentity, checkWritable, storeFileKind} from './store-file.js'

export type Database = LibsqlDatabase.Database
export type Statement = LibsqlDatabase.Statement<unknown[]>

export const IN_MEMORY_STORE = ':memory:'

/** How long an emulator waits for another one's lock on the shared store. */
const BUSY_TIMEOUT_MS = 10_000

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
]

export const SCHEMA_VERSION = MIGRATIONS.length

function loadLibsql(): typeof LibsqlDatabase {
  // libsql is a CommonJS package with a native binding; loaded only when a store is opened.
  return createRequire(import.meta.url)('libsql') as typeof LibsqlDatabase
}

function scalar(db: Database, sql: string): unknown {
  return (db.prepare(sql).raw().get() as unknown[] | undefined)?.[0]
}

/**
 * Opens (or creates) the store at `path`, or an in-memory one for `:memory:`, with the schema
 * at the current version. Throws StoreError (exit 2) for anything but a missing path, an empty
 * regular file or an emulator store, before changing anything of it.
 */
export function openDatabase(path: string): Database {
  if (path === IN_MEMORY_STORE) return openChecked(path)
  const kind = storeFileKind(path)
  if (kind === 'other') throw new StoreError(path, 'is not an emulator store (not an SQLite database).')
  if (kind === 'json') throw new StoreError(path, 'is a JSON file, not an emulator store.')
  if (kind === 'sqlite') checkSqliteIdentity(path)
  checkWritable(path, kind)
  if (kind === 'missing') createStoreFile(path)
  // Known now to be an emulator store (or a new, empty file): only its owner may read it.
  else if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600)
  return openChecked(path)
}

/** A new, empty store file readable by its owner alone; another emulator may create it first. */
function createStoreFile(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    if (code === 'EEXIST') return
    throw new StoreError(path, `cannot be created (${code}).`, 'Check that its folder exists and is writable, or pass another --store.')
  }
}

function openChecked(path: string): Database {
  const Libsql = loadLibsql()
  let db: Database
  try {
    db = new Libsql(path)
  } catch (error) {
    throw new StoreError(path, `cannot be opened (${(error as Error).message}).`, 'Check its permissions, or pass another --store.')
  }
  try {
    // Another emulator may hold the lock for a moment (creating the same store, say): wait for it.
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    prepare(db, path)
    return db
  } catch (error) {
    db.close()
    if (error instanceof StoreError) throw error
    const code = (error as {code?: string}).code
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw new StoreError(path, 'is not an emulator store (the database file is damaged or not SQLite).')
    throw new StoreError(path, `cannot be used (${(error as Error).message}).`, 'Check its permissions, or pass another --store.')
  }
}

function isBusy(error: unknown): boolean {
  const {code, message} = error as {code?: string; message?: string}
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || /database is locked/.test(message ?? '')
}

/** Checks what the file is, then sets WAL and migrates; retried while another emulator holds the lock. */
function prepare(db: Database, path: string): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS
  for (;;) {
    try {
      checkAndMigrate(db, path)
      return
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20)
    }
  }
}

function checkAndMigrate(db: Database, path: string): void {
  // Read before anything is written, so that a foreign or corrupt file stays untouched.
  const applicationId = Number(scalar(db, 'PRAGMA application_id'))
  const version = Number(scalar(db, 'PRAGMA user_version'))
  const tables = Number(scalar(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"))
  const fresh = applicationId === 0 && version === 0 && tables === 0
  if (!fresh && applicationId !== EMULATOR_APPLICATION_ID) throw new StoreError(path, 'is an SQLite database of another program, not an emulator store.')
  if (!fresh) checkIntegrity(db, path)
  if (version > SCHEMA_VERSION) {
    throw new StoreError(path, `was written by a newer paytx (store version ${version}; this paytx knows up to ${SCHEMA_VERSION}).`, 'Upgrade paytx, or pass another --store.')
  }
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
  const rows = db.prepare('PRAGMA quick_check(5)').raw().all() as unknown[][]
  const problems = rows.map((row) => String(row[0])).filter((line) => line !== 'ok')
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
