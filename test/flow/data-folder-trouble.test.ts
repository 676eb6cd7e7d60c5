/**
 * `paytx flow` over a data folder whose writes fail: the advice fits the cause. ENOSPC comes from
 * the kernel itself here (/dev/full answers every write with it), where the embedded emulator
 * writes the marker of the address it holds; a real full disk under the store is in
 * test/system/flow-full-disk.test.ts.
 */
import {existsSync, mkdirSync, symlinkSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'
import {runCommand} from '../helpers/run-command.js'

describe('flow over a data folder that cannot be written', () => {
  it.skipIf(!existsSync('/dev/full'))('a write failing with ENOSPC: exit 1, free space on the folder, no word of permissions', async () => {
    const configDir = tempConfigDir()
    const port = await freePort()
    const markers = join(configDir, 'data', 'command-emulators')
    mkdirSync(markers, {recursive: true})
    const marker = join(markers, `127.0.0.1-${port}`)
    symlinkSync('/dev/full', marker)
    const result = await runCommand(['flow', '--product', 'dummy', '--amount', '1499', '--approve', 'SETTLEMENT_COMPLETED'], {
      configDir,
      env: {PAYTX_BASE_URL: `http://127.0.0.1:${port}/v1`},
    })
    expect(result.exitCode, result.stderr).toBe(1)
    expect(result.stderr).toContain(`Cannot write the embedded emulator's address marker ${marker} (ENOSPC).`)
    expect(result.stderr).toContain(`Hint: The disk that holds ${markers} is full: free some space on it, then run the command again.`)
    expect(result.stderr).not.toMatch(/permission|looks like a bug/i)
    // Nothing was created, and no marker is left to say that an emulator holds the address.
    expect(result.stderr).not.toContain('customer created')
    expect(existsSync(marker)).toBe(false)
  })
})
