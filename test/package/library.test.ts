/**
 * paytx as a library in a merchant's own project: the packed package installed as a dependency of
 * a fresh project, and each subpath of its `exports` (paytx, paytx/contract, paytx/emulator,
 * paytx/package.json, paytx/schemas/*) imported from an ES module, required from CommonJS, and
 * type-checked from TypeScript with the types the package ships. Packs the current build (`npm
 * run build` first).
 */
import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
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

function node(file: string, source: string): {status: number | null; stdout: string; stderr: string} {
  writeFileSync(join(project, file), source)
  return spawnSync(process.execPath, [file], {cwd: project, encoding: 'utf8', timeout: RUN_TIMEOUT_MS})
}

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

  it('TypeScript type-checks against the shipped types, which are real types (not any)', () => {
    writeFileSync(
      join(project, 'check.ts'),
      `import type {Transaction, TransactionStatus, CustomerRequest} from 'paytx/contract'
import {isSuccessStatus} from 'paytx/contract'
import {startEmulator, type RunningEmulator} from 'paytx/emulator'
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
export {request, started, ok, wrongAmount, wrongStatus}
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
})
