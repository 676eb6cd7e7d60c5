/**
 * The bundle `npm run build` writes (scripts/build.js): every command file is a command, with a
 * file in dist/commands/ where oclif finds it, the code runs from files V8's code cache serves,
 * and the bundle needs no package at run time but the few it leaves outside on purpose. Reads the
 * current build (`npm run build` first).
 */
import {existsSync, readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {createHash} from 'node:crypto'
import {builtinModules, createRequire} from 'node:module'
import {join, relative, sep} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, runCli, tempConfigDir} from '../helpers/cli.js'
import {startRecordingServer} from '../helpers/recording-server.js'

/** Packages the bundle imports at run time instead of containing them (see scripts/build.js). */
const LEFT_OUTSIDE = ['open', 'libsql', 'undici']
/** Loaded with require() in the keychain's child process: a native module, never bundled. */
const REQUIRED_NATIVE = ['@napi-rs/keyring']
/** Bundled, yet a dependency: the types of paytx/contract are inferred from its schemas, so a TypeScript project needs it. */
const FOR_TYPES = ['zod']

function filesUnder(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  )
}

function packageName(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

describe('the bundle', () => {
  it('has a command for every file under src/commands, and no other', () => {
    const commandsDir = join(ROOT, 'src', 'commands')
    const fromFiles = filesUnder(commandsDir)
      .filter((file) => file.endsWith('.ts'))
      // oclif names a topic's index.ts after the topic itself
      .map((file) => relative(commandsDir, file).replace(/\.ts$/, '').split(sep).join(':').replace(/:index$/, ''))
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8'))
    expect(Object.keys(manifest.commands).sort()).toEqual(fromFiles.sort())
  })

  it('loads no package at run time but those it leaves outside on purpose', () => {
    const loaded = new Set<string>()
    for (const file of filesUnder(join(ROOT, 'dist')).filter((name) => name.endsWith('.js'))) {
      const text = readFileSync(file, 'utf8')
      // require('x') and importModule('x') as calls, not inside a string (ajv writes code that requires its own runtime).
      for (const match of text.matchAll(/(?<![\w$.'"`])(?:require|importModule)\(\s*["']([^"']+)["']\s*\)/g)) {
        const specifier = match[1]
        if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) continue
        loaded.add(packageName(specifier))
      }
    }
    // typescript: oclif requires it only to develop a plugin from its TypeScript source, never in paytx.
    expect([...loaded].filter((name) => !LEFT_OUTSIDE.includes(name) && name !== 'typescript').sort()).toEqual([])
    expect([...loaded].filter((name) => LEFT_OUTSIDE.includes(name)).sort()).toEqual(['open', 'undici'])
  })

  it('depends at install time only on what it loads at run time (the packages left outside and the native keychain) and what its types name', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(Object.keys(manifest.dependencies).sort()).toEqual([...LEFT_OUTSIDE, ...REQUIRED_NATIVE, ...FOR_TYPES].sort())
  })

  it('has help and autocomplete as commands of its own, so that oclif loads no plugin as it starts', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(manifest.oclif.plugins).toBeUndefined()
    const commands = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')).commands
    expect(Object.keys(commands)).toEqual(expect.arrayContaining(['help', 'autocomplete', 'autocomplete:create', 'autocomplete:script']))
  })

  it('runs its code with V8\'s compiled code kept in the cache folder: oclif\'s and each command\'s of its own, written by runs of a command; used as it is, replaced when damaged, never in the way', async () => {
    const configDir = tempConfigDir()
    const cacheDir = join(configDir, 'cache')
    const env = {PAYTX_CACHE_DIR: cacheDir}
    const folder = join(cacheDir, 'code-cache')
    // --version only reads a cache: with none, it leaves no folder (test/e2e/cache-folder.test.ts).
    const first = await runCli(['--version'], {env, configDir})
    expect(first.code, first.stderr).toBe(0)
    expect(existsSync(folder)).toBe(false)
    const listed = await runCli(['profile', 'list', '--json'], {env, configDir})
    expect(listed.code, listed.stderr).toBe(0)
    const core = readdirSync(folder).find((name) => name.startsWith('core.vm.js-'))!
    expect(core).toMatch(new RegExp(`^core\\.vm\\.js-${process.version}-${process.arch}-[0-9a-f]{16}-`))
    expect(readdirSync(folder).filter((name) => name !== core)).toEqual([expect.stringMatching(/^commands\.vm\.js-.*-commands\+profile\+list$/)])

    // V8 took the code: the runs write nothing.
    const written = new Map(readdirSync(folder).map((name) => [name, readFileSync(join(folder, name))]))
    expect((await runCli(['--version'], {env, configDir})).stdout).toBe(first.stdout)
    expect((await runCli(['profile', 'list', '--json'], {env, configDir})).stdout).toBe(listed.stdout)
    for (const [name, content] of written) expect(readFileSync(join(folder, name)), name).toEqual(content)

    // A damaged cache is found out before V8 runs it: the command runs as without one, and the cache is written anew.
    const damaged = Buffer.from(written.get(core)!)
    damaged[Math.floor(damaged.length / 2)] ^= 0x5a
    writeFileSync(join(folder, core), damaged)
    const versionAfterDamage = await runCli(['--version'], {env, configDir})
    expect(versionAfterDamage.code, versionAfterDamage.stderr).toBe(0)
    expect(versionAfterDamage.stdout).toBe(first.stdout)
    const afterDamage = await runCli(['profile', 'list', '--json'], {env, configDir})
    expect(afterDamage.code, afterDamage.stderr).toBe(0)
    expect(afterDamage.stdout).toBe(listed.stdout)
    expect(readFileSync(join(folder, core))).not.toEqual(damaged)

    // A cache folder that cannot be made (a file stands in its way) changes nothing either.
    const blocked = join(tempConfigDir(), 'file')
    writeFileSync(blocked, '')
    const unwritable = await runCli(['--version'], {env: {PAYTX_CACHE_DIR: blocked}})
    expect(unwritable.code, unwritable.stderr).toBe(0)
    expect(unwritable.stderr).toBe('')
    expect(unwritable.stdout).toBe(first.stdout)
    // Seven CLI runs: on a loaded 2-core machine (CI beside another suite) one takes seconds.
  }, 120_000)

  it('names each code-cached file by a hash of its content: the ids dist/main.js holds are those of the files', () => {
    const main = readFileSync(join(ROOT, 'dist', 'main.js'), 'utf8')
    for (const file of ['core.vm.js', 'commands.vm.js']) {
      const id = createHash('sha256').update(readFileSync(join(ROOT, 'dist', file))).digest('hex').slice(0, 16)
      expect(main, file).toContain(`"${id}"`)
    }
  })

  it('renders oclif\'s texts as ejs does, handing ejs only those with a tag', () => {
    const require = createRequire(import.meta.url)
    const ejs = require('ejs')
    const plainTextEjs = require(join(ROOT, 'scripts', 'bundle', 'plain-text-ejs.cjs'))
    const context = {config: {bin: 'paytx'}}
    for (const text of ['Show a transaction.\nOn two lines, with "quotes" and \\ a backslash', '$ <%= config.bin %> status 1', 'a stray %> is dropped', '<%% literal %%>', '']) {
      expect(plainTextEjs.render(text, context)).toBe(ejs.render(text, context))
    }
  })

  it('runs a command from its own built file', async () => {
    const result = await runCli(['profile', 'list', '--json'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).profiles).toEqual([expect.objectContaining({name: 'local', builtin: true})])
  })
  it('is CommonJS throughout, as bin/run.js is: Node 20 would compile an ES module on every run, and Node 22+ reads every export of an imported node:http (its WebSocket getters load undici)', () => {
    expect(JSON.parse(readFileSync(join(ROOT, 'dist', 'package.json'), 'utf8'))).toEqual({type: 'commonjs'})
    expect(JSON.parse(readFileSync(join(ROOT, 'bin', 'package.json'), 'utf8'))).toEqual({type: 'commonjs'})
    const modules = [join(ROOT, 'bin', 'run.js'), ...filesUnder(join(ROOT, 'dist')).filter((name) => name.endsWith('.js'))]
      .filter((file) => /^\s*(?:import\s[^(]|export\s)/m.test(readFileSync(file, 'utf8')))
    expect(modules.map((file) => relative(ROOT, file))).toEqual([])
  })

  it('--version loads none of the modules oclif requires only for rare paths, and DEBUG still shows oclif\'s debug output', async () => {
    const preload = join(tempConfigDir(), 'loaded-modules.cjs')
    // tty comes with the debug and supports-color packages, child_process and dgram with wsl-utils.
    writeFileSync(
      preload,
      "process.on('exit', () => process._rawDebug('loaded: ' + ['tty', 'child_process', 'dgram', 'perf_hooks', 'readline'].filter((module) => process.moduleLoadList.includes('NativeModule ' + module)).join(' ')))\n",
    )
    const result = await runCli(['--version'], {env: {NODE_OPTIONS: `--require ${preload}`}})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain('loaded: \n')
    const debugging = await runCli(['--version'], {env: {DEBUG: 'oclif:config'}})
    expect(debugging.code).toBe(0)
    expect(debugging.stderr).toMatch(/oclif:config loading core plugin/)
  })

  it('status against an http address loads neither Node\'s undici (fetch, WebSocket) nor TLS, nor node:crypto (which the emulator\'s store loads), nor zod: node:http alone makes its request', async () => {
    const server = await startRecordingServer(() => ({json: {id: 'tx-1', amount: '1499', payment_product: 'dummy', status: 'SETTLEMENT_COMPLETED', details: {}}}))
    const preload = join(tempConfigDir(), 'loaded-modules.cjs')
    // Says at exit which of Node's own modules were loaded: undici is one only once something asks for it.
    writeFileSync(
      preload,
      // Node's undici is internal/deps/undici/undici; tls is tls. The embedded emulator's check of
      // the address needs paytx's data folder, not the store: its module loaded node:crypto (3 ms).
      "const loaded = (module) => process.moduleLoadList.some((name) => name === 'NativeModule ' + module || name.endsWith('/' + module))\n" +
        "process.on('exit', () => process._rawDebug(['undici', 'tls', 'crypto'].map((module) => module + ' loaded: ' + loaded(module)).join(', ')))\n" +
        // zod is bundled: it is known by the global its core sets as it loads. Loading and building it was 4 ms of every status.
        "process.on('exit', () => process._rawDebug('zod loaded: ' + ('__zod_globalConfig' in globalThis)))\n",
    )
    try {
      const result = await runCli(['status', 'tx-1'], {env: {PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: 'sk_test_bundle_key_0001', NODE_OPTIONS: `--require ${preload}`}})
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toContain('SETTLEMENT_COMPLETED')
      expect(server.requests).toHaveLength(1)
      expect(result.stderr).toContain('undici loaded: false, tls loaded: false, crypto loaded: false')
      expect(result.stderr).toContain('zod loaded: false')
      // The check can see zod: the OpenAPI document is written from the contract's zod schemas.
      const openapi = await runCli(['openapi'], {env: {NODE_OPTIONS: `--require ${preload}`}})
      expect(openapi.code, openapi.stderr).toBe(0)
      expect(openapi.stderr).toContain('zod loaded: true')
    } finally {
      await server.close()
    }
  })
})
