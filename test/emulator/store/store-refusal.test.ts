/**
 * A store refused with exit 2 is left as it was: its contents byte for byte, its mode and
 * modification time, and its neighbours (-wal, -shm, -journal) neither created nor changed. The
 * stores here are copies with the mode a copy gets (0644), as a user hands one to --store: opened
 * for writing, SQLite made a -wal and a -shm beside each, and the file became 0600.
 */
import {execFileSync} from 'node:child_process'
import {chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {beforeAll, describe, expect, it} from 'vitest'

import {startEmulator} from '../../../src/emulator/index.js'
import {EmulatorStore, SCHEMA_VERSION} from '../../../src/emulator/store/index.js'
import {folderSnapshot} from '../../helpers/folder-snapshot.js'
import {runCommand} from '../../helpers/run-command.js'

const Libsql = createRequire(import.meta.url)('libsql')
const work = mkdtempSync(join(tmpdir(), 'paytx-store-refusal-'))

/** A store of this paytx with 400 organisations, all of it in the file (no -wal), closed. */
function wholeStore(): Buffer {
  const path = join(work, 'whole.db')
  const store = EmulatorStore.open(path)
  store.write(() => {
    for (let index = 0; index < 400; index++) store.addOrganisation(`0c6f8b2e-4d1a-4f3b-9a7c-${String(index).padStart(12, '0')}`, new Date(0).toISOString())
  })
  store.close()
  const db = new Libsql(path)
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
  return readFileSync(path)
}

let whole: Buffer
let pageSize: number
/** The -shm a stopped emulator leaves beside its store (with an empty -wal). */
let stoppedShm: Buffer
beforeAll(() => {
  whole = wholeStore()
  stoppedShm = readFileSync(join(work, 'whole.db-shm'))
  pageSize = whole.readUInt16BE(16)
  expect(whole.length).toBeGreaterThan(6 * pageSize)
})

/** The bad stores, each made from the whole one. */
const BAD_STORES: [string, (bytes: Buffer) => Buffer, RegExp][] = [
  ['truncated to half', (bytes) => bytes.subarray(0, Math.floor(bytes.length / 2 / pageSize) * pageSize), /is not an emulator store \(the database file is damaged or not SQLite\)/],
  ['cut mid-page', (bytes) => bytes.subarray(0, 3 * pageSize + 123), /is not an emulator store \(the database file is damaged or not SQLite\)/],
  ['its header zeroed past the magic and page size (no page count, id or version)', (bytes) => Buffer.from(bytes).fill(0, 24, 100), /is an SQLite database of another program/],
  ['its first page damaged after the header (the schema)', (bytes) => Buffer.from(bytes).fill(0xff, 100, pageSize), /is not an emulator store \(the database file is damaged or not SQLite\)/],
  ['a page past the schema overwritten', (bytes) => Buffer.from(bytes).fill(0xa5, 4 * pageSize, 5 * pageSize), /is damaged \(SQLite's quick check: /],
  ['of a newer version (its header says so)', (bytes) => {
    const newer = Buffer.from(bytes)
    newer.writeUInt32BE(SCHEMA_VERSION + 1, 60)
    return newer
  }, new RegExp(`was written by a newer paytx \\(store version ${SCHEMA_VERSION + 1}; this paytx knows up to ${SCHEMA_VERSION}\\)`)],
]

let folders = 0
/**
 * `bytes` as emulator.db, 0644, in a folder of its own: alone, or with the empty -wal and the -shm
 * a stopped emulator leaves beside it.
 */
function storeCopy(bytes: Buffer, beside: 'alone' | 'as a stopped emulator leaves it' = 'alone'): string {
  const dir = join(work, `case-${folders++}`)
  mkdirSync(dir)
  const path = join(dir, 'emulator.db')
  writeFileSync(path, bytes)
  chmodSync(path, 0o644)
  if (beside !== 'alone') {
    writeFileSync(`${path}-wal`, '')
    writeFileSync(`${path}-shm`, stoppedShm)
  }
  return path
}

describe('a refused store keeps its contents, mode, time and neighbours', () => {
  const cases = BAD_STORES.flatMap(([name, damage, message]) => (['alone', 'as a stopped emulator leaves it'] as const).map((beside) => [name, beside, damage, message] as const))
  it.each(cases)('%s, %s: emulator start refuses it with exit 2, and nothing in its folder changes', async (_, beside, damage, message) => {
    const path = storeCopy(damage(whole), beside)
    const dir = join(path, '..')
    const before = folderSnapshot(dir)
    await expect(startEmulator({port: 0, store: path})).rejects.toMatchObject({name: 'StoreError', exitCode: 2, message: expect.stringMatching(message)})
    expect(folderSnapshot(dir)).toEqual(before)
  })

  it.each([
    ['emulator start --port 0', ['emulator', 'start', '--port', '0']],
    ['emulator reset --yes', ['emulator', 'reset', '--yes']],
    ['emulator add-organisation', ['emulator', 'add-organisation', '0c6f8b2e-4d1a-4f3b-9a7c-0000000000ff']],
    ['emulator add-payment-profile', ['emulator', 'add-payment-profile', '0c6f8b2e-4d1a-4f3b-9a7c-0000000000fe']],
  ])('%s --store <truncated store>: exit 2 naming it, its folder unchanged', async (_, argv) => {
    const path = storeCopy(BAD_STORES[0][1](whole))
    const dir = join(path, '..')
    const before = folderSnapshot(dir)
    const result = await runCommand([...argv, '--store', path])
    expect(result.exitCode, result.stderr).toBe(2)
    expect(result.stderr).toContain(`The emulator store ${path} is not an emulator store`)
    expect(folderSnapshot(dir)).toEqual(before)
  })

  it('a whole store of 0644 is still taken: made 0600 before SQLite writes beside it, so its -wal and -shm are 0600 too, as is its search index', async () => {
    const path = storeCopy(whole)
    const emulator = await startEmulator({port: 0, store: path})
    try {
      const after = folderSnapshot(join(path, '..'))
      expect(Object.keys(after)).toEqual(['emulator.db', 'emulator.db-search', 'emulator.db-search-shm', 'emulator.db-search-wal', 'emulator.db-shm', 'emulator.db-wal'])
      for (const entry of Object.values(after)) expect(entry.mode).toBe('600')
    } finally {
      await emulator.close()
    }
  })
})

describe('a store with a -wal beside it (an emulator was killed over it)', () => {
  it('is refused for what its -wal holds, the file, the -wal and the mode kept (SQLite reads a -wal through a -shm)', async () => {
    // A store whose -wal holds a newer version than its file says: what a newer paytx killed
    // before it copied its -wal back leaves.
    const live = join(mkdtempSync(join(work, 'live-')), 'emulator.db')
    writeFileSync(live, whole)
    const db = new Libsql(live)
    db.exec('PRAGMA wal_autocheckpoint = 0')
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`)
    const path = storeCopy(readFileSync(live))
    copyFileSync(`${live}-wal`, `${path}-wal`)
    db.close()
    const dir = join(path, '..')
    const before = folderSnapshot(dir)
    await expect(startEmulator({port: 0, store: path})).rejects.toMatchObject({name: 'StoreError', exitCode: 2, message: expect.stringContaining(`store version ${SCHEMA_VERSION + 1}`)})
    const after = folderSnapshot(dir)
    expect(after['emulator.db']).toEqual(before['emulator.db'])
    expect(after['emulator.db-wal']).toEqual(before['emulator.db-wal'])
  })
})


describe('--store on a FIFO, a link to one, or a folder, for every command that takes it', () => {
  it.each([
    ['emulator reset --yes', ['emulator', 'reset', '--yes']],
    ['emulator add-organisation', ['emulator', 'add-organisation', '0c6f8b2e-4d1a-4f3b-9a7c-0000000000ff']],
    ['emulator add-payment-profile', ['emulator', 'add-payment-profile', '0c6f8b2e-4d1a-4f3b-9a7c-0000000000fe']],
    ['emulator start --port 0', ['emulator', 'start', '--port', '0']],
  ])('%s: exit 2 naming the path and what it should be, the FIFO never opened (it would block)', async (_, argv) => {
    const dir = join(work, `special-${folders++}`)
    mkdirSync(dir)
    const fifo = join(dir, 'pipe')
    execFileSync('mkfifo', ['-m', '0644', fifo])
    symlinkSync(fifo, join(dir, 'link'))
    mkdirSync(join(dir, 'folder'))
    const before = folderSnapshot(dir)
    for (const [name, what] of [['pipe', 'is a FIFO (named pipe)'], ['link', 'is a FIFO (named pipe)'], ['folder', 'is a folder']]) {
      const result = await runCommand([...argv, '--store', join(dir, name)])
      expect(result.exitCode, result.stderr).toBe(2)
      expect(result.stderr).toContain(`The emulator store ${join(dir, name)} ${what}, not a store file.`)
      expect(result.stderr).toContain('Pass the path of a file (a new one is created)')
    }
    expect(folderSnapshot(dir)).toEqual(before)
  })
})
