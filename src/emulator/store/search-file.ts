/**
 * The transactions' search index, in a file of its own beside the store file (`<store>-search`,
 * 0600, WAL), attached to a connection as the schema `search`. It is derived from the store and
 * nothing else: written behind the transaction starts by the indexing thread
 * (search-indexing.ts), it has a write lock of its own, so that indexing never holds up a start.
 * Deleted, it is built again; of another store's epoch (the store was reset, or replaced), it is
 * emptied and built again; a file of that name that is not one is left as it is, and searches
 * then read the store alone. An in-memory store's index is in memory too.
 *
 * `progress` says up to which seq every transaction of the store's epoch is indexed; a search
 * tests the newer ones itself (EmulatorStore.searchPage), so it is exact whatever the index holds.
 */
import {chmodSync, closeSync, existsSync, openSync, statSync} from 'node:fs'

import {BUSY_TIMEOUT_MS, type Database, IN_MEMORY_STORE, SEARCH_ROWID_TOP} from './database.js'
import {loadLibsql, scalar} from './read-only.js'

/** The search file's SQLite application id ("ptxs") and schema version. */
const SEARCH_FILE_ID = 0x70747873
const SEARCH_FILE_VERSION = 1

const schema = (name: string) => `
  CREATE TABLE IF NOT EXISTS ${name}.progress (epoch TEXT NOT NULL, indexed_seq INTEGER NOT NULL);
  CREATE VIRTUAL TABLE IF NOT EXISTS ${name}.transaction_search USING fts5 (id, merchant_reference, tokenize = 'trigram');
`

export function searchFilePath(location: string): string {
  return `${location}-search`
}

/**
 * Attaches the store's search index to `db` as `search`; whether it is attached. To write, the
 * file is made (or made again, emptied) when missing or of an older version; to read, it is
 * attached only when it is there and is one.
 */
export function attachSearchIndex(db: Database, location: string, use: 'read' | 'write'): boolean {
  if (location === IN_MEMORY_STORE) {
    db.exec(`ATTACH DATABASE ':memory:' AS search`)
    db.exec(schema('search'))
    return true
  }
  const path = searchFilePath(location)
  if (use === 'write' ? !prepareSearchFile(path) : !existsSync(path)) return false
  try {
    db.prepare('ATTACH DATABASE ? AS search').run(path)
  } catch {
    return false
  }
  try {
    if (Number(scalar(db, 'PRAGMA search.application_id')) === SEARCH_FILE_ID && Number(scalar(db, 'PRAGMA search.user_version')) === SEARCH_FILE_VERSION) {
      if (use === 'write') db.exec('PRAGMA search.synchronous = NORMAL; PRAGMA search.cache_size = -256')
      return true
    }
  } catch {
    // Not a database (yet): read without it.
  }
  try {
    db.exec('DETACH DATABASE search')
  } catch {
    // Attached it stays, unread: every search reads the store alone.
  }
  return false
}

/** The search file ready to be written, made if missing; false for a file of that name that is something else. */
function prepareSearchFile(path: string): boolean {
  if (!existsSync(path)) {
    try {
      closeSync(openSync(path, 'wx', 0o600))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return false
    }
  }
  let db: Database
  try {
    db = new (loadLibsql())(path)
  } catch {
    return false
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`)
    const id = Number(scalar(db, 'PRAGMA application_id'))
    const empty = Number(scalar(db, 'PRAGMA page_count')) === 0
    if (!(id === SEARCH_FILE_ID || (id === 0 && empty))) return false
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600)
    if (id === SEARCH_FILE_ID && Number(scalar(db, 'PRAGMA user_version')) === SEARCH_FILE_VERSION) return true
    db.exec('PRAGMA journal_mode = WAL')
    db.exec('BEGIN IMMEDIATE')
    // Another emulator may have made it meanwhile; one of an older version is made again.
    if (Number(scalar(db, 'PRAGMA user_version')) !== SEARCH_FILE_VERSION) {
      db.exec('DROP TABLE IF EXISTS main.progress; DROP TABLE IF EXISTS main.transaction_search;')
      db.exec(schema('main'))
      db.exec(`PRAGMA application_id = ${SEARCH_FILE_ID}`)
      db.exec(`PRAGMA user_version = ${SEARCH_FILE_VERSION}`)
    }
    db.exec('COMMIT')
    return true
  } catch {
    if (db.inTransaction) db.exec('ROLLBACK')
    return false
  } finally {
    db.close()
  }
}

/** Where the index of `db` (store as `main`, index as `search`) stands: indexed up to `upTo`, of the store's epoch. */
export function indexedUpTo(db: Database): number {
  const row = db.prepare('SELECT p.indexed_seq AS upTo FROM search.progress p WHERE p.epoch = (SELECT epoch FROM main.store_identity)').get() as {upTo: number} | undefined
  return row?.upTo ?? 0
}

/**
 * Indexes the oldest transactions the index does not hold, at most `limit`, in one commit of the
 * index; how many it indexed. The transaction begins deferred: the store is only read, and only
 * the index is locked for writing (an immediate one would lock every attached file). Read inside
 * it, the progress is the same for every emulator sharing the index: each row is indexed once.
 * The rows go in newest first, so that the index's rowids (which count down) rise within the
 * statement and SQLite's full-text index writes its pending rows out once, at the commit.
 */
export function indexSearchBatch(db: Database, limit: number): number {
  db.exec('BEGIN')
  try {
    const epoch = scalar(db, 'SELECT epoch FROM main.store_identity') as string
    const progress = db.prepare('SELECT epoch, indexed_seq FROM search.progress').get() as {epoch: string; indexed_seq: number} | undefined
    if (progress?.epoch !== epoch) {
      // Another store's index (emptied since, or replaced): built again from its first transaction.
      db.exec('DELETE FROM search.transaction_search; DELETE FROM search.progress;')
      db.prepare('INSERT INTO search.progress (epoch, indexed_seq) VALUES (?, 0)').run(epoch)
    }
    const from = progress?.epoch === epoch ? progress.indexed_seq : 0
    const last = (db.prepare('SELECT max(seq) AS last FROM (SELECT seq FROM main.transactions WHERE seq > ? ORDER BY seq LIMIT ?)').get(from, limit) as {last: number | null}).last
    if (last !== null) {
      db.prepare(
        `INSERT INTO search.transaction_search (rowid, id, merchant_reference)
         SELECT ${SEARCH_ROWID_TOP} - seq, id, coalesce(merchant_reference, '') FROM main.transactions WHERE seq > ? AND seq <= ? ORDER BY seq DESC`,
      ).run(from, last)
      db.prepare('UPDATE search.progress SET indexed_seq = ?').run(last)
    }
    db.exec('COMMIT')
    return last === null ? 0 : last - from
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK')
    throw error
  }
}
