/**
 * The emulator's store as every paytx process on the machine shares it: what was answered 2xx
 * survives kill -9, two emulator processes on one store deliver each webhook once, and local
 * commands that find no emulator run one over the same store, so ids from one command work in
 * the next and two flows at once both succeed.
 */
import {createServer as createHttpServer} from 'node:http'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {EMULATOR_DEFAULTS} from '../../src/test-mode/emulator-defaults.js'
import {parseJsonOutput, runCli, startCli, tempConfigDir} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'
import {CUSTOMER_FIELDS} from '../helpers/fixtures.js'
import {waitFor} from '../helpers/wait-for.js'

const headers = {'content-type': 'application/json', 'X-APIKEY': EMULATOR_DEFAULTS.apiKey}

function tempStore(): string {
  return join(mkdtempSync(join(tmpdir(), 'paytx-shared-store-')), 'emulator.db')
}

async function createCustomer(url: string): Promise<string> {
  const response = await fetch(`${url}/v1/customer`, {method: 'POST', headers, body: JSON.stringify({...CUSTOMER_FIELDS, organisation: EMULATOR_DEFAULTS.organisation})})
  return ((await response.json()) as {id: string}).id
}

async function startDummy(url: string, customer: string): Promise<Response> {
  return fetch(`${url}/v1/transaction/start`, {
    method: 'POST',
    headers,
    body: JSON.stringify({amount: 250, customer, payment_product: 'dummy', details: {redirect_url: 'https://shop.example/back'}}),
  })
}

