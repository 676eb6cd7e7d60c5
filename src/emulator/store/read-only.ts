/**
 * Reading a store without writing anything of it or beside it. SQLite writes beside a store in WAL
 * mode even to read it: it creates the -wal and -shm files, and marks its reads in the -shm. So a
 * store is judged before it is opened for writing, on a connection that writes nothing: while no
 * -wal or -journal with something in it lies beside it (no emulator is writing it, and the last
 * one copied its -wal back as it stopped), SQLite is told the file is immutable and reads it
 * alone, with no lock and no file of its own. Beside such a -wal, the file alone misses what the
 * -wal holds, so an emulator reads it read-only (`mode=ro`), which writes to the -shm only (an
 * index of the -wal, rebuilt from it): a reader must, and an emulator over the store does so
 * anyway. `paytx doctor` reads the file alone always, and says what it did not read.
 *
 * libsql's `readonly` option is not passed on to SQLite (the connection writes): the read-only
 * opens go through SQLite URIs (`file:…?immutable=1`, `?mode=ro`) instead.
 */
import {lstatSync} from 'node:fs'
import {createRequire} from 'node:module'
import {pathToFileURL} from 'node:url'

import type LibsqlDatabase from 'libsql'

export type Database = LibsqlDatabase.Database

export function loadLibsql(): typeof LibsqlDatabase {
  // libsql is a CommonJS package with a native binding; loaded only when a store is opened.
  return createRequire(import.meta.url)('libsql') as typeof LibsqlDatabase
}

/**
 * What lies beside a store, as far as reading the file alone depends on it: a -wal or -journal
 * with something in it (the -shm only indexes the -wal, and a stopped emulator leaves an empty
 * -wal and its -shm). `signature` changes whenever either of them does.
 */
export interface Neighbours {
  fileAlone: boolean
  signature: string
}

export function storeNeighbours(path: string): Neighbours {
  let fileAlone = true
  const parts = ['-wal', '-journal'].map((suffix) => {
    try {
      const info = lstatSync(`${path}${suffix}`)
      if (info.size > 0) fileAlone = false
      return `${suffix} ${info.ino} ${info.size} ${info.mtimeMs}`
    } catch {
      return `${suffix} none`
    }
  })
  return {fileAlone, signature: parts.join(', ')}
}

/**
 * A connection that writes nothing: of the file alone (`immutable`, no lock, nothing created
 * beside it), or read-only with its neighbours (`mode=ro`: the -shm is written, nothing else).
 */
export function openReadOnly(path: string, fileAlone: boolean): Database {
  // A file: URI, its path percent-encoded, so that a `?` or `#` in a path is no parameter.
  const uri = `${pathToFileURL(path).href}?${fileAlone ? 'immutable=1' : 'mode=ro'}`
  return new (loadLibsql())(uri)
}

export function scalar(db: Database, sql: string): unknown {
  return (db.prepare(sql).raw().get() as unknown[] | undefined)?.[0]
}

/** What a store holds, as far as its header and SQLite's quick check tell. */
export interface StoreReading {
  applicationId: number
  version: number
  tables: number
  /** SQLite's quick check: empty when it finds nothing. */
  problems: string[]
}

/** SQLite's quick check (the structure of every page, without the slower index cross-checks): what it finds wrong. */
export function quickCheckProblems(db: Database, limit = 5): string[] {
  const rows = db.prepare(`PRAGMA quick_check(${limit})`).raw().all() as unknown[][]
  return rows.map((row) => String(row[0])).filter((line) => line !== 'ok')
}

/**
 * Reads the store file alone, writing nothing of it or beside it, whatever lies beside it (what
 * `paytx doctor` does). Throws SQLite's error for a file SQLite cannot read at all.
 */
export function readStoreFileAlone(path: string): StoreReading {
  const db = openReadOnly(path, true)
  try {
    return {
      applicationId: Number(scalar(db, 'PRAGMA application_id')),
      version: Number(scalar(db, 'PRAGMA user_version')),
      tables: Number(scalar(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'")),
      problems: quickCheckProblems(db),
    }
  } finally {
    db.close()
  }
}
