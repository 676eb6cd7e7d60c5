/**
 * The emulator's default store, read without writing anything of it or beside it: what the path
 * is (a FIFO, a folder or a device is named, never opened), an SQLite file of paytx's, its schema
 * version against this paytx's, SQLite's quick check, and its size. SQLite reads the file alone
 * (the store room's readStoreFileAlone): no -wal or -shm is created or changed, not even the -shm
 * of an emulator running over it; what a -wal holds is not read, and the line says so. A store in
 * an older format is upgraded by the next emulator that opens it, not by doctor.
 */
import {existsSync, statSync} from 'node:fs'

import {EMULATOR_APPLICATION_ID, SCHEMA_VERSION, StoreError, type StoreReading, checkSqliteIdentity, readStoreFileAlone, storeFileKind} from '../emulator/store/index.js'
import {type DoctorCheck, fail, ok, warn} from './report.js'

const LABEL = 'Emulator store'
const MOVE_AWAY = 'Move it away; the next emulator makes a fresh store (or pass --store to use another file).'
const DAMAGED = 'Move it away and start the emulator again for a fresh store (the transactions in it are lost).'
/** The file alone may be caught half-way through an emulator's copy of its -wal into it. */
const NOT_WHOLE = 'an emulator may have been copying its -wal into it'
const STOP_AND_AGAIN = 'Stop the emulators over it (the last one to stop copies its -wal into the file) and run doctor again.'
/** Said of every store doctor reads: it does not write, not even beside the store. */
const READ_ONLY = 'read-only, nothing written'

function sizeOf(file: string): number {
  return existsSync(file) ? statSync(file).size : 0
}

function formatSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

export function storeCheck(path: string): DoctorCheck {
  try {
    const kind = storeFileKind(path)
    if (kind === 'missing' || kind === 'empty') return ok('store', LABEL, `${path} (none yet; made by the first emulator)`)
    if (kind === 'json') return warn('store', LABEL, `${path} is in the older JSON format`, 'The next `paytx emulator start` converts it; nothing to do by hand.')
    if (kind === 'other') return fail('store', LABEL, `${path} is not an SQLite file`, MOVE_AWAY)
    checkSqliteIdentity(path)
  } catch (error) {
    // A FIFO, a folder, a device, another program's database: the store room's refusal, as a line.
    if (!(error instanceof StoreError)) throw error
    return fail('store', LABEL, `${path} ${error.problem.replace(/\.$/, '')}`, MOVE_AWAY)
  }
  let reading: StoreReading
  try {
    reading = readStoreFileAlone(path)
  } catch (error) {
    const unreadable = `${path}: SQLite cannot read the file alone (${(error as Error).message})`
    if (sizeOf(`${path}-wal`) > 0) return warn('store', LABEL, `${unreadable}; ${NOT_WHOLE}; ${READ_ONLY}`, STOP_AND_AGAIN)
    return fail('store', LABEL, `${unreadable}; ${READ_ONLY}`, DAMAGED)
  }
  return readingCheck(path, reading)
}

/** The line for a store SQLite could read. */
function readingCheck(path: string, reading: StoreReading): DoctorCheck {
  const walBytes = sizeOf(`${path}-wal`)
  const shown = `${path}, schema ${reading.version}, ${formatSize(sizeOf(path) + walBytes)}`
  // An emulator is using it, or one was stopped without closing it: its latest changes are in the -wal.
  const unread = walBytes > 0 ? `; the file read alone, not the ${formatSize(walBytes)} in its -wal (an emulator uses it, or one stopped without closing it)` : ''
  const fresh = reading.applicationId === 0 && reading.version === 0 && reading.tables === 0
  if (!fresh && reading.applicationId !== EMULATOR_APPLICATION_ID) {
    return fail('store', LABEL, `${shown}: an SQLite database of another program, not an emulator store; ${READ_ONLY}`, MOVE_AWAY)
  }
  if (reading.problems.length > 0) {
    const found = `SQLite's quick check finds the file damaged (${reading.problems.join('; ')})`
    if (walBytes > 0) return warn('store', LABEL, `${shown}: ${found}; ${NOT_WHOLE}${unread}; ${READ_ONLY}`, STOP_AND_AGAIN)
    return fail('store', LABEL, `${shown}: ${found}; ${READ_ONLY}`, DAMAGED)
  }
  if (reading.version > SCHEMA_VERSION) return fail('store', LABEL, `${shown}, written by a newer paytx (this one knows up to ${SCHEMA_VERSION}); ${READ_ONLY}`, 'Upgrade paytx, or use another --store.')
  if (reading.version < SCHEMA_VERSION) return ok('store', LABEL, `${shown} (upgraded to ${SCHEMA_VERSION} by the next emulator)${unread}; ${READ_ONLY}`)
  return ok('store', LABEL, `${shown}, intact${unread}; ${READ_ONLY}`)
}
