/**
 * paytx as a library in a merchant's own project: the packed package installed as a dependency of
 * a fresh project, and each subpath of its `exports` (paytx, paytx/contract, paytx/emulator,
 * paytx/testing, paytx/package.json, paytx/schemas/*) imported from an ES module, required from
 * CommonJS, and type-checked from TypeScript with the types the package ships; and the shop's own
 * test suites on paytx/testing: vitest in parallel workers, node:test, jest's global setup. Packs
 * the current build (`npm run build` first).
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

const project = mkdtempSync(join(tmpdir(), 'paytx-merchant-'))
const NPM_TIMEOUT_MS = 180_000
const RUN_TIMEOUT_MS = 60_000

beforeAll(() => {
  const npm = {cwd: project, encoding: 'utf8' as const, timeout: NPM_TIMEOUT_MS, env: {...process.env, npm_config_audit: 'false', npm_config_fund: 'false'}}
  const listing = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', project], {...npm, cwd: ROOT}))
  writeFileSync(join(project, 'package.json'), JSON.stringify({name: 'merchant-shop', version: '1.0.0', private: true}))
  execFileSync('npm', ['install', '--save-dev', '--prefer-offline', join(project, listing[0].filename)], npm)
}, NPM_TIMEOUT_MS + 10_000)

afterAll(() => rmSync(project, {recursive: true, force: true}))

/** The bytes of the files under a folder (links not followed). */
function sizeOf(path: string): number {
  const stat = lstatSync(path)
  if (!stat.isDirectory()) return stat.size
  return readdirSync(path).reduce((total, name) => total + sizeOf(join(path, name)), 0)
}

function node(file: string, source: string): {status: number | null; stdout: string; stderr: string} {
  writeFileSync(join(project, file), source)
  return spawnSync(process.execPath, [file], {cwd: project, encoding: 'utf8', timeout: RUN_TIMEOUT_MS})
}

/** What a shop's test does with the emulator: a customer, a dummy payment approved on its page, checkoutsuccess. */
const PAY = `async function pay(emulator) {
  const headers = {'content-type': 'application/json', [emulator.apiKeyHeader]: emulator.apiKey}
  const post = async (path, body) => (await fetch(emulator.url + path, {method: 'POST', headers, body: JSON.stringify(body)})).json()
  const customer = await post('/v1/customer', {title: 'ms', first_name: 'Jane', last_name: 'Doe', email_address: 'jane@example.com', country_code: 'NL', city: 'Amsterdam', street_address: 'Damrak 1', postal_code: '1012 LG', phone_number: '+31612345678', organisation: emulator.organisation})
  const started = await post('/v1/transaction/start', {amount: 1499, customer: customer.id, payment_product: 'dummy', details: {redirect_url: 'https://shop.example/back'}})
  await fetch(started.details.approval_url, {method: 'POST', headers: {'content-type': 'application/x-www-form-urlencoded'}, body: 'outcome=SETTLEMENT_COMPLETED', redirect: 'manual'})
  return (await fetch(emulator.url + '/v1/transaction/' + started.id + '/checkoutsuccess', {headers})).json()
}`

