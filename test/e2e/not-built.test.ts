/**
 * A clone that was never built (`npm ci`, then `./bin/run.js ...`, as a CI job might): bin/run.js
 * says what to do, instead of Node's stack for a missing dist/.
 */
import {spawnSync} from 'node:child_process'
import {cpSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {ROOT, cleanEnv} from '../helpers/cli.js'

describe('bin/run.js without dist/', () => {
  const clone = mkdtempSync(join(tmpdir(), 'paytx-not-built-'))
  afterAll(() => rmSync(clone, {recursive: true, force: true}))

  it('says "paytx is not built: run npm run build" on stderr and exits 1, with no stack', () => {
    cpSync(join(ROOT, 'bin'), join(clone, 'bin'), {recursive: true})
    cpSync(join(ROOT, 'package.json'), join(clone, 'package.json'))
    const result = spawnSync(process.execPath, [join(clone, 'bin', 'run.js'), 'status', 'tx-1'], {cwd: clone, env: cleanEnv(), encoding: 'utf8', timeout: 15_000})
    expect(result.status).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe('paytx is not built: run npm run build\n')
  })
})
