/**
 * `paytx flow` on sandbox and production profiles, against a scripted service on 127.0.0.1:
 * the production guard, what must be given there, and webhooks that go to a public address.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {parseJsonOutput, tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'

const API_KEY = 'sk_live_0123456789abcdef0123'
const PROXY_KEY = 'pk_live_fedcba9876543210fedc'

describe('paytx flow off the emulator', () => {
  let server: RecordingServer
  let configDir: string
  beforeEach(async () => {
    server = await startRecordingServer((req) => {
      if (req.method === 'POST' && req.path === '/v1/transaction/start') {
        return {json: {id: 'tx-live-1', status: 'INITIATED', amount: String(req.body.amount), payment_product: req.body.payment_product, details: {...req.body.details, approval_url: `${server.url}/v1/transaction/tx-live-1/authorize`}}}
      }
      if (req.path === '/v1/transaction/tx-live-1/checkoutsuccess') return {json: {status: 'IN_PROGRESS', status_reason: '', success: false}}
      if (req.path === '/v1/transaction/tx-live-1') return {json: {id: 'tx-live-1', status: 'IN_PROGRESS', amount: '100', payment_product: 'dummy', details: {}}}
      return undefined
    })
    configDir = tempConfigDir()
    for (const env of ['production', 'sandbox']) {
      const added = await runCommand(
        ['profile', 'add', env === 'production' ? 'live' : 'test', '--env', env, '--base-url', `${server.url}/v1`, '--h2h-url', `${server.url}/h2h`, '--proxy-id', '1234567890123456', '--organisation', 'org-1', '--payment-profile', 'pp-1', '--api-key-stdin', '--proxy-key-stdin'],
        {configDir, input: `${API_KEY}\n${PROXY_KEY}\n`},
      )
      expect(added.exitCode, added.stderr).toBe(0)
    }
  })
  afterEach(() => server.close())

  const flow = (args: string[]) => runCommand(['flow', '--no-open', ...args], {configDir})

  it('refuses on production without --yes when no one can be asked, sending nothing', async () => {
    const result = await flow(['--profile', 'live', '--product', 'dummy', '--amount', '100', '--customer', 'cus-1'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('Refusing to run a payment flow')
    expect(result.stderr).toContain('--yes')
    expect(server.requests).toHaveLength(0)
  })

  it('needs a customer, a card number and --approve-free runs on production, each named with exit 2', async () => {
    const noCustomer = await flow(['--profile', 'live', '--product', 'dummy', '--amount', '100', '--yes'])
    expect(noCustomer.exitCode).toBe(2)
    expect(noCustomer.stderr).toContain('give --customer <id> or --customer-data <file>')

    const noPan = await flow(['--profile', 'live', '--product', 'card', '--amount', '100', '--customer', 'cus-1', '--yes'])
    expect(noPan.exitCode).toBe(2)
    expect(noPan.stderr).toContain('--pan-stdin')

    const noExpiry = await runCommand(['flow', '--profile', 'live', '--product', 'card', '--amount', '100', '--customer', 'cus-1', '--pan-stdin', '--yes'], {configDir, input: '4024007108173153\n'})
    expect(noExpiry.exitCode).toBe(2)
    expect(noExpiry.stderr).toContain('--expiry-month is required')
    expect(noExpiry.stderr).not.toContain('4024007108173153')

    const approve = await flow(['--profile', 'test', '--product', 'dummy', '--amount', '100', '--approve', 'DECLINED'])
    expect(approve.exitCode).toBe(2)
    expect(approve.stderr).toContain('--approve works only against the emulator')
    expect(server.requests).toHaveLength(0)
  })

  it('with --yes sends the start with the public --webhook-url, reuses the customer and exits 4 when nothing concludes', async () => {
    const result = await flow(['--profile', 'live', '--product', 'dummy', '--amount', '100', '--customer', 'cus-1', '--yes', '--webhook-url', 'https://hooks.example.test/paytx?key=s3cret', '--wait-timeout', '1s', '--json'])
    expect(result.exitCode, result.stderr).toBe(4)
    expect(server.requests[0].path).toBe('/v1/transaction/start')
    expect(server.requests[0].headers['x-apikey']).toBe(API_KEY)
    expect(server.requests[0].body).toMatchObject({customer: 'cus-1', payment_profile: 'pp-1', webhook_transaction_update: 'https://hooks.example.test/paytx?key=s3cret'})
    expect(server.requests[0].body.details.redirect_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/flow\/[\w-]+\/redirect$/)
    expect(server.requests.some((r) => r.path === '/v1/customer')).toBe(false)
    expect(parseJsonOutput(result)).toMatchObject({exitCode: 4, environment: 'production', status: 'IN_PROGRESS', redirect: {received: false}, webhooks: []})
    expect(result.stderr).toMatch(/✖ no redirect/)
    expect(result.stderr).not.toContain(API_KEY)
  })

  it('asks a sandbox service for no webhook by default and says how to see them', async () => {
    const result = await flow(['--profile', 'test', '--product', 'dummy', '--amount', '100', '--wait-timeout', '1s'])
    expect(result.exitCode).toBe(1) // the scripted service knows no customers
    const result2 = await flow(['--profile', 'test', '--product', 'dummy', '--amount', '100', '--customer', 'cus-1', '--wait-timeout', '1s'])
    expect(result2.exitCode, result2.stderr).toBe(4)
    const start = server.requests.find((r) => r.path === '/v1/transaction/start')!
    expect(start.body.webhook_transaction_update).toBeUndefined()
    expect(result2.stderr).toContain('to see them here, add --tunnel cloudflared (or ngrok)')
    expect(result.stderr).toContain('POST /v1/customer')
  })
})