describe('paytx in a merchant’s project', {timeout: RUN_TIMEOUT_MS + 10_000}, () => {
  it('an ES module imports every subpath and drives an emulator', () => {
    const run = node(
      'esm.mjs',
      `import {startEmulator} from 'paytx/emulator'
import {FINAL_STATUSES, SUCCESS_STATUSES, isFinalStatus, openApiDocument} from 'paytx/contract'
import * as paytx from 'paytx'
const emulator = await startEmulator({port: 0, store: ':memory:'})
try {
  const answer = await fetch(emulator.url + '/v1/customer', {method: 'POST', headers: {'content-type': 'application/json', [emulator.apiKeyHeader]: emulator.apiKey}, body: JSON.stringify({title: 'ms', first_name: 'Jane', last_name: 'Doe', email_address: 'jane@example.com', country_code: 'NL', city: 'Amsterdam', street_address: 'Damrak 1', postal_code: '1012 LG', phone_number: '+31612345678', organisation: emulator.organisation})})
  const customer = await answer.json()
  console.log(JSON.stringify({status: answer.status, customer: customer.status, final: FINAL_STATUSES, success: SUCCESS_STATUSES, declinedFinal: isFinalStatus('DECLINED'), openapi: openApiDocument('1').openapi, same: paytx.startEmulator === startEmulator}))
} finally {
  await emulator.close()
}
`,
    )
    expect(run.status, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual({
      status: 200,
      customer: 'unverified',
      final: ['SETTLEMENT_COMPLETED', 'CANCELLED', 'DECLINED', 'FAILED', 'ABANDONED'],
      success: ['SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED'],
      declinedFinal: true,
      openapi: '3.1.0',
      same: true,
    })
  })

  it('CommonJS requires every subpath, the package.json and the schemas', () => {
    const run = node(
      'cjs.cjs',
      `const contract = require('paytx/contract')
const {startEmulator} = require('paytx/emulator')
const paytx = require('paytx')
const openapi = require('paytx/schemas/openapi.json')
console.log(JSON.stringify({statuses: contract.STATUSES.length, start: typeof startEmulator, index: typeof paytx.isSuccessStatus, version: require('paytx/package.json').version, openapi: openapi.openapi, scenario: typeof require('paytx/schemas/smoke-scenario.schema.json')}))
`,
    )
    expect(run.status, run.stderr).toBe(0)
    expect(JSON.parse(run.stdout)).toEqual({statuses: 10, start: 'function', index: 'function', version: '0.1.0', openapi: '3.1.0', scenario: 'object'})
  })

  it('a vitest suite on paytx/testing: one emulator per worker, in parallel workers, each drives a payment', () => {
    // vitest is the shop's devDependency; here the one paytx's own tests run with.
    symlinkSync(join(ROOT, 'node_modules', 'vitest'), join(project, 'node_modules', 'vitest'))
    for (const name of ['a', 'b']) {
      writeFileSync(
        join(project, `shop-${name}.test.mjs`),
        `import {writeFileSync} from 'node:fs'
import {test as base, expect} from 'vitest'
import {emulatorFixture} from 'paytx/testing'
${PAY}
const test = base.extend({emulator: emulatorFixture()})
test('pays', async ({emulator}) => {
  writeFileSync('worker-${name}.json', JSON.stringify({url: emulator.url, pid: process.pid}))
  expect(await pay(emulator)).toMatchObject({success: true})
})
`,
      )
    }
    writeFileSync(join(project, 'vitest.config.mjs'), "export default {test: {include: ['shop-*.test.mjs'], pool: 'forks', fileParallelism: true, maxWorkers: 2}}\n")
    const run = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], {cwd: project, encoding: 'utf8', timeout: RUN_TIMEOUT_MS, env: {...process.env, CI: 'true'}})
    expect(run.status, run.stdout + run.stderr).toBe(0)
    // eslint-disable-next-line no-control-regex
    expect(run.stdout.replaceAll(/\u001B\[[\d;]*m/g, '')).toMatch(/Tests\s+2 passed/)
    const workers = ['a', 'b'].map((name) => JSON.parse(readFileSync(join(project, `worker-${name}.json`), 'utf8')) as {url: string; pid: number})
    // Two workers, two emulators of their own.
    expect(new Set(workers.map((worker) => worker.pid)).size).toBe(2)
    expect(new Set(workers.map((worker) => worker.url)).size).toBe(2)
  })

  it('a node:test suite on useEmulator, and jest’s global setup and teardown', () => {
    writeFileSync(
      join(project, 'shop-node.test.mjs'),
      `import {after, before, test} from 'node:test'
import assert from 'node:assert/strict'
import {useEmulator} from 'paytx/testing'
${PAY}
const emulator = useEmulator({before, after})
test('pays', async () => assert.equal((await pay(emulator.current())).success, true))
`,
    )
    const nodeTest = spawnSync(process.execPath, ['--test', '--test-reporter=tap', 'shop-node.test.mjs'], {cwd: project, encoding: 'utf8', timeout: RUN_TIMEOUT_MS})
    expect(nodeTest.status, nodeTest.stdout + nodeTest.stderr).toBe(0)
    expect(nodeTest.stdout).toMatch(/# pass 1/)
    const jest = node(
      'jest-setup.cjs',
      `const {jestGlobalSetup, jestGlobalTeardown, publishedEmulator} = require('paytx/testing')
${PAY}
;(async () => {
  // jest calls the setup module's export with its configuration: the export ignores it.
  await jestGlobalSetup()({rootDir: '.'}, {})
  const emulator = publishedEmulator()
  const paid = await pay(emulator)
  await jestGlobalTeardown()
  const closed = await fetch(emulator.url + '/_emulator/health').then(() => 'open', () => 'closed')
  console.log(JSON.stringify({success: paid.success, env: Object.keys(emulator.env).sort(), closed, left: process.env.PAYTX_TEST_EMULATOR ?? null}))
})()
`,
    )
    expect(jest.status, jest.stderr).toBe(0)
    expect(JSON.parse(jest.stdout)).toEqual({success: true, env: ['PAYTX_API_KEY', 'PAYTX_BASE_URL', 'PAYTX_H2H_URL', 'PAYTX_PROXY_KEY'], closed: 'closed', left: null})
  })

  it('runs the README’s CI recipe as it stands, with npx in the project', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
    const tour = readme.slice(readme.indexOf('## A five-minute tour for CI'))
    const recipe = /```yaml\n([\s\S]*?)```/.exec(tour)![1]
    const commands = [...recipe.matchAll(/^- run: (.+)$/gm)].map((match) => match[1]).filter((command) => command.startsWith('npx paytx'))
    expect(commands).toEqual([expect.stringMatching(/^npx paytx smoke run node_modules\/paytx\/examples\/smoke\.yaml /)])
    const home = mkdtempSync(join(tmpdir(), 'paytx-ci-home-'))
    const run = spawnSync('bash', ['-c', commands[0]], {
      cwd: project,
      encoding: 'utf8',
      timeout: 2 * RUN_TIMEOUT_MS,
      env: {...process.env, CI: 'true', PAYTX_CONFIG_DIR: join(home, 'config'), PAYTX_DATA_DIR: join(home, 'data'), PAYTX_CACHE_DIR: join(home, 'cache'), npm_config_offline: 'true'},
    })
    expect(run.status, run.stdout + run.stderr).toBe(0)
    expect(readFileSync(join(project, 'smoke-results.xml'), 'utf8')).toMatch(/<testsuites [^>]*failures="0"/)
  }, 2 * RUN_TIMEOUT_MS + 10_000)

  it('TypeScript type-checks against the shipped types, which are real types (not any)', () => {
    writeFileSync(
      join(project, 'check.ts'),
      `import type {Transaction, TransactionStatus, CustomerRequest} from 'paytx/contract'
import {isSuccessStatus} from 'paytx/contract'
import {startEmulator, type RunningEmulator} from 'paytx/emulator'
import {emulatorFixture, startTestEmulator, type TestEmulator} from 'paytx/testing'
import {STATUSES} from 'paytx'

const status: TransactionStatus = STATUSES[0]
const answer: Pick<Transaction, 'id' | 'amount' | 'status'> = {id: 'x', amount: '1499', status}
const request: Pick<CustomerRequest, 'first_name'> = {first_name: 'Jane'}
const started: Promise<RunningEmulator> = startEmulator({port: 0, store: ':memory:', publicUrl: 'http://paytx:4010'})
const ok: boolean = isSuccessStatus(answer.status)
// @ts-expect-error an answer's amount is a string of minor units
const wrongAmount: Pick<Transaction, 'amount'> = {amount: 1499}
// @ts-expect-error not a status of the contract
const wrongStatus: TransactionStatus = 'PAID'
// @ts-expect-error no such option
void startEmulator({portt: 0})
const forTests: Promise<TestEmulator> = startTestEmulator({settleAfterMs: 10})
const fixture = emulatorFixture()
const base: Promise<string> = forTests.then((emulator) => emulator.env.PAYTX_BASE_URL)
export {request, started, ok, wrongAmount, wrongStatus, fixture, base}
`,
    )
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({compilerOptions: {module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: ['node'], typeRoots: [join(ROOT, 'node_modules', '@types')]}, files: ['check.ts']}),
    )
    const check = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], {cwd: project, encoding: 'utf8', timeout: RUN_TIMEOUT_MS})
    expect(check.stdout + check.stderr).toBe('')
    expect(check.status).toBe(0)
  })

  it('installs under 45 MB, with only the running libc’s keyring binary (libsql’s binaries declare no libc: npm installs both, as docs/testing.md says)', () => {
    const modules = join(project, 'node_modules')
    const total = sizeOf(modules)
    expect(total).toBeLessThan(45 * 1024 * 1024)
    expect(sizeOf(join(modules, 'paytx'))).toBeLessThan(8 * 1024 * 1024)
    const keyrings = readdirSync(join(modules, '@napi-rs')).filter((name) => name.startsWith('keyring-linux-'))
    if (process.platform === 'linux' && process.arch === 'x64') {
      const running = (process.report.getReport() as {header: {glibcVersionRuntime?: string}}).header.glibcVersionRuntime ? 'gnu' : 'musl'
      expect(keyrings).toEqual([`keyring-linux-x64-${running}`])
      // When libsql declares its libc, npm skips the other binary: then docs/testing.md's table changes.
      expect(existsSync(join(modules, '@libsql', 'linux-x64-gnu')) && existsSync(join(modules, '@libsql', 'linux-x64-musl'))).toBe(true)
    }
    const text = readFileSync(join(ROOT, 'docs', 'testing.md'), 'utf8')
    const stated = Number(/about (\d+) MB of files in `node_modules`/.exec(text)?.[1])
    expect(Math.abs(stated - total / 1024 / 1024), `docs/testing.md states ${stated} MB; installed: ${(total / 1024 / 1024).toFixed(1)} MB`).toBeLessThan(3)
  })
})
