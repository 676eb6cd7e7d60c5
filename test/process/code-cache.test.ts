/**
 * The code cache (src/process/code-cache.ts) in processes of its own: a cache is written as a run
 * ends, so each case runs a small script that loads a file through it, in a private cache folder.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {build} from 'esbuild'
import {beforeAll, describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

let runner: string

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'paytx-code-cache-'))
  const loader = join(dir, 'code-cache.cjs')
  await build({entryPoints: [join(ROOT, 'src', 'process', 'code-cache.ts')], outfile: loader, bundle: true, format: 'cjs', platform: 'node', logLevel: 'error'})
  runner = join(dir, 'runner.cjs')
  // Loads the file given, says it uses the parts given, and prints what the file exports.
  writeFileSync(
    runner,
    `const {requireWithCodeCache} = require(${JSON.stringify(loader)})
const [file, buildId, key, parts] = process.argv.slice(2)
const loaded = requireWithCodeCache(file, {buildId, key: key || undefined, host: {greeting: 'hello'}})
for (const part of parts ? parts.split(',') : []) loaded.uses(part)
process.stdout.write(loaded.exports.text())
`,
  )
})

/** A module as the build wraps it, which compiles a few functions as it runs. */
function moduleFile(dir: string, word: string): string {
  const file = join(dir, 'module.vm.js')
  writeFileSync(
    file,
    `(function (exports, require, module, __filename, __dirname, host) {
'use strict';
const word = '${word}';
const shout = (text) => text.toUpperCase();
function repeat(text, times) { return Array.from({length: times}, () => text).join(' ') }
module.exports = {text: () => repeat(shout(host.greeting + ' ' + word), 2)};
})`,
  )
  return file
}

function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'paytx-code-cache-case-'))
  const cacheDir = join(dir, 'cache')
  const folder = join(cacheDir, 'code-cache')
  const run = (file: string, {buildId = 'build-a', key = '', parts = ''} = {}) => {
    const result = spawnSync(process.execPath, [runner, file, buildId, key, parts], {env: {...process.env, PAYTX_CACHE_DIR: cacheDir}, encoding: 'utf8', timeout: 20_000})
    expect(result.stderr).toBe('')
    expect(result.status).toBe(0)
    return result.stdout
  }
  const caches = () => readdirSync(folder).sort()
  const content = (name: string) => readFileSync(join(folder, name))
  return {dir, cacheDir, folder, run, caches, content}
}

