/**
 * One sweep over the everyday commands at a terminal of 40, 60, 80 and 120 columns: each runs
 * in-process (its terminal's width from the command context) against a real emulator on
 * 127.0.0.1 with realistic data, and every line it writes to stdout or stderr, escape codes
 * stripped, leaves the terminal's last column free; only a line that is one word (an id, an
 * address, a key) may be longer, since it cannot be broken. Tables, wrapped lines, blocks, help
 * and errors are each held to the width by their own tests; this one catches the view nobody
 * thought of.
 */
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {stripVTControlCharacters} from 'node:util'

import {Config} from '@oclif/core/config'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import PaytxHelp from '../../src/cli/help.js'
import {startEmulator, type RunningEmulator} from '../../src/emulator/index.js'
import {emulatorStartRenderer} from '../../src/output/emulator-start.js'
import {ROOT} from '../helpers/cli.js'
import {type RunCommandOptions, runCommand} from '../helpers/run-command.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {TX_A, TX_B, long, record, saveFile} from '../helpers/saved-webhooks.js'

const WIDTHS = [40, 60, 80, 120]
const APPROVE_PAN = '4024007108173153'
const LONG_PROFILE = 'acme-payments-eu-west-sandbox-2026'

const CUSTOMER_FLAGS = [
  '--title', 'ms',
  '--first-name', 'Erika',
  '--last-name', 'Mustermann',
  '--email-address', 'erika.mustermann@example.com',
  '--phone-number', '+4930123456',
  '--street-address', 'Heidestrasse',
  '--house-number', '17',
  '--postal-code', '10557',
  '--city', 'Berlin',
  '--country-code', 'DE',
]

/**
 * The lines of `text` (stdout or stderr) that run into the last column, other than a single word
 * (an id, an address) or a single command in backticks (kept whole so that it can be pasted).
 */