describe('one store shared by every paytx process', () => {
  it('loses no transaction answered 200 when the emulator is killed with -9 under load', async () => {
    const store = tempStore()
    const first = startCli(['emulator', 'start', '--port', '0', '--store', store], {timeoutMs: 60_000})
    const [, url] = await first.waitForStdout(/API\s+(http:\/\/127\.0\.0\.1:\d+)/)
    const customer = await createCustomer(url)
    const answered: string[] = []
    let killed = false
    const worker = async () => {
      while (!killed) {
        try {
          const response = await startDummy(url, customer)
          if (response.status === 200) answered.push(((await response.json()) as {id: string}).id)
        } catch {
          return
        }
      }
    }
    const workers = Array.from({length: 8}, () => worker())
    await waitFor(() => answered.length >= 300, '300 answered creates', 30_000)
    killed = true
    const result = await first.stop('SIGKILL')
    expect(result.signal).toBe('SIGKILL')
    await Promise.all(workers)

    const second = startCli(['emulator', 'start', '--port', '0', '--store', store], {timeoutMs: 60_000})
    const [, url2] = await second.waitForStdout(/API\s+(http:\/\/127\.0\.0\.1:\d+)/)
    try {
      const missing: string[] = []
      for (const id of answered) {
        const response = await fetch(`${url2}/v1/transaction/${id}`, {headers})
        if (response.status !== 200) missing.push(id)
        await response.arrayBuffer()
      }
      expect(missing).toEqual([])
    } finally {
      expect((await second.stop()).code).toBe(130)
    }
  }, 90_000)

  it('two emulator processes on one store deliver each webhook once and settle each transaction once', async () => {
    const store = tempStore()
    const received: string[] = []
    const receiver = createHttpServer((request, response) => {
      let body = ''
      request.on('data', (chunk) => (body += chunk))
      request.on('end', () => {
        const {id, status} = JSON.parse(body) as {id: string; status: string}
        received.push(`${id} ${status}`)
        response.writeHead(200).end()
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    const webhookUrl = `http://127.0.0.1:${(receiver.address() as {port: number}).port}/hooks`
    const args = ['emulator', 'start', '--port', '0', '--store', store, '--settle-after', '200ms', '--webhook-url', webhookUrl, '--webhook-payload', 'full', '--json']
    const one = startCli(args, {timeoutMs: 60_000})
    const two = startCli(args, {timeoutMs: 60_000})
    try {
      const urls = await Promise.all([one, two].map(async (emulator) => JSON.parse((await emulator.waitForStdout(/^\{"event":"listening".*\}$/m))[0]).url as string))
      const ids: string[] = []
      for (let i = 0; i < 8; i++) {
        const [creating, approving] = i % 2 === 0 ? urls : [urls[1], urls[0]]
        const transaction = (await (await startDummy(creating, await createCustomer(creating))).json()) as {id: string}
        const approved = await fetch(`${approving}/v1/transaction/${transaction.id}/authorize`, {
          method: 'POST',
          headers: {'content-type': 'application/x-www-form-urlencoded'},
          body: 'outcome=SETTLEMENT_COMPLETED',
          redirect: 'manual',
        })
        expect(approved.status).toBe(303)
        ids.push(transaction.id)
      }
      await waitFor(() => received.length >= 32, 'four webhooks for each of eight transactions', 15_000)
      // Once both emulators have stopped, nothing more can arrive: a second delivery or a second
      // settlement would have shown by then.
      const results = [await one.stop('SIGTERM'), await two.stop('SIGTERM')]
      expect(received).toHaveLength(32)
      expect(new Set(received).size).toBe(32)
      const settlements = results
        .flatMap((result) => result.stdout.trim().split('\n'))
        .map((line) => JSON.parse(line))
        .filter((event) => event.event === 'status' && event.to === 'SETTLEMENT_COMPLETED')
        .map((event) => event.transaction)
      expect(settlements.sort()).toEqual([...ids].sort())
    } finally {
      one.stop('SIGKILL')
      two.stop('SIGKILL')
      await new Promise<void>((resolve) => receiver.close(() => resolve()))
    }
  }, 60_000)

  it("the README's flow, then `paytx status <id>` in a new process: found, and settled", async () => {
    const configDir = tempConfigDir()
    const base = `http://127.0.0.1:${await freePort()}`
    const env = {PAYTX_BASE_URL: base, PAYTX_H2H_URL: `${base}/h2h`}
    const flow = await runCli(['flow', '--product', 'dummy', '--amount', '1499', '--approve', 'SETTLEMENT_COMPLETED', '--json'], {configDir, env})
    expect(flow.code, flow.stderr).toBe(0)
    const {transactionId} = parseJsonOutput(flow)
    expect(transactionId).toMatch(/^[0-9a-f-]{36}$/)
    const status = await runCli(['status', transactionId, '--json'], {configDir, env})
    expect(status.code, status.stderr).toBe(0)
    expect(parseJsonOutput(status)).toMatchObject({id: transactionId, status: 'SETTLEMENT_COMPLETED', amount: '1499'})

    // A flow that stops at the settlement request: the settlement falls due with no emulator running,
    // and the next command's emulator carries it out.
    const early = await runCli(['flow', '--product', 'dummy', '--amount', '700', '--approve', 'SETTLEMENT_COMPLETED', '--until', 'final', '--json'], {configDir, env})
    expect(early.code, early.stderr).toBe(0)
    const requested = parseJsonOutput(early)
    expect(requested.status).toBe('SETTLEMENT_REQUESTED')
    await new Promise((resolve) => setTimeout(resolve, EMULATOR_DEFAULTS.settleAfterMs + 200))
    const later = await runCli(['status', requested.transactionId, '--json'], {configDir, env})
    expect(later.code, later.stderr).toBe(0)
    expect(parseJsonOutput(later)).toMatchObject({id: requested.transactionId, status: 'SETTLEMENT_COMPLETED'})
  }, 60_000)

  it('two flows at once on the local profile both succeed', async () => {
    const configDir = tempConfigDir()
    const base = `http://127.0.0.1:${await freePort()}`
    const env = {PAYTX_BASE_URL: base, PAYTX_H2H_URL: `${base}/h2h`}
    const args = ['flow', '--product', 'dummy', '--amount', '1499', '--approve', 'SETTLEMENT_COMPLETED', '--json']
    const first = runCli(args, {configDir, env, timeoutMs: 45_000})
    // The second starts while the first one's emulator is up, and outlives it.
    await new Promise((resolve) => setTimeout(resolve, 700))
    const second = runCli([...args.slice(0, 3), '--amount', '2500', '--approve', 'SETTLEMENT_COMPLETED', '--json'], {configDir, env, timeoutMs: 45_000})
    const results = await Promise.all([first, second])
    for (const result of results) expect(result.code, result.stdout + result.stderr).toBe(0)
    const summaries = results.map((result) => parseJsonOutput(result))
    expect(summaries.map((summary) => summary.status)).toEqual(['SETTLEMENT_COMPLETED', 'SETTLEMENT_COMPLETED'])
    // Both are in the one store: a third process finds them.
    for (const summary of summaries) {
      const status = await runCli(['status', summary.transactionId, '--json'], {configDir, env})
      expect(status.code, status.stderr).toBe(0)
    }
  }, 90_000)

  it("the emulator a command runs accepts the local profile's own organisation and payment profile", async () => {
    const configDir = tempConfigDir()
    const organisation = '3f1c2a9e-0000-4000-8000-000000000201'
    const paymentProfile = '3f1c2a9e-0000-4000-8000-000000000202'
    const base = `http://127.0.0.1:${await freePort()}`
    const added = await runCli(['profile', 'add', 'mine', '--env', 'local', '--base-url', base, '--h2h-url', `${base}/h2h`, '--organisation', organisation, '--payment-profile', paymentProfile], {configDir})
    expect(added.code, added.stderr).toBe(0)
    const flow = await runCli(['flow', '--profile', 'mine', '--product', 'dummy', '--amount', '100', '--approve', 'SETTLEMENT_REQUESTED', '--json'], {configDir})
    expect(flow.code, flow.stdout + flow.stderr).toBe(0)
    const summary = parseJsonOutput(flow)
    expect(summary.transaction).toMatchObject({payment_profile: paymentProfile, status: 'SETTLEMENT_REQUESTED'})
    const customer = await runCli(['customer', 'create', '--profile', 'mine', '--no-input', '--json', '--title', 'mr', '--first-name', 'Piet', '--last-name', 'Pieters',
      '--email-address', 'piet@example.com', '--phone-number', '+31612345679', '--street-address', 'Dam', '--postal-code', '1012 JS', '--city', 'Amsterdam', '--country-code', 'NL'], {configDir})
    expect(customer.code, customer.stdout + customer.stderr).toBe(0)
    expect(parseJsonOutput(customer).organisation).toBe(organisation)
    // An id neither the store nor the profile knows is still refused.
    const unknown = await runCli(['transaction', 'start', '--profile', 'mine', '--json', '--customer', parseJsonOutput(customer).id, '--product', 'dummy', '--amount', '100',
      '--payment-profile', '3f1c2a9e-0000-4000-8000-0000000002ff', '--redirect-url', 'https://shop.example/back'], {configDir})
    expect(unknown.code).toBe(1)
    expect(unknown.stdout).toContain('no payment profile has this id')
  }, 60_000)
})
