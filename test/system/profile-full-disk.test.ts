import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {parseJsonOutput} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'
import {fillDisk, smallDiskForThisFile} from '../helpers/small-disk.js'

/** A small tmpfs (the system tier: root with mount rights, as in CI), mounted for this file only. */
describe('profile changes on a full disk', () => {
  const mountPoint = smallDiskForThisFile('256k', 'paytx-profile-full-disk-')

  it('exit 1 saying the disk is full and what to do; the profile file is unchanged; the same command works once space is freed', async () => {
    const configDir = join(mountPoint, 'paytx')
    mkdirSync(configDir, {mode: 0o700})
    const file = join(configDir, 'profiles.json')
    writeFileSync(file, JSON.stringify({profiles: {}}), {mode: 0o600})
    const before = readFileSync(file, 'utf8')
    const env = {PAYTX_CONFIG_DIR: configDir}

    const filler = fillDisk(mountPoint)
    const refused = await runCommand(['profile', 'add', 'p1', '--env', 'sandbox'], {env})
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr).toContain(`Cannot save profiles: the config folder ${configDir} is on a full disk (ENOSPC); the profile file was not changed.`)
    expect(refused.stderr).toContain(`Free some space on the disk that holds ${configDir}`)
    expect(refused.stderr).not.toMatch(/looks like a bug|\n\s+at |permission/i)
    expect(readFileSync(file, 'utf8')).toBe(before)

    rmSync(filler)
    const added = await runCommand(['profile', 'add', 'p1', '--env', 'sandbox'], {env})
    expect(added.exitCode).toBe(0)
    const list = await runCommand(['profile', 'list', '--json'], {env})
    expect(parseJsonOutput(list).profiles.map((profile: {name: string}) => profile.name)).toContain('p1')
  })
})
