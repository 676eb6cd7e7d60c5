/**
 * A store path is checked before anything of it is changed: only a missing path, an empty regular
 * file or an emulator store is opened; anything else is refused with exit 2 and left exactly as
 * it was, mode and contents. Run as root (as the suite is), modes do not stop a write: the checks
 * must read them.
 */
import {execFileSync} from 'node:child_process'
import {createRequire} from 'node:module'
import {chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, statSync, writeFileSync, writeSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {startEmulator} from '../../../src/emulator/index.js'
import {EMULATOR_APPLICATION_ID, EmulatorStore, SCHEMA_VERSION, checkSqliteIdentity, storeFileKind} from '../../../src/emulator/store/index.js'
import {runCli} from '../../helpers/cli.js'

const tempDir = () => mkdtempSync(join(tmpdir(), 'paytx-store-check-'))

/** What must not change: the mode, and the contents of a regular file. */
function fingerprint(path: string): {mode: number; contents?: string} {
  const info = statSync(path)
  return {mode: info.mode, ...(info.isFile() ? {contents: readFileSync(path).toString('base64')} : {})}
}

async function expectRefused(path: string, message: RegExp): Promise<void> {
  const before = fingerprint(path)
  await expect(startEmulator({port: 0, store: path})).rejects.toMatchObject({name: 'StoreError', exitCode: 2, message: expect.stringMatching(message)})
  expect(fingerprint(path)).toEqual(before)
}

describe('a store path that is no store file', () => {
  it('a folder is refused, untouched', async () => {
    const dir = join(tempDir(), 'a-folder')
    mkdirSync(dir, {mode: 0o755})
    await expectRefused(dir, /is a folder, not a store file/)
  })

  it('a FIFO is refused without being opened (opening one would block), untouched', async () => {
    const fifo = join(tempDir(), 'pipe')
    execFileSync('mkfifo', ['-m', '0644', fifo])
    await expectRefused(fifo, /is a FIFO \(named pipe\), not a store file/)
  })

  it('a device is refused, its mode unchanged (as root, --store /dev/null made it 0600)', async () => {
    // As root, a device node of its own, the same as /dev/null (1, 3), so the machine's is never put
    // at risk; where making one is not allowed (not root, or root in a user namespace), /dev/null
    // itself, whose mode such a user cannot change anyway.
    let device = join(tempDir(), 'null')
    try {
      execFileSync('mknod', ['-m', '0666', device, 'c', '1', '3'], {stdio: 'ignore', timeout: 10_000})
    } catch {
      device = '/dev/null'
    }
    await expectRefused(device, /is a device, not a store file/)
  })

  it('through the CLI, a folder is exit 2 naming it, not "a bug"', async () => {
    const dir = tempDir()
    const result = await runCli(['emulator', 'start', '--port', '0', '--store', dir])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`The emulator store ${dir} is a folder, not a store file.`)
    expect(result.stderr).not.toMatch(/bug|EISDIR/)
  })
})

describe('a store paytx may not write', () => {
  it('a read-only store file is refused saying so, and is not made writable', async () => {
    const path = join(tempDir(), 'emulator.db')
    EmulatorStore.open(path).close()
    chmodSync(path, 0o400)
    await expectRefused(path, /is read-only \(mode 0400\)/)
  })

  it('a store in a read-only folder is refused saying so', async () => {
    const dir = join(tempDir(), 'locked')
    mkdirSync(dir)
    const path = join(dir, 'emulator.db')
    EmulatorStore.open(path).close()
    chmodSync(dir, 0o555)
    try {
      const names = readdirSync(dir)
      await expectRefused(path, /its folder .* is read-only \(mode 0555\)/)
      expect(readdirSync(dir)).toEqual(names)
    } finally {
      chmodSync(dir, 0o755)
    }
  })
})

