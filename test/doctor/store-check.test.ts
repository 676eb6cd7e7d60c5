/**
 * doctor's store check writes nothing: not the store, and nothing beside it (-wal, -shm), whether
 * an emulator uses the store or not; it says so in its line. A path that is no store file is a ✖
 * line, and doctor goes on with its other checks.
 */
import {execFileSync} from 'node:child_process'
import {chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {storeCheck} from '../../src/doctor/store-check.js'
import {EmulatorStore, SCHEMA_VERSION} from '../../src/emulator/store/index.js'
import {tempConfigDir} from '../helpers/cli.js'
import {folderSnapshot} from '../helpers/folder-snapshot.js'
import {runCommand} from '../helpers/run-command.js'

const tempDir = () => mkdtempSync(join(tmpdir(), 'paytx-doctor-store-'))

function storeWithOrganisations(path: string, count = 50): EmulatorStore {
  const store = EmulatorStore.open(path)
  store.write(() => {
    for (let index = 0; index < count; index++) store.addOrganisation(`0c6f8b2e-4d1a-4f3b-9a7c-${String(index).padStart(12, '0')}`, new Date(0).toISOString())
  })
  return store
}

describe('the store check reads without writing', () => {
  it('a store copied alone (no -wal, no -shm): none appears, the store keeps its bytes, mode and time, and the line says read-only', () => {
    const made = join(tempDir(), 'emulator.db')
    storeWithOrganisations(made).close()
    const dir = tempDir()
    const path = join(dir, 'emulator.db')
    copyFileSync(made, path)
    chmodSync(path, 0o644)
    const before = folderSnapshot(dir)
    expect(Object.keys(before)).toEqual(['emulator.db'])
    const check = storeCheck(path)
    expect(check).toMatchObject({status: 'ok', detail: expect.stringMatching(/, schema \d+, \d+ KB, intact; read-only, nothing written$/)})
    expect(folderSnapshot(dir)).toEqual(before)
  })

  it('a store as a stopped emulator leaves it: its -wal copied into the file, so the file alone is read whole; nothing beside it changes', () => {
    const dir = tempDir()
    const path = join(dir, 'emulator.db')
    storeWithOrganisations(path).close()
    const before = folderSnapshot(dir)
    expect(before['emulator.db-wal']?.size ?? 0).toBe(0)
    expect(storeCheck(path)).toMatchObject({status: 'ok', detail: expect.stringMatching(new RegExp(`, schema ${SCHEMA_VERSION}, \\d+ KB, intact; read-only, nothing written$`))})
    expect(folderSnapshot(dir)).toEqual(before)
  })

  it('a store an emulator uses: its -shm and -wal are left as they are, and the line says what of the -wal was not read', () => {
    const dir = tempDir()
    const path = join(dir, 'emulator.db')
    const store = storeWithOrganisations(path)
    try {
      const before = folderSnapshot(dir)
      expect(Object.keys(before)).toEqual(['emulator.db', 'emulator.db-shm', 'emulator.db-wal'])
      const check = storeCheck(path)
      expect(folderSnapshot(dir)).toEqual(before)
      expect(check.status).toBe('ok')
      expect(check.detail).toMatch(/; the file read alone, not the \d+ KB in its -wal \(an emulator uses it, or one stopped without closing it\); read-only, nothing written$/)
    } finally {
      store.close()
    }
  })
})

describe('a store path that is no store file is a ✖ line, not an abort', () => {
  it.each([
    ['a FIFO', (path: string) => execFileSync('mkfifo', [path]), 'is a FIFO (named pipe), not a store file'],
    ['a folder', (path: string) => mkdirSync(path), 'is a folder, not a store file'],
  ])('%s', (_, make, detail) => {
    const path = join(tempDir(), 'emulator.db')
    make(path)
    expect(storeCheck(path)).toMatchObject({status: 'fail', detail: `${path} ${detail}`, remedy: expect.stringContaining('Move it away')})
  })

  it('a device', () => {
    // As root, a device node of its own (the same as /dev/null); elsewhere /dev/null itself, which is only looked at.
    let device = join(tempDir(), 'null')
    try {
      execFileSync('mknod', ['-m', '0666', device, 'c', '1', '3'], {stdio: 'ignore', timeout: 10_000})
    } catch {
      device = '/dev/null'
    }
    expect(storeCheck(device)).toMatchObject({status: 'fail', detail: `${device} is a device, not a store file`})
  })

  it('paytx doctor with a FIFO as its store: every check runs, the store is ✖, exit 1 (not 2)', async () => {
    const configDir = tempConfigDir()
    const dataDir = join(configDir, 'data')
    mkdirSync(dataDir, {mode: 0o700})
    execFileSync('mkfifo', [join(dataDir, 'emulator.db')])
    const result = await runCommand(['doctor'], {configDir, env: {DISPLAY: ':0', BROWSER: 'node'}})
    expect(result.exitCode, result.stderr).toBe(1)
    expect(result.stdout).toMatch(/^✖ Emulator store\s+.*emulator\.db is a FIFO \(named pipe\), not a store file$/m)
    for (const label of ['Node', 'Config folder', 'Data folder', 'Webhook listen port', 'Browser']) expect(result.stdout).toMatch(new RegExp(`^[✔⚠✖] ${label} `, 'm'))
  })
})

describe('a store file damaged beside a -wal that holds changes', () => {
  it('is a ⚠, not a ✖: the file alone may have been read half-way through an emulator copying its -wal into it', () => {
    const made = join(tempDir(), 'emulator.db')
    storeWithOrganisations(made, 400).close()
    const dir = tempDir()
    const path = join(dir, 'emulator.db')
    writeFileSync(path, readFileSync(made).subarray(0, 3 * 4096 + 100))
    writeFileSync(`${path}-wal`, Buffer.alloc(8192, 1))
    const before = folderSnapshot(dir)
    const check = storeCheck(path)
    expect(check).toMatchObject({status: 'warn', detail: expect.stringContaining('an emulator may have been copying its -wal into it'), remedy: expect.stringContaining('run doctor again')})
    expect(folderSnapshot(dir)).toEqual(before)
    // Without the -wal, the same file is ✖.
    rmSync(`${path}-wal`)
    expect(storeCheck(path).status).toBe('fail')
  })
})
