/**
 * The production line on a pseudo-terminal (in colour, NO_COLOR, the profile under the result)
 * and in `webhook listen`; the rest is in test/commands/production-banner.test.ts.
 */

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {runCli, startCli, tempConfigDir} from '../helpers/cli.js'
import {CUSTOMER_RESPONSE} from '../helpers/fixtures.js'
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

  it('webhook listen --fetch on a production profile prints it first; without --fetch it talks to no service and does not', async () => {
    const fetching = startCli(['webhook', 'listen', '--port', '0', '--fetch', '--profile', 'acme-live'], {configDir})
    await fetching.waitForStderr(/Ready/)
    const stopped = await fetching.stop()
    expect(firstLine(stopped.stderr)).toBe(banner)

    const plain = startCli(['webhook', 'listen', '--port', '0', '--profile', 'acme-live'], {configDir})
    await plain.waitForStderr(/Ready/)
    expect((await plain.stop()).stderr).not.toContain('PRODUCTION')
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
