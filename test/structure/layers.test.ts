/** The house rules of src/ that a script or a grep can check: folder imports, function length, and who may word a command line. */
import {spawnSync} from 'node:child_process'
import {readFileSync, readdirSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

const SRC = join(ROOT, 'src')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : []
  })
}

describe('src/ layers', () => {
  it('has no two folders that import each other', () => {
    const check = spawnSync(process.execPath, [join(ROOT, 'scripts', 'check-folder-imports.js')], {encoding: 'utf8', timeout: 20_000})
    expect(check.stderr).toBe('')
    expect(check.status).toBe(0)
  })

  it('words command lines only in the CLI layer (commands, output, terminal, hooks, base command, help); the core says remedies as data', () => {
    const cliLayer = /^(commands|output|terminal|hooks)\/|^(base-command|main|help)\.ts$/
    const wording = sourceFiles(SRC)
      .map((file) => relative(SRC, file))
      .filter((file) => !cliLayer.test(file) && /\bcommandLine\b/.test(readFileSync(join(SRC, file), 'utf8')))
    expect(wording).toEqual([])
  })

  it('has no function over 60 lines (measured by scripts/long-functions.js, which does find longer ones)', () => {
    const measure = (max: number) =>
      spawnSync(process.execPath, [join(ROOT, 'scripts', 'long-functions.js'), '--max', String(max)], {encoding: 'utf8', timeout: 20_000})
    const atLimit = measure(60)
    expect(atLimit.stdout).toBe('0 functions over 60 lines.\n')
    expect(atLimit.status).toBe(0)
    // The same measurement with a lower limit lists functions: the check above is not vacuous.
    const lower = measure(30)
    expect(lower.status).toBe(1)
    expect(lower.stdout).toMatch(/^\s+\d+ {2}\S+ {2}src\/\S+\.ts:\d+$/m)
  })
})
