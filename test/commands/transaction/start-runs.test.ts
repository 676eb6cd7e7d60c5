/**
 * `paytx transaction start` in-process against a recording service on 127.0.0.1. --open with a
 * real BROWSER is in test/e2e/transaction-start.test.ts.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {parseJsonOutput, tempConfigDir} from '../../helpers/cli.js'
import {runCommand} from '../../helpers/run-command.js'
import {CARD_ID, CUSTOMER_ID, PAYMENT_PROFILE, TX_ID} from '../../helpers/fixtures.js'
import type {RecordingServer} from '../../helpers/recording-server.js'
import {startTransactionService} from '../../helpers/transaction-service.js'
import {API_KEY, CVV, expectNoSecrets} from '../../helpers/secrets.js'

const REDIRECT = 'https://shop.example.com/return'
const BASE = ['--customer', CUSTOMER_ID, '--redirect-url', REDIRECT]

describe('transaction start', () => {
  let server: RecordingServer
  beforeEach(async () => {
    server = await startTransactionService()
  })
  afterEach(() => server.close())
  const env = (extra: Record<string, string> = {}) => ({PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY, ...extra})
  const start = (args: string[], options: {input?: string; env?: Record<string, string>} = {}) =>
    runCommand(['transaction', 'start', ...args], {env: env(options.env), input: options.input})

  it('POSTs a dummy transaction with the defaults filled and prints id, status and approval URL', async () => {
    const result = await start(['--product', 'dummy', '--amount', '1499', ...BASE])
    expect(result.exitCode).toBe(0)
    expect(server.requests).toHaveLength(1)
    const [req] = server.requests
    expect(req.method).toBe('POST')
    expect(req.path).toBe('/v1/transaction/start')
    expect(req.headers['x-apikey']).toBe(API_KEY)
    expect(req.headers['tx-proxy-key']).toBeUndefined()
    expect(req.body).toEqual({
      payment_profile: PAYMENT_PROFILE,
      amount: 1499,
      customer: CUSTOMER_ID,
      customer_ip: '127.0.0.1',
      merchant_reference: expect.stringMatching(/^paytx-\d{8}T\d{6}Z-[0-9a-f]{8}$/),
      payment_product: 'dummy',
      user_agent: expect.stringMatching(/^paytx\/\d+\.\d+\.\d+/),
      details: {redirect_url: REDIRECT},
    })
    expect(result.stdout).toMatch(new RegExp(`^Transaction\\s+${TX_ID}$`, 'm'))
    expect(result.stdout).toMatch(/^Status\s+INITIATED \(not final, not a success\)$/m)
    expect(result.stdout).toMatch(/^Amount\s+1499 minor units \(14\.99\)$/m)
    expect(result.stdout).toMatch(new RegExp(`^Approval URL\\s+http://127\\.0\\.0\\.1:\\d+/v1/transaction/${TX_ID}/authorize$`, 'm'))
    expect(result.stderr).toMatch(/`paytx status 9a2e/)

    const again = await start(['--product', 'dummy', '--amount', '1499', ...BASE, '--json'])
    expect(parseJsonOutput(again).id).toBe(TX_ID)
    expect(server.requests[1].body.merchant_reference).not.toBe(req.body.merchant_reference)
  })

  it('card: sends the card id and the CVV from stdin, which never shows, not even when the service echoes it', async () => {
    const result = await start(['--product', 'card', '--card', CARD_ID, '--cvv-stdin', '--amount', '2500', ...BASE, '--json', '--verbose'], {input: `${CVV}\n`})
    expect(result.exitCode).toBe(0)
    expect(server.requests[0].body).toMatchObject({payment_product: 'card', card: CARD_ID, details: {redirect_url: REDIRECT, card_cvv: CVV}})
    const output = parseJsonOutput(result)
    expect(output.details.card_cvv).toBe('***')
    expect(result.stderr).toMatch(/"card_cvv":"\*\*\*"/)
    expectNoSecrets(result)

    const withoutCvv = await start(['--product', 'card', '--card', CARD_ID, '--amount', '2500', ...BASE])
    expect(withoutCvv.exitCode).toBe(0)
    expect(server.requests[1].body.details).toEqual({redirect_url: REDIRECT})
  })

  it('sofort: warns on stderr how the descriptor was sent', async () => {
    const result = await start(['--product', 'sofort', '--amount', '995', ...BASE, '--descriptor', 'Bestellung 4711 Müßig'])
    expect(result.exitCode).toBe(0)
    expect(server.requests[0].body.dynamic_descriptor).toBe('Bestellung 4711 Muessig')
    expect(result.stderr).toMatch(/Warning: --descriptor is 23 characters; banks in some countries show only the first 18/)
  })

  // Every input rule is a row of test/commands/transaction/start.test.ts (in-process); these few
  // check the real contract: exit 2, the message on stderr, nothing on stdout, nothing sent.
  it.each([
    [['--product', 'dummy', '--amount', '0.14', ...BASE], '', /--amount is in minor units.*use 14 for 0\.14 EUR/],
    [['--amount', '100', ...BASE], '', /--product is required \(card, sofort, dummy\)/],
    [['--product', 'paypal', '--amount', '100', ...BASE], '', /--product/],
    [['--product', 'dummy', '--amount', '100', ...BASE, '--timeout', '0'], '', /--timeout must be a number of seconds greater than 0/],
    [['--product', 'card', '--card', CARD_ID, '--cvv-stdin', '--amount', '100', ...BASE], '\n', /--cvv-stdin: stdin is empty/],
    [['--product', 'card', '--card', CARD_ID, '--cvv-stdin', '--amount', '100', ...BASE], '12\n', /--cvv-stdin: must be 3 or 4 digits/],
  ])('refuses %j with exit 2 naming the flag, and sends nothing', async (args, input, pattern) => {
    const result = await start(args, {input})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(pattern)
    expect(result.stdout).toBe('')
    expect(server.requests).toHaveLength(0)
  })

  it('reports bad input under --json as one JSON error on stdout, nothing on stderr', async () => {
    const json = await start(['--product', 'dummy', '--amount', '0.14', ...BASE, '--json'])
    expect(json.exitCode).toBe(2)
    expect(json.stderr).toBe('')
    expect(parseJsonOutput(json).error).toMatchObject({kind: 'input', exitCode: 2, flag: '--amount'})
    expect(server.requests).toHaveLength(0)
  })

  it('shows a 400’s details next to the flags; the POST is not repeated on a 500', async () => {
    server.reply(() => true, {
      status: 400,
      json: {code: '422', message: 'Invalid transaction', details: {'body.amount': 'must be at most 100000', 'body.details.redirect_url': ['is not reachable']}},
    })
    const result = await start(['--product', 'dummy', '--amount', '999999', ...BASE])
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/400 Bad Request to POST \/v1\/transaction\/start: Invalid transaction/)
    expect(result.stderr).toMatch(/^ {2}amount \(--amount\): must be at most 100000$/m)
    expect(result.stderr).toMatch(/^ {2}details\.redirect_url \(--redirect-url\): is not reachable$/m)

    server.reply(() => true, {status: 500, json: {message: 'boom'}})
    const failed = await start(['--product', 'dummy', '--amount', '100', ...BASE, '--json'])
    expect(failed.exitCode).toBe(1)
    expect(parseJsonOutput(failed).error).toMatchObject({kind: 'service', status: 500})
    expect(server.requests).toHaveLength(2)
  })

  it('an id and an approval URL from the service with line breaks and escapes stay on their lines in the notes', async () => {
    const forged = {id: `${TX_ID}\nError: forged`, status: 'INITIATED', amount: '100', details: {approval_url: 'https://pay.example/a\u001b]0;t\u0007\nOpened https://evil.example'}}
    server.reply(() => true, {json: forged})
    const result = await start(['--product', 'dummy', '--amount', '100', ...BASE, '--open'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stderr).toContain('Opened https://pay.example/a\\x1b]0;t\\x07\\nOpened https://evil.example\n')
    expect(result.stderr).toContain(`\`paytx status ${TX_ID}\\nError: forged\`.`)
    expect(result.stderr).not.toMatch(/^(Error: forged|Opened https:\/\/evil)/m)
    expect(result.stdout + result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
  })

  it('is guarded on production', async () => {
    const configDir = tempConfigDir()
    await runCommand(['profile', 'add', 'live', '--env', 'production', '--base-url', server.url, '--payment-profile', PAYMENT_PROFILE, '--api-key-stdin'], {configDir, input: `${API_KEY}\n`})
    const refused = await runCommand(['transaction', 'start', '--product', 'dummy', '--amount', '100', ...BASE, '--profile', 'live'], {configDir})
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toMatch(/Refusing to start a dummy transaction of 100 minor units \(1\.00\) on production profile "live"/)
    expect(server.requests).toHaveLength(0)
    const sent = await runCommand(['transaction', 'start', '--product', 'dummy', '--amount', '100', ...BASE, '--profile', 'live', '--yes'], {configDir})
    expect(sent.exitCode).toBe(0)
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0].path).toBe('/v1/transaction/start')
  })
})
