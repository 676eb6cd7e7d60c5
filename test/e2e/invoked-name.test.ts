import {spawn} from 'node:child_process'
import {mkdirSync, symlinkSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {BIN, type CliResult, ROOT, cleanEnv, runCli, tempConfigDir} from '../helpers/cli.js'

/** Runs `node <script> args` (the script may be a link named paytx), as a shell would. */
function runScript(script: string, args: string[], options: {cwd: string; env?: Record<string, string>}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {cwd: options.cwd, env: cleanEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'], timeout: 25_000})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({code, signal, stdout, stderr}))
  })
}

describe('hints name paytx as the user can run it', () => {
  it('from the clone: ./bin/run.js', async () => {
    const result = await runCli(['statsu'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Hint: did you mean `./bin/run.js status`? See `./bin/run.js help` for all commands.')
  })

  it('from another folder: the script’s full path', async () => {
    const result = await runCli(['statsu'], {cwd: tempConfigDir()})
    expect(result.stderr).toContain(`Hint: did you mean \`${BIN} status\`?`)
  })

  it('through a command named paytx (as npm installs it): paytx', async () => {
    const pathDir = join(tempConfigDir(), 'bin')
    mkdirSync(pathDir)
    symlinkSync(BIN, join(pathDir, 'paytx'))
    const result = await runScript(join(pathDir, 'paytx'), ['statsu'], {cwd: tempConfigDir()})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Hint: did you mean `paytx status`? See `paytx help` for all commands.')
    const help = await runScript(join(pathDir, 'paytx'), ['status', '--help'], {cwd: tempConfigDir()})
    expect(help.stdout).toContain('$ paytx status 9a2e4b7c')
  })

  it('run as ./bin/run.js while `paytx` on the PATH is the same program (npm link): paytx', async () => {
    const pathDir = join(tempConfigDir(), 'bin')
    mkdirSync(pathDir)
    symlinkSync(BIN, join(pathDir, 'paytx'))
    const result = await runScript(BIN, ['transaction', 'status'], {cwd: ROOT, env: {PATH: `${pathDir}:${process.env.PATH}`}})
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/A transaction id is required/)
    const typo = await runScript(BIN, ['statsu'], {cwd: ROOT, env: {PATH: `${pathDir}:${process.env.PATH}`}})
    expect(typo.stderr).toContain('Hint: did you mean `paytx status`?')
  })
})
