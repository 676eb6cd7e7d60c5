/**
 * Reading a store without writing anything of it or beside it. SQLite writes beside a store in WAL
 * mode even to read it: it creates the -wal and -shm files, and marks its reads in the -shm. So a
 * store is judged before it is opened for writing, on a connection that writes nothing: while no
 * -wal, -shm or -journal lies beside it (no emulator uses it, and the last one closed it), SQLite
 * is told the file is immutable and reads it alone, with no lock and no file of its own. Beside
 * one of them, the file alone may miss what the -wal holds, so an emulator reads it read-only
 * (`mode=ro`), which writes to the -shm only: a reader must, and an emulator over the store does
 * so anyway. `paytx doctor` reads the file alone always, and says what it did not read.
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

/** The files SQLite keeps beside a store while it is used (WAL) or written (rollback journal). */
export const NEIGHBOUR_SUFFIXES = ['-wal', '-shm', '-journal'] as const

/** The neighbours of the store at `path` that exist, as paths. */
export function storeNeighbours(path: string): string[] {
  return NEIGHBOUR_SUFFIXES.map((suffix) => `${path}${suffix}`).filter((neighbour) => {
    try {
      lstatSync(neighbour)
      return true
    } catch {
      return false
    }
  })
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
  /** The neighbours beside it: the -wal among them holds changes that were not read. */
  neighbours: string[]
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
  const neighbours = storeNeighbours(path)
  const db = openReadOnly(path, true)
  try {
    return {
      applicationId: Number(scalar(db, 'PRAGMA application_id')),
      version: Number(scalar(db, 'PRAGMA user_version')),
      tables: Number(scalar(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'")),
      problems: quickCheckProblems(db),
      neighbours,
    }
  } finally {
    db.close()
  }
}
