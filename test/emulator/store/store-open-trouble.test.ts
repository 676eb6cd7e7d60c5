/**
 * A store that cannot be set up says what would help by the cause of the failure, the failure
 * injected where SQLite reports it (the default tier cannot fill a disk; test/system/flow-full-disk
 * fills a real one): a full disk is exit 1 with space to free, never "check its permissions".
 */
import {mkdtempSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it, vi} from 'vitest'

import {EmulatorStore} from '../../../src/emulator/store/index.js'

// The same module object the store loads: spying on its prototype reaches the store's connections.
const Libsql = createRequire(import.meta.url)('libsql') as {prototype: {exec(sql: string): unknown}}

/** Every write of the store's set-up (WAL, migrations) fails with `error`, as SQLite reports it. */
function failWrites(error: Error): void {
  const real = Libsql.prototype.exec
  vi.spyOn(Libsql.prototype, 'exec').mockImplementation(function (this: unknown, sql: string) {
    if (/^PRAGMA journal_mode/.test(sql)) throw error
    return real.call(this, sql)
  })
}

describe('a store that cannot be set up', () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  it.each([
    ['a full disk', Object.assign(new Error('database or disk is full'), {code: 'SQLITE_FULL'}), 1, /The disk that holds .* is full: free some space on it, then run the command again\./],
    ['no permission', Object.assign(new Error('attempt to write a readonly database'), {code: 'SQLITE_READONLY'}), 2, /Check the permissions of .*emulator\.db and of /],
    ['a read-only file system', Object.assign(new Error('disk I/O error: read-only file system'), {code: 'SQLITE_IOERR'}), 2, /is on a read-only file system/],
  ])('%s: the exit code and the hint fit the cause', (_, error, exitCode, hint) => {
    failWrites(error)
    const folder = mkdtempSync(join(tmpdir(), 'paytx-store-trouble-'))
    let thrown: unknown
    try {
      EmulatorStore.open(join(folder, 'emulator.db')).close()
    } catch (caught) {
      thrown = caught
    }
    expect(thrown).toMatchObject({name: 'StoreError', exitCode, message: expect.stringContaining(`${folder}/emulator.db cannot be used`)})
    expect((thrown as {hint: string}).hint).toMatch(hint)
    if (exitCode === 1) expect((thrown as {hint: string}).hint).not.toMatch(/permission/i)
  })
})