describe('the code cache', () => {
  it('is written by the first run, named after the file, Node, the build and the key, and then used as it is', () => {
    const {dir, run, caches, content} = setUp()
    const file = moduleFile(dir, 'one')
    expect(run(file, {key: 'status'})).toBe('HELLO ONE HELLO ONE')
    const [name] = caches()
    expect(caches()).toHaveLength(1)
    expect(name).toMatch(new RegExp(`^module\\.vm\\.js-${process.version}-${process.arch}-build-a-\\d+-\\d+-status$`))
    const written = content(name)
    expect(written.toString('latin1')).toMatch(/^paytx-code-cache 1\n\{"parts":\[\],"checksum":"[0-9a-f]{16}"\}\n/)

    // V8 took the code: the run writes nothing.
    expect(run(file, {key: 'status'})).toBe('HELLO ONE HELLO ONE')
    expect(content(name)).toEqual(written)
    // Another key has a cache of its own.
    run(file, {key: 'help'})
    expect(caches()).toEqual([name.replace(/status$/, 'help'), name])
  })

  it('is written again when a run uses a part it does not hold yet, and only then', () => {
    const {dir, run, caches, content} = setUp()
    const file = moduleFile(dir, 'one')
    run(file, {parts: 'status'})
    const [name] = caches()
    const parts = () => JSON.parse(content(name).toString('latin1').split('\n')[1]).parts
    expect(parts()).toEqual(['status'])
    run(file, {parts: 'status,help'})
    expect(parts()).toEqual(['help', 'status'])
    const held = content(name)
    run(file, {parts: 'help'})
    expect(content(name)).toEqual(held)
  })

  it('never runs code cached from another build: a file changed in place, at the same size and time, runs as it is now', () => {
    const {dir, run} = setUp()
    // Whole seconds, which every filesystem keeps exactly.
    const sameTime = 1_700_000_000
    const file = moduleFile(dir, 'one')
    utimesSync(file, sameTime, sameTime)
    run(file)
    moduleFile(dir, 'two')
    utimesSync(file, sameTime, sameTime)
    // The new build's id (a hash of the file, written in by the build) is another cache.
    expect(run(file, {buildId: 'build-b'})).toBe('HELLO TWO HELLO TWO')
    // (control) V8 checks the source's length only: under the old build's id, the old code runs.
    expect(run(file, {buildId: 'build-a'})).toBe('HELLO ONE HELLO ONE')
  })

  it('costs only speed when damaged: a flipped byte of the code (which V8 would run as it is, or crash on) is found, and the cache written anew', () => {
    const {dir, run, caches, content, folder} = setUp()
    const file = moduleFile(dir, 'one')
    run(file)
    const [name] = caches()
    const written = content(name)
    const damages = [written.length - 100, Math.floor(written.length / 2), written.indexOf(10, 20) + 40].map((at) => {
      const damaged = Buffer.from(written)
      damaged[at] ^= 0x5a
      return damaged
    })
    for (const damaged of [...damages, '', 'not a cache', 'paytx-code-cache 1\n{"parts":[],"checksum":"0000000000000000"}\n']) {
      writeFileSync(join(folder, name), damaged)
      expect(run(file)).toBe('HELLO ONE HELLO ONE')
      // Written anew, and whole: the next run takes it as it is.
      const rewritten = content(name)
      expect(rewritten).not.toEqual(Buffer.from(damaged))
      run(file)
      expect(content(name)).toEqual(rewritten)
    }
  })

  it('costs only speed when the cache is a FIFO or a link to a device: it is not read (a read would hang or fill the memory) and is written anew', () => {
    const {dir, run, caches, content, folder} = setUp()
    const file = moduleFile(dir, 'one')
    run(file)
    const [name] = caches()
    for (const make of [(path: string) => execFileSync('mkfifo', [path], {timeout: 5_000}), (path: string) => symlinkSync('/dev/zero', path)]) {
      rmSync(join(folder, name))
      make(join(folder, name))
      expect(run(file)).toBe('HELLO ONE HELLO ONE')
      // A cache again, in place of the special file, taken as it is by the next run.
      const rewritten = content(name)
      expect(rewritten.toString('latin1', 0, 18)).toBe('paytx-code-cache 1')
      run(file)
      expect(content(name)).toEqual(rewritten)
    }
  })

  it('costs only speed when it cannot be written', () => {
    const {dir, cacheDir, run} = setUp()
    const file = moduleFile(dir, 'one')
    mkdirSync(cacheDir)
    // A file where the cache folder should be.
    writeFileSync(join(cacheDir, 'code-cache'), '')
    expect(run(file)).toBe('HELLO ONE HELLO ONE')
    expect(run(file)).toBe('HELLO ONE HELLO ONE')
  })

  it('removes the caches of other builds once unused for a week, and keeps those in use', () => {
    const {dir, run, caches, folder} = setUp()
    const file = moduleFile(dir, 'one')
    run(file, {buildId: 'old'})
    run(file, {buildId: 'other'})
    const [oldName, otherName] = [caches().find((name) => name.includes('-old-'))!, caches().find((name) => name.includes('-other-'))!]
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000)
    utimesSync(join(folder, oldName), eightDaysAgo, eightDaysAgo)
    utimesSync(join(folder, otherName), eightDaysAgo, eightDaysAgo)
    // "other" is used again (its time is set anew), then a new build writes its cache.
    run(file, {buildId: 'other'})
    run(file, {buildId: 'new'})
    expect(caches()).toEqual([expect.stringContaining('-new-'), otherName])
  })
})
