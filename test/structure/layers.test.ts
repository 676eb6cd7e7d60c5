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

  it('words command lines only in the CLI layer (cli, commands, output, terminal); the core says remedies as data', () => {
    const cliLayer = /^(cli|commands|output|terminal)\//
    const wording = sourceFiles(SRC)
      .map((file) => relative(SRC, file))
      .filter((file) => !cliLayer.test(file) && /\bcommandLine\b/.test(readFileSync(join(SRC, file), 'utf8')))
    expect(wording).toEqual([])
  })

  it('has no function over 60 lines (measured by scripts/long-functions.js, which does find longer ones)', () => {
    // One measurement at a lower limit (the script parses all of src/ with TypeScript, 1.4 s of
    // CPU a run): it lists functions, so it is not vacuous, and none it lists is over 60 lines.
    // 1.4 s of CPU took 11 s beside other suites on a loaded 2-core machine: room to spare.
    const measured = spawnSync(process.execPath, [join(ROOT, 'scripts', 'long-functions.js'), '--max', '30'], {encoding: 'utf8', timeout: 50_000})
    expect(measured.status).toBe(1)
    const listed = [...measured.stdout.matchAll(/^\s+(\d+) {2}(\S+) {2}(src\/\S+\.ts:\d+)$/gm)]
    expect(listed.length).toBeGreaterThan(0)
    expect(measured.stdout).toMatch(new RegExp(`^${listed.length} functions over 30 lines\\.$`, 'm'))
    expect(listed.filter(([, lines]) => Number(lines) > 60).map(([line]) => line.trim())).toEqual([])
  }, 60_000)
})
