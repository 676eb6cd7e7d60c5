import {chmodSync, mkdirSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {startCli, tempConfigDir} from '../helpers/cli.js'

describe('a data folder open to other users', () => {
  it('emulator start says so once, with the command that fixes it, and changes nothing', async () => {
    const configDir = tempConfigDir()
    const dataDir = join(configDir, 'data')
    mkdirSync(dataDir)
    chmodSync(dataDir, 0o755)
    const emulator = startCli(['emulator', 'start', '--port', '0'], {configDir})
    await emulator.waitForStdout(/^ {2}Store .*\n/m)
    const result = await emulator.stop()
    expect(result.code).toBe(130)
    const warning = `paytx's data folder ${dataDir} can be read by other users (mode 0755); it holds the emulator's store. Make it private with \`chmod 700 ${dataDir}\`.`
    expect(result.stderr.split(warning)).toHaveLength(2)
    expect(statSync(dataDir).mode & 0o777).toBe(0o755)
  })
})
