/**
 * `paytx flow` with its data folder on a full disk (a small tmpfs: the system tier, root with
 * mount rights, as in CI): the embedded emulator cannot set its new store up, and the advice is
 * to free space there, exit 1, never to check permissions. The same with the failure injected,
 * needing no mount, is in test/emulator/store/store-open-trouble.test.ts.
 */
import {mkdirSync, rmSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runCli} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'
import {fillDisk, smallDiskForThisFile} from '../helpers/small-disk.js'

describe('flow over a full data folder (tmpfs)', () => {
  const mountPoint = smallDiskForThisFile('4m', 'paytx-flow-full-')

  it('exit 1 saying to free space on the data folder, no word of permissions; the same flow succeeds once space is freed', async () => {
    const dataDir = join(mountPoint, 'paytx')
    mkdirSync(dataDir, {mode: 0o700})
    const filler = fillDisk(mountPoint, 4096)
    const args = ['flow', '--product', 'dummy', '--amount', '1499', '--approve', 'SETTLEMENT_COMPLETED']
    const env = {PAYTX_DATA_DIR: dataDir, PAYTX_BASE_URL: `http://127.0.0.1:${await freePort()}/v1`}
    const full = await runCli(args, {env, timeoutMs: 60_000})
    expect(full.code, full.stderr).toBe(1)
    expect(full.stderr).toContain(`The emulator store ${join(dataDir, 'emulator.db')} cannot be used (database or disk is full).`)
    expect(full.stderr).toContain(`Hint: The disk that holds ${dataDir} is full: free some space on it, then run the command again.`)
    expect(full.stderr).not.toMatch(/permission|looks like a bug/i)

    rmSync(filler)
    rmSync(join(dataDir, 'emulator.db'), {force: true})
    const freed = await runCli(args, {env, timeoutMs: 60_000})
    expect(freed.code, freed.stderr).toBe(0)
  }, 90_000)
})
