/**
 * The emulator's default store, opened read-only: an SQLite file of paytx's, its schema version
 * against this paytx's, SQLite's own integrity check, and its size. Nothing is written: a store
 * in an older format is upgraded by the next emulator that opens it, not by doctor.
 */
import {existsSync, statSync} from 'node:fs'
import {createRequire} from 'node:module'

import type LibsqlDatabase from 'libsql'

import {SCHEMA_VERSION, storeFileKind} from '../emulator/store/index.js'
import {type DoctorCheck, fail, ok, warn} from './report.js'

function size(path: string): number {
  return [path, `${path}-wal`].reduce((total, file) => total + (existsSync(file) ? statSync(file).size : 0), 0)
}

function formatSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

export function storeCheck(path: string): DoctorCheck {
  const label = 'Emulator store'
  const kind = storeFileKind(path)
  if (kind === 'missing' || kind === 'empty') return ok('store', label, `${path} (none yet; made by the first emulator)`)
  if (kind === 'json') return warn('store', label, `${path} is in the older JSON format`, 'The next `paytx emulator start` converts it; nothing to do by hand.')
  if (kind === 'other') return fail('store', label, `${path} is not an SQLite file`, 'Move it away; the next emulator makes a fresh store (or pass --store to use another file).')
  const Database = createRequire(import.meta.url)('libsql') as typeof LibsqlDatabase
  let db: InstanceType<typeof LibsqlDatabase> | undefined
  try {
    db = new Database(path, {readonly: true})
    const scalar = (sql: string) => (db!.prepare(sql).raw().get() as unknown[] | undefined)?.[0]
    const version = Number(scalar('PRAGMA user_version'))
    const integrity = String(scalar('PRAGMA quick_check'))
    const shown = `${path}, schema ${version}, ${formatSize(size(path))}`
    if (integrity !== 'ok') return fail('store', label, `${shown}: SQLite finds it damaged (${integrity})`, 'Move it away and start the emulator again for a fresh store (the transactions in it are lost).')
    if (version > SCHEMA_VERSION) return fail('store', label, `${shown}, written by a newer paytx (this one knows up to ${SCHEMA_VERSION})`, 'Upgrade paytx, or use another --store.')
    if (version < SCHEMA_VERSION) return ok('store', label, `${shown} (upgraded to ${SCHEMA_VERSION} by the next emulator)`)
    return ok('store', label, `${shown}, intact`)
  } catch (error) {
    return fail('store', label, `${path} cannot be opened: ${(error as Error).message}`, 'Check that the file is readable by you and not locked by a stuck process.')
  } finally {
    db?.close()
  }
}