function tooWide(text: string, width: number): string[] {
  return stripVTControlCharacters(text)
    .split(/\r?\n|\r/)
    .filter((line) => line.length >= width && /\S\s+\S/.test(line.trim()))
    .filter((line) => !/^`[^`]+`[.,:;]?$/.test(line.trim()))
}

let emulator: RunningEmulator
let shop: RecordingServer
let receiver: RecordingServer
let configDir: string
let customer: string
let transactions: string[]
let smokeFile: string
let webhookFile: string
/** A config folder whose one profile, sandbox-labelled, points at the emulator: what `emulator verify` checks. */
let verifyConfigDir: string

const env = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl})

function paytx(argv: string[], options: RunCommandOptions = {}) {
  return runCommand(argv, {...options, configDir: options.configDir ?? configDir, env: {...env(), ...options.env}})
}

async function json(argv: string[], input?: string): Promise<{id: string}> {
  const result = await paytx([...argv, '--json'], {input})
  expect(result.exitCode, result.stderr).toBe(0)
  return JSON.parse(result.stdout) as {id: string}
}

beforeAll(async () => {
  emulator = await startEmulator({port: 0, settleAfterMs: 0, pendingForMs: 0, assumptions: {webhookPayload: 'full'}})
  shop = await startRecordingServer(() => ({status: 200, text: 'back at the shop'}))
  receiver = await startRecordingServer(() => ({status: 200, json: {ok: true}}))
  configDir = mkdtempSync(join(tmpdir(), 'paytx-width-sweep-'))
  const added = await paytx(['profile', 'add', LONG_PROFILE, '--env', 'sandbox', '--base-url', 'https://sandbox.payments.example.com/api/v1', '--api-key-stdin', '--no-input'], {
    input: 'sk_test_0123456789abcdef\n',
  })
  expect(added.exitCode, added.stderr).toBe(0)
  const faults = await paytx(['emulator', 'faults', 'add', '--file', join(ROOT, 'examples', 'faults.yaml')])
  expect(faults.exitCode, faults.stderr).toBe(0)
  customer = (await json(['customer', 'create', ...CUSTOMER_FLAGS])).id
  const start = (outcome: string) => json(['transaction', 'start', '--product', 'dummy', '--amount', '1499', '--customer', customer, '--merchant-reference', `order-2026-11-28-${outcome}`, '--redirect-url', `${shop.url}/return?order=7`])
  transactions = [(await start('one')).id, (await start('two')).id, (await start('three')).id]
  const folder = mkdtempSync(join(tmpdir(), 'paytx-width-sweep-'))
  smokeFile = join(folder, 'cases.yaml')
  writeFileSync(
    smokeFile,
    `defaults: {product: dummy, amount: 1499}
cases:
  - name: settled-dummy-payment
    outcome: SETTLEMENT_COMPLETED
    expect: {status: SETTLEMENT_COMPLETED, success: true}
  - name: expects-the-wrong-thing-on-purpose
    outcome: CANCELLED
    expect: {status: DECLINED}
`,
  )
  verifyConfigDir = mkdtempSync(join(tmpdir(), 'paytx-width-sweep-'))
  const sandbox = {
    env: 'sandbox',
    base_url: `${emulator.url}/v1`,
    h2h_url: `${emulator.url}/h2h`,
    proxy_id: emulator.proxyId,
    organisation: emulator.organisation,
    payment_profile: emulator.paymentProfileId,
    api_key_header: emulator.apiKeyHeader,
    api_key: emulator.apiKey,
    proxy_key: emulator.proxyKey,
  }
  writeFileSync(join(verifyConfigDir, 'profiles.json'), JSON.stringify({active: 'sb', profiles: {sb: sandbox}}), {mode: 0o600})
  webhookFile = saveFile([record(1, TX_A, 'SETTLEMENT_REQUESTED', long), record(2, TX_B, 'SETTLEMENT_COMPLETED', long)])
}, 60_000)

afterAll(async () => {
  await emulator?.close()
  await shop?.close()
  await receiver?.close()
})

/** A command as typed, what stdin holds, and the exit codes it may end with here. */
interface Run {
  argv: () => string[]
  input?: string
  exits: number[]
  env?: Record<string, string | undefined>
  configDir?: () => string
}

const RUNS: Record<string, Run> = {
  'customer create': {argv: () => ['customer', 'create', ...CUSTOMER_FLAGS], exits: [0]},
  'card tokenize': {
    argv: () => ['card', 'tokenize', '--customer', customer, '--expiry-month', '12', '--expiry-year', '2030', '--holder-name', 'Erika Mustermann', '--pan-stdin'],
    input: `${APPROVE_PAN}\n`,
    exits: [0],
  },
  'transaction start': {
    argv: () => ['transaction', 'start', '--product', 'dummy', '--amount', '1499', '--customer', customer, '--merchant-reference', 'order-2026-11-28-000123', '--redirect-url', `${shop.url}/return?order=7`],
    exits: [0],
  },
  'status of one id': {argv: () => ['status', transactions[0]], exits: [0, 3, 4]},
  'status of several ids': {argv: () => ['status', ...transactions], exits: [0, 3, 4]},
  checkoutsuccess: {argv: () => ['checkoutsuccess', ...transactions], exits: [0, 3, 4]},
  // CI: the captured stderr is no real terminal, so no spinner; stdout still counts as one.
  flow: {
    argv: () => ['flow', '--product', 'dummy', '--amount', '1499', '--approve', 'SETTLEMENT_COMPLETED', '--no-open', '--merchant-reference', 'order-2026-11-28-000124'],
    exits: [0],
    env: {CI: '1'},
  },
  'profile list': {argv: () => ['profile', 'list'], exits: [0]},
  'profile show': {argv: () => ['profile', 'show', LONG_PROFILE], exits: [0]},
  'emulator faults list': {argv: () => ['emulator', 'faults', 'list'], exits: [0]},
  'emulator assumptions': {argv: () => ['emulator', 'assumptions'], exits: [0]},
  'smoke run': {argv: () => ['smoke', 'run', smokeFile], exits: [3]},
  // A CI job whose stderr is a terminal (CI=1 typed at a prompt): no live lines, yet the failed
  // case's details wrap to the width.
  'smoke run with CI set': {argv: () => ['smoke', 'run', smokeFile], exits: [3], env: {CI: '1'}},
  'webhook replay': {argv: () => ['webhook', 'replay', webhookFile, '--to', `${receiver.url}/webhooks`], exits: [0]},
  // Against a "sandbox" that is this emulator with full webhook bodies: differences to report.
  'emulator verify': {argv: () => ['emulator', 'verify', '--profile', 'sb', '--webhook-wait', '0s'], exits: [0, 5], configDir: () => verifyConfigDir, env: {PAYTX_BASE_URL: undefined, PAYTX_H2H_URL: undefined}},
  doctor: {argv: () => ['doctor', '--timeout', '2'], exits: [0, 1]},
  'an error with a hint (an unknown country code)': {argv: () => ['customer', 'create', ...CUSTOMER_FLAGS.slice(0, -1), 'XX', '--no-input'], exits: [2]},
}

describe('every line of the everyday commands fits 40, 60, 80 and 120 columns (one word alone excepted)', () => {
  it.each(Object.keys(RUNS))('%s', async (name) => {
    const run = RUNS[name]
    const wide: string[] = []
    for (const width of WIDTHS) {
      const result = await paytx(run.argv(), {terminalColumns: width, input: run.input, env: run.env, configDir: run.configDir?.()})
      expect(run.exits, `${name} at ${width}: exit ${result.exitCode}\n${result.stderr}`).toContain(result.exitCode)
      expect(result.stdout.length + result.stderr.length, `${name} at ${width} shows something`).toBeGreaterThan(0)
      for (const line of tooWide(result.stdout, width)) wide.push(`${width} stdout: ${line}`)
      for (const line of tooWide(result.stderr, width)) wide.push(`${width} stderr: ${line}`)
    }
    expect(wide).toEqual([])
  }, 60_000)

  it('a line broken where two spaces separate its words ends with no space (the flow at 50 columns)', async () => {
    const result = await paytx(RUNS.flow.argv(), {terminalColumns: 50, env: RUNS.flow.env})
    expect(result.exitCode, result.stderr).toBe(0)
    const ending = `${result.stdout}\n${result.stderr}`.split('\n').filter((line) => / $/.test(stripVTControlCharacters(line)))
    expect(ending).toEqual([])
  })

  it('emulator start: the summary it prints when listening', () => {
    const wide: string[] = []
    for (const width of WIDTHS) {
      const lines: string[] = []
      const render = emulatorStartRenderer({json: false, width, invokedAs: 'paytx', write: (text) => lines.push(text), note: () => {}, warn: () => {}})
      render({kind: 'listening', emulator, options: {settleAfterMs: 0, pendingForMs: 0, abandonAfterMs: 1_800_000, webhookUrl: `${receiver.url}/webhooks`}})
      for (const line of tooWide(lines.join('\n'), width)) wide.push(`${width}: ${line}`)
    }
    expect(wide).toEqual([])
  })

  it.each([['emulator start'], ['smoke run'], ['customer create'], ['flow'], ['transaction status']])('--help of %s', async (typed) => {
    const command = typed.split(' ')
    // A Config of its own: oclif's help rewrites the ids of the commands it lists (topic separator),
    // and the shared one serves every in-process command of this worker (isolate: false).
    const config = await Config.load({root: ROOT})
    const wide: string[] = []
    for (const width of WIDTHS) {
      const lines: string[] = []
      class CapturedHelp extends PaytxHelp {
        protected override output(texts: string[]): void {
          lines.push(...texts)
        }
      }
      // The width as the terminal's would give it (the last column left free).
      await new CapturedHelp(config, {maxWidth: width - 1}).showHelp(command)
      expect(lines.join('\n')).toContain('USAGE')
      for (const line of tooWide(lines.join('\n'), width)) wide.push(`${width}: ${line}`)
    }
    expect(wide).toEqual([])
  })
})
