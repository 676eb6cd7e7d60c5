/**
 * Production at a glance: every command that talks to the service with a production profile says
 * so on stderr before anything else (also with --json, so stdout stays one JSON document), and
 * none does on local or sandbox profiles. `status` and `checkoutsuccess` also name the profile
 * under the result on a terminal, and never ask anything.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runCli, startCli, tempConfigDir} from '../helpers/cli.js'
import {CUSTOMER_FLAGS, CUSTOMER_RESPONSE} from '../helpers/fixtures.js'
import {ptyAvailable, runInPty} from '../helpers/pty.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'

const API_KEY = 'sk_live_banner_0123456789abcd'
const PROXY_KEY = 'pk_live_banner_fedcba987654'
const TX_ID = '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'
const TX = {id: TX_ID, status: 'SETTLEMENT_COMPLETED', amount: '1499', payment_product: 'dummy', details: {}, created_at: '2026-11-20T10:00:00.000Z', last_status_update: '2026-11-20T10:00:03.123Z'}

describe('the production line', () => {
  let server: RecordingServer
  let configDir: string
  let banner: string

  beforeAll(async () => {
    server = await startRecordingServer((req) => {
      if (req.method === 'POST' && req.path === '/v1/customer') return {json: CUSTOMER_RESPONSE}
      if (req.method === 'POST' && req.path.startsWith('/h2h/tokenize/')) return {json: {id: 'card-live-1', brand: 'VISA', last4: '3153'}}
      if (req.method === 'POST' && req.path === '/v1/transaction/start') {
        return {json: {...TX, id: 'tx-live-1', status: 'INITIATED', details: {approval_url: `${server.url}/v1/transaction/tx-live-1/authorize`}}}
      }
      if (req.path === `/v1/transaction/${TX_ID}/checkoutsuccess`) return {json: {status: 'SETTLEMENT_COMPLETED', status_reason: '', success: true}}
      if (req.path === `/v1/transaction/${TX_ID}`) return {json: TX}
      if (req.path === '/v1/transaction/tx-live-1/checkoutsuccess') return {json: {status: 'IN_PROGRESS', status_reason: '', success: false}}
      if (req.path === '/v1/transaction/tx-live-1') return {json: {...TX, id: 'tx-live-1', status: 'IN_PROGRESS'}}
      return undefined
    })
    configDir = tempConfigDir()
    banner = `PRODUCTION · profile acme-live · ${server.url}/v1`
    for (const [name, env] of [['acme-live', 'production'], ['acme-test', 'sandbox']]) {
      const added = await runCli(
        ['profile', 'add', name, '--env', env, '--base-url', `${server.url}/v1`, '--h2h-url', `${server.url}/h2h`, '--proxy-id', '1234567890123456', '--organisation', 'org-1', '--payment-profile', 'pp-1', '--api-key-stdin', '--proxy-key-stdin', '--insecure-storage'],
        {configDir, input: `${API_KEY}\n${PROXY_KEY}\n`},
      )
      expect(added.code, added.stderr).toBe(0)
      expect(added.stderr).not.toContain('PRODUCTION ·')
    }
  })
  afterAll(() => server.close())

  const firstLine = (stderr: string) => stderr.split('\n')[0]

  const commands: [label: string, args: string[], input?: string][] = [
    ['status', ['status', TX_ID]],
    ['status --wait', ['status', TX_ID, '--wait', '--wait-timeout', '5s']],
    ['checkoutsuccess', ['checkoutsuccess', TX_ID]],
    ['customer create', ['customer', 'create', ...CUSTOMER_FLAGS, '--yes']],
    ['card tokenize', ['card', 'tokenize', '--customer', 'cus-1', '--expiry-month', '12', '--expiry-year', '2031', '--holder-name', 'Jane Doe', '--pan-stdin', '--yes'], '4024007108173153\n'],
    ['transaction start', ['transaction', 'start', '--product', 'dummy', '--amount', '100', '--customer', 'cus-1', '--redirect-url', 'https://shop.example.com/return', '--yes']],
    ['flow', ['flow', '--product', 'dummy', '--amount', '100', '--customer', 'cus-1', '--webhook', 'none', '--no-open', '--wait-timeout', '1s', '--yes']],
  ]

  it.each(commands)('%s on a production profile prints it first on stderr, plain in a pipe', async (_label, args, input) => {
    const result = await runCli([...args, '--profile', 'acme-live'], {configDir, input})
    expect(result.code, result.stderr).not.toBe(2)
    expect(firstLine(result.stderr)).toBe(banner)
    expect(result.stderr.split(banner)).toHaveLength(2) // once
    expect(result.stderr).not.toContain('\u001B[')
    expect(result.stdout).not.toContain('PRODUCTION ·')
  })

  it.each(commands)('%s with --json keeps stdout one JSON document and the line on stderr', async (_label, args, input) => {
    const result = await runCli([...args, '--profile', 'acme-live', '--json'], {configDir, input})
    expect(firstLine(result.stderr)).toBe(banner)
    expect(() => parseJsonOutput(result)).not.toThrow()
  })

  it.each(commands)('%s on a sandbox profile prints no production line', async (_label, args, input) => {
    const result = await runCli([...args, '--profile', 'acme-test'], {configDir, input})
    expect(result.code, result.stderr).not.toBe(2)
    expect(result.stderr).not.toContain('PRODUCTION')
  })

  it('smoke run on a production profile prints it first', async () => {
    const scenario = join(configDir, 'live.yaml')
    writeFileSync(scenario, 'cases:\n  - name: live-check\n    product: dummy\n    amount: 100\n    outcome: manual\n    customer: cus-1\n    webhook: none\n    wait_timeout: 1s\n')
    const live = await runCli(['smoke', 'run', scenario, '--no-open', '--yes', '--profile', 'acme-live'], {configDir})
    expect(live.code, live.stderr).not.toBe(2)
    expect(firstLine(live.stderr)).toBe(banner)
    const sandbox = await runCli(['smoke', 'run', scenario, '--no-open', '--profile', 'acme-test'], {configDir})
    expect(sandbox.code, sandbox.stderr).not.toBe(2)
    expect(sandbox.stderr).not.toContain('PRODUCTION')
  })

  it('webhook listen --fetch on a production profile prints it first; without --fetch it talks to no service and does not', async () => {
    const fetching = startCli(['webhook', 'listen', '--port', '0', '--fetch', '--profile', 'acme-live'], {configDir})
    await fetching.waitForStderr(/Ready/)
    const stopped = await fetching.stop()
    expect(firstLine(stopped.stderr)).toBe(banner)

    const plain = startCli(['webhook', 'listen', '--port', '0', '--profile', 'acme-live'], {configDir})
    await plain.waitForStderr(/Ready/)
    expect((await plain.stop()).stderr).not.toContain('PRODUCTION')
  })

  it('the built-in local profile (the emulator) prints no production line', async () => {
    const result = await runCli(['status', TX_ID], {configDir: tempConfigDir()})
    expect(result.code).toBe(1) // the emulator knows no such transaction
    expect(result.stderr).not.toContain('PRODUCTION')
  })

  it('names the profile under the result only on a terminal', async () => {
    const piped = await runCli(['status', TX_ID, '--profile', 'acme-live'], {configDir})
    expect(piped.code).toBe(0)
    expect(piped.stdout).not.toMatch(/^Profile/m)
  })

  it.runIf(ptyAvailable).each([
    ['status', ['status', TX_ID]],
    ['checkoutsuccess', ['checkoutsuccess', TX_ID]],
  ])('%s on a terminal: the line in colour, the profile under the result, no prompt', async (_label, args) => {
    const session = runInPty([...args, '--profile', 'acme-live'], {configDir, env: {NO_COLOR: undefined}})
    expect(await session.exited).toBe(0)
    const screen = session.output()
    expect(screen).toContain(`\u001B[1;97;41m PRODUCTION \u001B[0m · profile acme-live · ${server.url}/v1`)
    expect(screen).toMatch(/^Profile\s+acme-live \(PRODUCTION\)\r?$/m)
    expect(screen).not.toContain('?') // nothing was asked
  })

  it.runIf(ptyAvailable)('honours NO_COLOR on a terminal', async () => {
    const session = runInPty(['status', TX_ID, '--profile', 'acme-live'], {configDir, env: {NO_COLOR: '1'}})
    expect(await session.exited).toBe(0)
    const screen = session.output()
    expect(screen).toContain(banner)
    expect(screen).not.toContain('\u001B[1;97;41m')
    expect(screen).toMatch(/^Profile\s+acme-live \(PRODUCTION\)\r?$/m)
  })

  it.runIf(ptyAvailable)('a sandbox profile on a terminal is named under the result, without the production line', async () => {
    const session = runInPty(['status', TX_ID, '--profile', 'acme-test'], {configDir})
    expect(await session.exited).toBe(0)
    expect(session.output()).not.toContain('PRODUCTION')
    expect(session.output()).toMatch(/^Profile\s+acme-test \(sandbox\)\r?$/m)
  })
})
