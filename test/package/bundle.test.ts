/**
 * The bundle `npm run build` writes (scripts/build.js): every command file is a command, built to
 * dist/commands/ where oclif finds it, and the bundle needs no package at run time but the few it leaves
 * outside on purpose. Reads the current build (`npm run build` first).
 */
import {readFileSync, readdirSync, writeFileSync} from 'node:fs'
import {builtinModules} from 'node:module'
import {join, relative, sep} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, runCli, tempConfigDir} from '../helpers/cli.js'
import {startRecordingServer} from '../helpers/recording-server.js'

/** Packages the bundle imports at run time instead of containing them (see scripts/build.js). */
const LEFT_OUTSIDE = ['open', 'libsql']
/** Loaded with require() in the keychain's child process: a native module, never bundled. */
const REQUIRED_NATIVE = ['@napi-rs/keyring']

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
      .map((file) => relative(commandsDir, file).replace(/\.ts$/, '').split(sep).join(':'))
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8'))
    expect(Object.keys(manifest.commands).sort()).toEqual(fromFiles.sort())
  })

  it('imports no package at run time but those it leaves outside on purpose', () => {
    const imported = new Set<string>()
    for (const file of filesUnder(join(ROOT, 'dist')).filter((name) => name.endsWith('.js'))) {
      const text = readFileSync(file, 'utf8')
      for (const match of text.matchAll(/(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm)) {
        const specifier = match[1] ?? match[2]
        if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) continue
        imported.add(packageName(specifier))
      }
    }
    expect([...imported].filter((name) => !LEFT_OUTSIDE.includes(name))).toEqual([])
  })

  it('depends at install time only on what it loads at run time: the packages left outside, the native keychain and the oclif plugins', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    const plugins: string[] = manifest.oclif.plugins
    expect(Object.keys(manifest.dependencies).sort()).toEqual([...LEFT_OUTSIDE, ...REQUIRED_NATIVE, ...plugins].sort())
  })

  it('runs a command from its own built file', async () => {
    const result = await runCli(['profile', 'list', '--json'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout).profiles).toEqual([expect.objectContaining({name: 'local', builtin: true})])
  })
  it('requires node:http instead of importing it: an import makes Node 22+ load its bundled undici for every command that sends a request', () => {
    const importsOfHttp = filesUnder(join(ROOT, 'dist'))
      .filter((name) => name.endsWith('.js'))
      .filter((file) => /(?:^|[\s;])import\s[^'"]*?from\s*["'](?:node:)?http["']|\bimport\(\s*["'](?:node:)?http["']\s*\)/m.test(readFileSync(file, 'utf8')))
    expect(importsOfHttp.map((file) => relative(ROOT, file))).toEqual([])
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

  it('status against an http address loads neither Node\'s undici (fetch, WebSocket) nor TLS: node:http alone makes its request', async () => {
    const server = await startRecordingServer(() => ({json: {id: 'tx-1', amount: '1499', payment_product: 'dummy', status: 'SETTLEMENT_COMPLETED', details: {}}}))
    const preload = join(tempConfigDir(), 'loaded-modules.cjs')
    // Says at exit which of Node's own modules were loaded: undici is one only once something asks for it.
    writeFileSync(
      preload,
      // Node's undici is internal/deps/undici/undici; tls is tls.
      "const loaded = (module) => process.moduleLoadList.some((name) => name === 'NativeModule ' + module || name.endsWith('/' + module))\n" +
        "process.on('exit', () => process._rawDebug(['undici', 'tls'].map((module) => module + ' loaded: ' + loaded(module)).join(', ')))\n",
    )
    try {
      const result = await runCli(['status', 'tx-1'], {env: {PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: 'sk_test_bundle_key_0001', NODE_OPTIONS: `--require ${preload}`}})
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toContain('SETTLEMENT_COMPLETED')
      expect(server.requests).toHaveLength(1)
      expect(result.stderr).toContain('undici loaded: false, tls loaded: false')
    } finally {
      await server.close()
    }
  })
})
