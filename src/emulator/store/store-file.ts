/**
 * What a store path holds, found before anything opens it for writing: nothing (to be created),
 * an empty regular file (to be initialised), an emulator store, or something else, refused with
 * exit 2 and left as it was, mode and contents. A folder, a FIFO or a device is never opened (a
 * FIFO would block, a device is not ours); an SQLite file is recognised from its 100-byte header,
 * where the emulator writes its application id, so another program's database is never opened.
 * A store paytx may not write (its mode, or its folder's) is refused too: never made writable.
 */
import {type Stats, accessSync, closeSync, constants, openSync, readSync, statSync} from 'node:fs'
import {dirname} from 'node:path'

import {StoreError} from './store-error.js'

/** Written into the file header (`PRAGMA application_id`), so that a foreign database is recognised: "payx". */
export const EMULATOR_APPLICATION_ID = 0x70617978

export type StoreFileKind = 'missing' | 'empty' | 'sqlite' | 'json' | 'other'

const SQLITE_MAGIC = 'SQLite format 3\u0000'
const HEADER_BYTES = 100

/** The header fields that say whose database it is (SQLite file format, section 1.3). */
interface SqliteHeader {
  wellFormed: boolean
  applicationId: number
  userVersion: number
  pageCount: number
}

function readSqliteHeader(header: Buffer): SqliteHeader {
  const pageSize = header.readUInt16BE(16)
  const wellFormed =
    (pageSize === 1 || (pageSize >= 512 && pageSize <= 32_768 && (pageSize & (pageSize - 1)) === 0)) &&
    header[21] === 64 &&
    header[22] === 32 &&
    header[23] === 32
  return {wellFormed, pageCount: header.readUInt32BE(28), userVersion: header.readUInt32BE(60), applicationId: header.readUInt32BE(68)}
}

function notAFile(path: string, info: Stats): StoreError | undefined {
  const hint = 'Pass the path of a file (a new one is created), e.g. --store ./emulator.db.'
  if (info.isDirectory()) return new StoreError(path, 'is a folder, not a store file.', `${hint} It was left untouched.`)
  if (info.isFIFO()) return new StoreError(path, 'is a FIFO (named pipe), not a store file.', `${hint} It was left untouched.`)
  if (info.isCharacterDevice() || info.isBlockDevice()) return new StoreError(path, 'is a device, not a store file.', `${hint} It was left untouched.`)
  if (info.isSocket()) return new StoreError(path, 'is a socket, not a store file.', `${hint} It was left untouched.`)
  return undefined
}

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    if (code === 'ENOTDIR') throw new StoreError(path, 'cannot be used: a part of its path is a file, not a folder.', 'Pass another --store.')
    throw new StoreError(path, `cannot be read (${code ?? (error as Error).message}).`, 'Pass another --store.', error)
  }
}

/**
 * What the path holds, reading no more than its header; a path that is no regular file is a
 * StoreError (`read` is for tests).
 */
export function storeFileKind(path: string, read: (path: string) => Buffer = readHeader): StoreFileKind {
  if (path === ':memory:') return 'missing'
  const info = statOf(path)
  if (!info) return 'missing'
  const refused = notAFile(path, info)
  if (refused) throw refused
  if (info.size === 0) return 'empty'
  // A header being written by another emulator (creating the store) may be read in part: read
  // again before refusing it (see `checkSqliteIdentity`).
  const kind = kindOfHeader(read(path))
  return kind === 'other' ? kindOfHeader(read(path)) : kind
}

function kindOfHeader(header: Buffer): StoreFileKind {
  if (header.toString('latin1', 0, 16) === SQLITE_MAGIC) return 'sqlite'
  if (header.toString('utf8').trimStart().startsWith('{')) return 'json'
  return 'other'
}

function readHeader(path: string): Buffer {
  const header = Buffer.alloc(HEADER_BYTES)
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    readSync(fd, header, 0, HEADER_BYTES, 0)
  } finally {
    closeSync(fd)
  }
  return header
}

/**
 * Refuses an SQLite file that is not an emulator store (another program's, or one whose header is
 * damaged), from its header alone. A fresh SQLite file (no table, no id yet) is taken as empty.
 * Another emulator may be writing that header as it is read (copying its write-ahead log back
 * into the file), and Linux does not keep a read whole against a write to the same page: the
 * read may hold the new page count with the old application id (0), which is no emulator store's
 * header. So a header that would be refused is read again, and only refused if it still is
 * (`read` is for tests).
 */
export function checkSqliteIdentity(path: string, read: (path: string) => Buffer = readHeader): void {
  const refusal = headerRefusal(readSqliteHeader(read(path))) && headerRefusal(readSqliteHeader(read(path)))
  if (refusal) throw new StoreError(path, refusal)
}

/**
 * Refuses a store written by a newer paytx from the schema version in its header
 * (`PRAGMA user_version`), before SQLite opens it; read again before refusing, as for the identity.
 * The version a -wal beside the file may hold is SQLite's to read (database.ts checks it again).
 */
export function checkHeaderVersion(path: string, newest: number, read: (path: string) => Buffer = readHeader): void {
  if (readSqliteHeader(read(path)).userVersion <= newest) return
  const {userVersion} = readSqliteHeader(read(path))
  if (userVersion > newest) throw newerStoreError(path, userVersion, newest)
}

export function newerStoreError(path: string, version: number, newest: number): StoreError {
  return new StoreError(path, `was written by a newer paytx (store version ${version}; this paytx knows up to ${newest}).`, 'It was left untouched: upgrade paytx, or pass another --store.')
}

/** Why a store with this header is refused, or '' if it is not. */
function headerRefusal(header: SqliteHeader): string {
  if (!header.wellFormed) return 'is not an emulator store (the database file is damaged or not SQLite).'
  const fresh = header.applicationId === 0 && header.userVersion === 0 && header.pageCount <= 1
  if (!fresh && header.applicationId !== EMULATOR_APPLICATION_ID) return 'is an SQLite database of another program, not an emulator store.'
  return ''
}

/** Whether paytx may write here: the owner's write bit (root ignores modes, so they are read) and the system's word. */
function writable(path: string, info: Stats): boolean {
  if ((info.mode & 0o200) === 0) return false
  try {
    accessSync(path, constants.W_OK)
    return true
  } catch {
    return false
  }
}

const modeText = (info: Stats) => (info.mode & 0o777).toString(8).padStart(4, '0')

/**
 * A store is written beside itself too (its -wal and -shm journal files): the file and its folder
 * must be writable. A read-only one is refused, saying which, and never made writable.
 */
export function checkWritable(path: string, kind: StoreFileKind): void {
  const folder = dirname(path)
  const folderInfo = statOf(folder)
  if (!folderInfo) throw new StoreError(path, `cannot be created: its folder ${folder} does not exist.`, 'Create the folder, or pass another --store.')
  if (!writable(folder, folderInfo)) {
    throw new StoreError(
      path,
      `cannot be used: its folder ${folder} is read-only (mode ${modeText(folderInfo)}), and the store writes its journal beside it.`,
      'paytx does not change the folder: make it writable yourself, or pass another --store.',
    )
  }
  if (kind === 'missing') return
  const info = statSync(path)
  if (!writable(path, info)) {
    throw new StoreError(path, `is read-only (mode ${modeText(info)}).`, `paytx does not make it writable: if it should be used, \`chmod u+w ${path}\` first, or pass another --store.`)
  }
}
