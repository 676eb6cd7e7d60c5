/**
 * The npm package as users get it: packed, installed into a scratch prefix (no install script
 * runs), and run from another folder. Packs the current build (`npm run build` first), without
 * the prepack rebuild, so the dist/ the other tests spawn is never removed under them.
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ROOT, cleanEnv} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'

const scratch = mkdtempSync(join(tmpdir(), 'paytx-pack-'))
const prefix = join(scratch, 'prefix')
const paytx = join(prefix, 'bin', 'paytx')
let packed: string[] = []

// Generous bounds for a loaded 2-core machine (a flow starts an emulator in the child), yet every
// child is killed when one passes: a registry that does not answer must not hold the run.
const RUN_TIMEOUT_MS = 60_000
const NPM_TIMEOUT_MS = 180_000

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(paytx, args, {cwd: scratch, encoding: 'utf8', env: cleanEnv({PAYTX_DATA_DIR: join(scratch, 'data'), ...env}), timeout: RUN_TIMEOUT_MS})
}

beforeAll(() => {
  const npm = {cwd: ROOT, encoding: 'utf8' as const, timeout: NPM_TIMEOUT_MS, env: {...process.env, npm_config_audit: 'false', npm_config_fund: 'false'}}
  const listing = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], npm))
  packed = listing[0].files.map((file: {path: string}) => file.path)
  execFileSync('npm', ['install', '--global', '--prefix', prefix, '--prefer-offline', join(scratch, listing[0].filename)], npm)
}, 2 * NPM_TIMEOUT_MS + 10_000)

afterAll(() => rmSync(scratch, {recursive: true, force: true}))

describe('the packed package, installed', {timeout: 2 * RUN_TIMEOUT_MS + 10_000}, () => {
  it('ships the built CLI, the examples, the schemas and the licence, and no install script', () => {
    expect(packed).toContain('bin/run.js')
    expect(packed).toContain('oclif.manifest.json')
    expect(packed).toContain('examples/smoke.yaml')
    expect(packed).toContain('schemas/smoke-scenario.schema.json')
    // package.json says MIT; the licence's text ships with it (npm packs LICENSE whatever `files` says).
    expect(packed).toContain('LICENSE')
    expect(readFileSync(join(prefix, 'lib', 'node_modules', 'paytx', 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/)
    expect(packed.some((path) => path.startsWith('src/') || path.startsWith('test/'))).toBe(false)
    const manifest = JSON.parse(readFileSync(join(prefix, 'lib', 'node_modules', 'paytx', 'package.json'), 'utf8'))
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts[script]).toBeUndefined()
    expect(manifest.scripts.prepack).toBe('npm run build')
  })

  it('prints its version and the help for a command', () => {
    const version = run(['--version'])
    expect(version.status).toBe(0)
    expect(version.stdout).toMatch(/^paytx\/0\.1\.0 /)
    const help = run(['help', 'flow'])
    expect(help.status).toBe(0)
    expect(help.stdout).toContain('$ paytx flow --product card|sofort|dummy --amount <value>')
  })

  it('names itself paytx in hints, and completes commands in bash', () => {
    const typo = run(['statsu'])
    expect(typo.status).toBe(2)
    expect(typo.stderr).toContain('Hint: did you mean `paytx status`?')
    const completion = run(['autocomplete', 'bash'])
    expect(completion.status, completion.stderr).toBe(0)
    expect(completion.stdout).toContain('printf "$(paytx autocomplete script bash)" >> ~/.bashrc')
  })

  it('runs a whole flow on the embedded emulator from another folder', async () => {
    const base = `http://127.0.0.1:${await freePort()}`
    const flow = run(['flow', '--product', 'dummy', '--amount', '1499', '--approve', 'SETTLEMENT_COMPLETED', '--json'], {
      PAYTX_BASE_URL: base,
      PAYTX_H2H_URL: `${base}/h2h`,
    })
    expect(flow.status, flow.stderr).toBe(0)
    expect(JSON.parse(flow.stdout)).toMatchObject({status: 'SETTLEMENT_COMPLETED'})
  })
})