/** A database file's first 100 bytes, as SQLite writes them (file format, section 1.3). */
function sqliteHeader(pageCount: number, applicationId: number): Buffer {
  const header = Buffer.alloc(100)
  header.write('SQLite format 3\u0000', 0, 'latin1')
  header.writeUInt16BE(4096, 16)
  header.set([64, 32, 32], 21)
  header.writeUInt32BE(pageCount, 28)
  header.writeUInt32BE(applicationId, 68)
  return header
}

describe('a store header read while another emulator writes it', () => {
  /** Reads `headers` one after the other, counting the reads. */
  const reads = (...headers: Buffer[]) => {
    const read = Object.assign(() => headers[Math.min(read.count++, headers.length - 1)], {count: 0})
    return read
  }

  it('is read again when it would be refused, and taken when the second read is an emulator store', () => {
    // The new page count written, the application id not yet: what a read that crossed the copy of the log back held.
    const read = reads(sqliteHeader(40, 0), sqliteHeader(40, EMULATOR_APPLICATION_ID))
    expect(() => checkSqliteIdentity('/stores/shared.db', read)).not.toThrow()
    expect(read.count).toBe(2)
  })

  it('is refused when it is another program’s on both reads, and read once when it is an emulator store or fresh', () => {
    const foreign = reads(sqliteHeader(40, 0))
    expect(() => checkSqliteIdentity('/stores/other.db', foreign)).toThrow(/is an SQLite database of another program/)
    expect(foreign.count).toBe(2)
    for (const header of [sqliteHeader(40, EMULATOR_APPLICATION_ID), sqliteHeader(1, 0)]) {
      const read = reads(header)
      checkSqliteIdentity('/stores/shared.db', read)
      expect(read.count).toBe(1)
    }
  })

  it('is read again before a file is called no SQLite at all: its first page may be half written', () => {
    const path = join(tempDir(), 'emulator.db')
    writeFileSync(path, sqliteHeader(1, 0))
    const halfWritten = reads(Buffer.alloc(100), sqliteHeader(1, 0))
    expect(storeFileKind(path, halfWritten)).toBe('sqlite')
    expect(halfWritten.count).toBe(2)
    const other = reads(Buffer.from('this is not a database, just some text that is long enough to be a header of one...'.padEnd(100)))
    expect(storeFileKind(path, other)).toBe('other')
    expect(other.count).toBe(2)
  })
})

describe('a damaged store', () => {
  it('fails the quick check at open: exit 2, untouched, instead of 500s later', async () => {
    const path = join(tempDir(), 'emulator.db')
    const store = EmulatorStore.open(path)
    store.write(() => {
      for (let index = 0; index < 400; index++) store.addOrganisation(`0c6f8b2e-4d1a-4f3b-9a7c-${String(index).padStart(12, '0')}`, new Date(0).toISOString())
    })
    store.close()
    // Everything into the file itself, out of the write-ahead log.
    const Libsql = createRequire(import.meta.url)('libsql')
    const db = new Libsql(path)
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    db.close()
    const pageSize = readFileSync(path).readUInt16BE(16)
    expect(statSync(path).size).toBeGreaterThan(6 * pageSize)
    // Pages 1 and 2 (the header and the schema) stay whole; page 5 onwards is overwritten.
    const fd = openSync(path, 'r+')
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, 4 * pageSize)
    closeSync(fd)
    await expectRefused(path, /is damaged \(SQLite's quick check: /)
  })
})

describe('a store of another version', () => {
  it('written by a newer paytx is refused saying so, untouched, before anything is migrated', async () => {
    const path = join(tempDir(), 'emulator.db')
    EmulatorStore.open(path).close()
    const Libsql = createRequire(import.meta.url)('libsql')
    const db = new Libsql(path)
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`)
    db.close()
    await expectRefused(path, new RegExp(`was written by a newer paytx \\(store version ${SCHEMA_VERSION + 1}; this paytx knows up to ${SCHEMA_VERSION}\\)`))
  })
})
