import {spawnSync} from 'node:child_process'
import {createServer} from 'node:net'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {EMULATOR_DEFAULTS} from '../../src/test-mode/emulator-defaults.js'
import {parseJsonOutput, runCli, startCli, tempConfigDir} from '../helpers/cli.js'
import {CUSTOMER_FIELDS} from '../helpers/fixtures.js'

const KEY = EMULATOR_DEFAULTS.apiKey
const headers = {'content-type': 'application/json', 'X-APIKEY': KEY}

async function createCustomer(url: string) {
  const response = await fetch(`${url}/v1/customer`, {method: 'POST', headers, body: JSON.stringify({...CUSTOMER_FIELDS, organisation: EMULATOR_DEFAULTS.organisation})})
  return (await response.json()) as any
}

async function startDummy(url: string, customer: string) {
  const response = await fetch(`${url}/v1/transaction/start`, {
    method: 'POST',
    headers,
    body: JSON.stringify({amount: 250, customer, payment_product: 'dummy', details: {redirect_url: 'https://shop.example/back'}}),
  })
  return (await response.json()) as any
}

describe('paytx emulator start', () => {
  it('prints its addresses, profile and keys, serves, logs each request, and exits 130 on Ctrl-C', async () => {
    const emulator = startCli(['emulator', 'start', '--port', '0', '--settle-after', '0'])
    const [, url] = await emulator.waitForStdout(/API\s+(http:\/\/127\.0\.0\.1:\d+)/)
    await emulator.waitForStdout(/^ {2}Store .*\n/m)
    const output = emulator.stdout()
    expect(url).not.toMatch(/:0$/)
    expect(output).toContain(`Card proxy       ${url}/h2h  (proxy id ${EMULATOR_DEFAULTS.proxyId})`)
    expect(output).toContain(`Dashboard        ${url}/  (transactions, timelines, webhooks; trigger and resend)`)
    expect(output).toContain('Assumes          webhook payload minimal, id keys both, card record earlier  (./bin/run.js emulator assumptions)')
    expect(output).toContain('; add more: ./bin/run.js emulator faults add)')
    expect(output).toContain(`Payment profile  ${EMULATOR_DEFAULTS.paymentProfile}`)
    expect(output).toContain(`API key          X-APIKEY: ${KEY}`)
    expect(output).toContain(`Proxy key        TX-Proxy-Key: ${EMULATOR_DEFAULTS.proxyKey}`)
    await emulator.waitForStderr(/Press Ctrl-C to stop/)
    // The printed lines paste into a shell as they are.
    const exports = emulator.stderr().split('\n').filter((line) => line.trim().startsWith('export PAYTX_')).join('\n')
    const pasted = spawnSync('bash', ['-c', `${exports}\nprintf '%s\\n' "$PAYTX_BASE_URL" "$PAYTX_H2H_URL" "$PAYTX_API_KEY" "$PAYTX_PROXY_KEY"`], {encoding: 'utf8', timeout: 10_000})
    expect(pasted.status).toBe(0)
    expect(pasted.stdout).toBe(`${url}\n${url}/h2h\n${KEY}\n${EMULATOR_DEFAULTS.proxyKey}\n`)

    const customer = await createCustomer(url)
    expect(customer.status).toBe('unverified')
    const transaction = await startDummy(url, customer.id)
    await fetch(transaction.details.approval_url, {
      method: 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: 'outcome=SETTLEMENT_COMPLETED',
      redirect: 'manual',
    })
    await emulator.waitForStdout(/POST \/v1\/customer {2}200/)
    await emulator.waitForStdout(/SETTLEMENT_REQUESTED → SETTLEMENT_COMPLETED/)

    // The CLI's own read commands work against it.
    const env = {PAYTX_BASE_URL: url, PAYTX_API_KEY: KEY}
    const status = await runCli(['transaction', 'status', transaction.id, '--json'], {env})
    expect(status.code).toBe(0)
    expect(parseJsonOutput(status)).toMatchObject({id: transaction.id, status: 'SETTLEMENT_COMPLETED', amount: '250'})
    const check = await runCli(['checkoutsuccess', transaction.id], {env})
    expect(check.code).toBe(0)
    const created = await runCli(
      ['customer', 'create', '--no-input', '--json', '--title', 'mr', '--first-name', 'Piet', '--last-name', 'Pieters', '--email-address', 'piet@example.com',
        '--phone-number', '+31612345679', '--street-address', 'Dam', '--postal-code', '1012 JS', '--city', 'Amsterdam', '--country-code', 'NL'],
      {env},
    )
    expect(created.code).toBe(0)
    expect(parseJsonOutput(created)).toMatchObject({first_name: 'Piet', status: 'unverified', organisation: EMULATOR_DEFAULTS.organisation, fax_number: ''})

    const result = await emulator.stop('SIGINT')
    expect(result.code).toBe(130)
    expect(result.stderr).toContain('Stopped (SIGINT).')
    expect(result.stderr).not.toMatch(/\n\s+at /)
  })

  it('prints NDJSON events with --json and stops on SIGTERM with 130', async () => {
    const emulator = startCli(['emulator', 'start', '--port', '0', '--json'])
    const [line] = await emulator.waitForStdout(/^\{"event":"listening".*\}$/m)
    const listening = JSON.parse(line)
    expect(listening).toMatchObject({host: '127.0.0.1', api_key: KEY, api_key_header: 'X-APIKEY', payment_profile: EMULATOR_DEFAULTS.paymentProfile, settle_after_ms: 3000, abandon_after_ms: 420_000})
    expect(listening.port).toBeGreaterThan(0)
    expect(listening.proxy_url).toBe(`${listening.url}/h2h`)
    expect(listening.dashboard_url).toBe(`${listening.url}/`)
    expect(listening).toMatchObject({webhook_payload: 'minimal', id_keys: 'both', card_record: 'earlier'})
    await fetch(`${listening.url}/v1/nothing`, {headers})
    await emulator.waitForStdout(/"event":"request"/)
    const result = await emulator.stop('SIGTERM')
    expect(result.code).toBe(130)
    const events = result.stdout.trim().split('\n').map((text) => JSON.parse(text))
    expect(events.map((event) => event.event)).toEqual(['listening', 'request', 'stopped'])
    expect(events[1]).toMatchObject({method: 'GET', path: '/v1/nothing', status: 404})
    expect(events[2]).toEqual({event: 'stopped', signal: 'SIGTERM'})
  })

  it('prints the listening lines before anything the emulator did at start (overdue moves carried out as it opens the store)', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'paytx-emulator-cli-')), 'emulator.db')
    const first = startCli(['emulator', 'start', '--port', '0', '--store', store, '--abandon-after', '5s'])
    const [, url] = await first.waitForStdout(/API\s+(http:\/\/127\.0\.0\.1:\d+)/)
    const transaction = await startDummy(url, (await createCustomer(url)).id)
    expect((await first.stop()).code).toBe(130)
    // The abandonment falls due while no emulator runs (if the first one got to it, there is
    // nothing to carry out and this test proves nothing: the assertion below on the status event says so).
    const due = Date.parse(transaction.created_at ?? transaction.created) + 5000
    while (Date.now() < due + 50) await new Promise((resolve) => setTimeout(resolve, due + 50 - Date.now()))

    const second = startCli(['emulator', 'start', '--port', '0', '--store', store, '--abandon-after', '5s', '--json'])
    await second.waitForStdout(/"event":"status"/)
    const events = (await second.stop('SIGTERM')).stdout.trim().split('\n').map((text) => JSON.parse(text))
    expect(events[0].event).toBe('listening')
    expect(events.find((event) => event.event === 'status')).toMatchObject({transaction: transaction.id, to: 'ABANDONED'})
  })

  it('keeps its state in --store across restarts', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'paytx-emulator-cli-')), 'emulator.db')
    const first = startCli(['emulator', 'start', '--port', '0', '--store', store])
    const [, url] = await first.waitForStdout(/API\s+(http:\/\/127\.0\.0\.1:\d+)/)
    await first.waitForStdout(/^ {2}Store .*\n/m)
    expect(first.stdout()).toContain(`Store            ${store}`)
    const transaction = await startDummy(url, (await createCustomer(url)).id)
    const stopped = await first.stop()
    expect(stopped.code).toBe(130)
    expect(stopped.stderr).toContain(`The state is kept in ${store}.`)

    const second = startCli(['emulator', 'start', '--port', '0', '--store', store])
    const [, url2] = await second.waitForStdout(/API\s+(http:\/\/127\.0\.0\.1:\d+)/)
    const read = (await (await fetch(`${url2}/v1/transaction/${transaction.id}`, {headers})).json()) as any
    expect(read).toMatchObject({id: transaction.id, amount: '250', status: 'INITIATED'})
    expect((await second.stop()).code).toBe(130)
  })

  it('keeps its state in the data folder by default, and emulator reset empties it', async () => {
    const configDir = tempConfigDir()
    const first = startCli(['emulator', 'start', '--port', '0'], {configDir})
    const [, url] = await first.waitForStdout(/API\s+(http:\/\/127\.0\.0\.1:\d+)/)
    const store = join(configDir, 'data', 'emulator.db')
    await first.waitForStdout(/^ {2}Store .*\n/m)
    expect(first.stdout()).toContain(`Store            ${store}`)
    const transaction = await startDummy(url, (await createCustomer(url)).id)
    expect((await first.stop()).code).toBe(130)

    const refused = await runCli(['emulator', 'reset'], {configDir})
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`Refusing to empty the emulator store ${store} without confirmation`)
    expect(refused.stderr).toContain('--yes')
    const reset = await runCli(['emulator', 'reset', '--yes', '--json'], {configDir})
    expect(reset.code, reset.stderr).toBe(0)
    expect(parseJsonOutput(reset)).toEqual({store, reset: true})

    const second = startCli(['emulator', 'start', '--port', '0'], {configDir})
    const [, url2] = await second.waitForStdout(/API\s+(http:\/\/127\.0\.0\.1:\d+)/)
    expect((await fetch(`${url2}/v1/transaction/${transaction.id}`, {headers})).status).toBe(404)
    // The defaults are there again after a reset.
    expect((await createCustomer(url2)).status).toBe('unverified')
    expect((await second.stop()).code).toBe(130)
  })

  // The service's calls go to the emulator with Node's fetch: only the emulator's commands are
  // spawned, so that a loaded machine's slow start-ups do not add up to the test's time.
  it('accepts your own organisation and payment profile ids, and still refuses unknown ones', {timeout: 90_000}, async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'paytx-emulator-cli-')), 'emulator.db')
    const organisation = '3f1c2a9e-0000-4000-8000-000000000101'
    const paymentProfile = '3f1c2a9e-0000-4000-8000-000000000102'
    const emulator = startCli(['emulator', 'start', '--port', '0', '--store', store, '--organisation', organisation, '--payment-profile', `${paymentProfile}=http://127.0.0.1:9/hooks`], {timeoutMs: 80_000})
    const [, url] = await emulator.waitForStdout(/API\s+(http:\/\/127\.0\.0\.1:\d+)/, 30_000)
    await emulator.waitForStdout(/^ {2}Store .*\n/m)
    expect(emulator.stdout()).toContain(`Also accepts     organisation ${organisation}`)
    expect(emulator.stdout()).toContain(`Also accepts     payment profile ${paymentProfile}  (webhooks to http://127.0.0.1:9/hooks)`)
    const post = async (path: string, body: unknown) => {
      const answer = await fetch(`${url}/v1${path}`, {method: 'POST', headers, body: JSON.stringify(body)})
      return {status: answer.status, body: (await answer.json()) as any}
    }
    const createCustomer = (inOrganisation: string) => post('/customer', {...CUSTOMER_FIELDS, organisation: inOrganisation})

    const mine = await createCustomer(organisation)
    expect(mine.status, JSON.stringify(mine.body)).toBe(200)
    expect(mine.body.organisation).toBe(organisation)
    const started = await post('/transaction/start', {customer: mine.body.id, payment_product: 'dummy', amount: 100, payment_profile: paymentProfile, details: {redirect_url: 'https://shop.example/back'}})
    expect(started.status, JSON.stringify(started.body)).toBe(200)
    expect(started.body.payment_profile).toBe(paymentProfile)

    const unknown = await createCustomer('3f1c2a9e-0000-4000-8000-0000000001ff')
    expect(unknown.status).toBe(400)
    expect(JSON.stringify(unknown.body)).toMatch(/organisation.*not an organisation of this emulator/)

    // Added while it runs, through the store they share.
    const later = '3f1c2a9e-0000-4000-8000-000000000103'
    const added = await runCli(['emulator', 'add-organisation', later, '--store', store])
    expect(added.code, added.stderr).toBe(0)
    expect(added.stdout).toContain(`accepts organisation ${later}`)
    const profileAdded = await runCli(['emulator', 'add-payment-profile', '3f1c2a9e-0000-4000-8000-000000000104', '--organisation', later, '--store', store, '--json'])
    expect(profileAdded.code, profileAdded.stderr).toBe(0)
    expect(parseJsonOutput(profileAdded)).toMatchObject({organisation: later, webhook_transaction_update: ''})
    expect((await createCustomer(later)).status).toBe(200)
    expect((await emulator.stop()).code).toBe(130)
  })

  it.each([
    [['emulator', 'start', '--port', '0', '--organisation', 'acme'], '--organisation must be a UUID (got "acme")'],
    [['emulator', 'start', '--port', '0', '--payment-profile', '3f1c2a9e-0000-4000-8000-000000000102=ftp://x'], '--payment-profile must be <uuid> or <uuid>=<webhook url>'],
    [['emulator', 'add-organisation', 'acme'], 'The organisation id must be a UUID (got "acme")'],
    [['emulator', 'add-payment-profile', '3f1c2a9e-0000-4000-8000-000000000102', '--webhook-url', 'nope'], '--webhook-url must be an absolute http(s) URL'],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await runCli(args)
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(message)
  })

  it('refuses a store file that is not an emulator store (exit 2) and leaves it as it was', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'paytx-emulator-cli-')), 'emulator.db')
    writeFileSync(store, 'not a database at all')
    const result = await runCli(['emulator', 'start', '--port', '0', '--store', store])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(`Error: The emulator store ${store} is not an emulator store`)
    expect(result.stderr).toMatch(/Hint: It was left untouched/)
    expect(result.stderr).not.toMatch(/\n\s+at /)
    expect(readFileSync(store, 'utf8')).toBe('not a database at all')
    const reset = await runCli(['emulator', 'reset', '--yes', '--store', store])
    expect(reset.code).toBe(2)
    expect(readFileSync(store, 'utf8')).toBe('not a database at all')
  })

  it('says what to do when the port is in use (exit 2, an input error naming --port)', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const {port} = blocker.address() as {port: number}
    try {
      const result = await runCli(['emulator', 'start', '--port', String(port)])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr).toContain(`Error: Port ${port} on 127.0.0.1 is in use; pick another with --port or stop the other program.`)
      expect(result.stderr).toContain('--port 0 picks a free one')
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()))
    }
  })

  it.each([
    // Each rule is a row of test/commands/emulator/start.test.ts; these check the spawned contract.
    [['--settle-after', '3 days'], '--settle-after must be a duration such as 500ms, 3s, 7m or 1h'],
    [['--port', '70000'], '70000'],
  ])('rejects %j with exit 2 naming the flag', async (args, message) => {
    const result = await runCli(['emulator', 'start', ...(args.includes('--port') ? [] : ['--port', '0']), ...args])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(message)
  })
})
