/**
 * The manifest step of `npm run build` (scripts/write-manifest.js) prints no "oclif update
 * available" warning, even when oclif's cache says a newer oclif exists (as it does on any
 * machine that built once with network). Run on a copy of the package's manifest inputs in a
 * temporary folder, so that the real oclif.manifest.json is never rewritten under running tests.
 */
import {spawnSync} from 'node:child_process'
import {copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

function packageCopy(): {dir: string; env: NodeJS.ProcessEnv} {
  const dir = mkdtempSync(join(tmpdir(), 'paytx-manifest-'))
  copyFileSync(join(ROOT, 'package.json'), join(dir, 'package.json'))
  for (const linked of ['dist', 'node_modules']) symlinkSync(join(ROOT, linked), join(dir, linked))
  // oclif's cache, saying a far newer oclif is out: the warning shows unless the build turns it off.
  const cache = join(dir, 'oclif-cache')
  mkdirSync(cache)
  writeFileSync(join(cache, 'version'), JSON.stringify({latest: '99.0.0'}))
  return {dir, env: {...process.env, OCLIF_CACHE_DIR: cache, OCLIF_NEW_VERSION_CHECK_FREQ: '0'}}
}

describe('the manifest step of the build', () => {
  it('writes the command list and no update warning', () => {
    const {dir, env} = packageCopy()
    const result = spawnSync(process.execPath, [join(ROOT, 'scripts', 'write-manifest.js'), dir], {env, encoding: 'utf8', timeout: 60_000})
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout + result.stderr).not.toMatch(/update available/i)
    expect(JSON.parse(readFileSync(join(dir, 'oclif.manifest.json'), 'utf8')).commands).toHaveProperty('doctor')
  })

  it('(control) the same oclif, run as the build used to run it, does print the warning', () => {
    const {dir, env} = packageCopy()
    const result = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'oclif', 'bin', 'run.js'), 'manifest', dir], {cwd: dir, env, encoding: 'utf8', timeout: 60_000})
    // Colour codes, where the environment asks for colour (CI=true does), stand around the versions.
    // eslint-disable-next-line no-control-regex
    expect((result.stdout + result.stderr).replaceAll(/\u001B\[\d+m/g, '')).toMatch(/oclif update available from [\d.]+ to 99\.0\.0/)
  })
})
