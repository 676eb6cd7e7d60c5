/**
 * The emulator's store as every paytx process on the machine shares it: what was answered 2xx
 * survives kill -9, and two emulator processes on one store deliver each webhook once.
 */
import {createServer as createHttpServer} from 'node:http'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {EMULATOR_DEFAULTS} from '../../src/test-mode/emulator-defaults.js'
import {startCli} from '../helpers/cli.js'
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

})
