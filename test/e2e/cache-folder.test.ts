/**
 * paytx writes its code cache only for runs of a command: `--version`, `--help` and a mistyped
 * command read a cache that exists but leave no folder behind (issue 40: a merchant's CI job that
 * asks `npx paytx --version` found ~/.cache/paytx written).
 */
import {existsSync, readdirSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {cleanEnv, runCli} from '../helpers/cli.js'

describe('the cache folder', () => {
  it('is left alone by --version, --help, help for a command and a mistyped command, and written by a command that runs', async () => {
    const env = cleanEnv()
    const cacheDir = env.PAYTX_CACHE_DIR as string
    for (const args of [['--version'], ['--help'], ['status', '--help'], ['stauts']]) {
      await runCli(args, {env})
      expect(existsSync(cacheDir), `paytx ${args.join(' ')} wrote ${cacheDir}`).toBe(false)
    }
    const listed = await runCli(['profile', 'list'], {env})
    expect(listed.code).toBe(0)
    const written = readdirSync(join(cacheDir, 'code-cache'))
    expect(written.some((name) => name.startsWith('core.vm.js-'))).toBe(true)
    expect(written.some((name) => name.startsWith('commands.vm.js-'))).toBe(true)
    // A cache that exists is read by --version, not written again.
    await runCli(['--version'], {env})
    expect(readdirSync(join(cacheDir, 'code-cache')).sort()).toEqual(written.sort())
  })
})
