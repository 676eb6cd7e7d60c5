/**
 * The /_emulator/ routes against a web page that reaches 127.0.0.1 under a name of its own (DNS
 * rebinding): refused with 403 as the dashboard refuses it, unless the emulator was started to
 * listen beyond loopback; and the delivery log shows no address's secret parts without the key.
 */
import {request} from 'node:http'

import {afterEach, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js'
import {emulatorApi} from '../../helpers/emulator-api.js'
import {type RecordingServer, startRecordingServer} from '../../helpers/recording-server.js'
import {waitFor} from '../../helpers/wait-for.js'

/** A request with the Host header a rebinding page's requests carry; the path is sent exactly as given. */
function sendWithHost(url: string, host: string, headers: Record<string, string> = {}, method = 'GET', body?: string): Promise<{status: number; text: string}> {
  return new Promise((resolve, reject) => {
    // The path goes out byte for byte (a URL given to request() would have its dot segments resolved first).
    const {hostname, port, origin} = new URL(url)
    const req = request({hostname, port, path: url.slice(origin.length), method, headers: {host, ...headers}, agent: false}, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({status: res.statusCode!, text}))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** The Host guard's 403: the service's error object naming the host (not a page, not another 403). */
function refusedByGuard({status, text}: {status: number; text: string}): boolean {
  try {
    return status === 403 && JSON.parse(text).details.host === "not this emulator's address"
  } catch {
    return false
  }
}

const getWithHost = (url: string, host: string, headers: Record<string, string> = {}) => sendWithHost(url, host, headers)

/** Every character percent-encoded (`/` kept): a spelling no guard on the raw path recognises. */
const encodeEvery = (text: string) => [...text].map((char) => (char === '/' ? char : `%${char.charCodeAt(0).toString(16).toUpperCase()}`)).join('')

/**
 * Ways to write `/_emulator/<rest>` that the router reads as that path (or, for upper case, that
 * a router matching without regard to case would): each must meet the Host guard.
 */
const SPELLINGS: [string, (rest: string) => string][] = [
  ['as written', (rest) => `/_emulator/${rest}`],
  ['%5F', (rest) => `/%5Femulator/${rest}`],
  ['%5f', (rest) => `/%5femulator/${rest}`],
  ['_%65mulator', (rest) => `/_%65mulator/${rest}`],
  ['every character encoded', (rest) => `/${encodeEvery('_emulator')}/${encodeEvery(rest)}`],
  ['the route encoded', (rest) => `/_emulator/${encodeEvery(rest)}`],
  ['a leading //', (rest) => `//_emulator/${rest}`],
  ['an inner //', (rest) => `/_emulator//${rest}`],
  ['a /./', (rest) => `/./_emulator/${rest}`],
  ['an encoded /./', (rest) => `/%2e/_emulator/${rest}`],
  ['a /../', (rest) => `/anything/../_emulator/${rest}`],
  ['an encoded /../', (rest) => `/anything/%2E%2e/_emulator/${rest}`],
  ['a trailing /', (rest) => `/_emulator/${rest}/`],
  ['upper case', (rest) => `/_EMULATOR/${rest}`],
]

describe('/_emulator/ routes and the Host header', () => {
  const running: (RunningEmulator | RecordingServer)[] = []
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close()))
  })

  it('refuse a foreign Host with 403 (as the dashboard does) and answer their own names', async () => {
    const emulator = await startEmulator({port: 0, store: ':memory:'})
    running.push(emulator)
    const port = emulator.port
    for (const path of ['/_emulator/webhooks', '/_emulator/health', '/_emulator/faults', '/_emulator/transactions']) {
      const refused = await getWithHost(`${emulator.url}${path}`, `rebind.attacker.example:${port}`, {[emulator.apiKeyHeader]: emulator.apiKey})
      expect(refused.status, path).toBe(403)
      expect(JSON.parse(refused.text)).toMatchObject({code: '403', details: {host: "not this emulator's address"}})
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) expect((await getWithHost(`${emulator.url}/_emulator/health`, host)).status).toBe(200)
    // The service's own API is not behind this check (a client may name it as it likes).
    expect((await getWithHost(`${emulator.url}/v1/transaction/x`, `api.example:${port}`, {[emulator.apiKeyHeader]: emulator.apiKey})).status).toBe(404)
  })

  it('refuse a foreign Host on every route family under every spelling of the path, and nothing changes', async () => {
    const receiver = await startRecordingServer(() => ({status: 200, json: {}}))
    running.push(receiver)
    const webhookUrl = `${receiver.url}/hooks`
    const emulator = await startEmulator({port: 0, store: ':memory:', webhookUrl})
    running.push(emulator)
    const api = emulatorApi(emulator)
    const {transaction} = await api.startPayment('dummy')
    await waitFor(() => receiver.requests.length > 0, 'the first webhook')
    const kept = await api.post(`${emulator.url}/_emulator/faults`, {fault: 'latency', request: {path: '/v1/customer'}, latency: '1ms'})
    const keptRule = kept.body.added[0].id as string
    const before = (await api.get(`/_emulator/transactions/${transaction.id}`)).body
    const attackerOrganisation = '7e57a77a-0000-4000-8000-00000000e911'
    const json = {'content-type': 'application/json', [emulator.apiKeyHeader]: emulator.apiKey}
    const form = {'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example'}
    const families: {method: string; rest: string; headers?: Record<string, string>; body?: string}[] = [
      {method: 'GET', rest: 'health'},
      {method: 'GET', rest: `webhooks?transaction=${transaction.id}`},
      {method: 'POST', rest: 'organisations', headers: json, body: JSON.stringify({id: attackerOrganisation})},
      {method: 'POST', rest: 'payment-profiles', headers: json, body: JSON.stringify({id: emulator.paymentProfileId, webhook_transaction_update: 'http://evil.example/steal'})},
      {method: 'GET', rest: 'faults'},
      {method: 'POST', rest: 'faults', headers: json, body: JSON.stringify({fault: 'status', request: {path: '/v1/**'}, status: 503})},
      {method: 'DELETE', rest: 'faults', headers: json},
      {method: 'DELETE', rest: `faults/${keptRule}`, headers: json},
      {method: 'GET', rest: 'transactions', headers: json},
      {method: 'GET', rest: `transactions/${transaction.id}`, headers: json},
      {method: 'POST', rest: `transactions/${transaction.id}/trigger`, headers: json, body: JSON.stringify({status: 'SETTLEMENT_COMPLETED', force: true})},
      {method: 'POST', rest: `transactions/${transaction.id}/resend`, headers: json, body: JSON.stringify({all: true})},
      {method: 'GET', rest: `dashboard/transactions/${transaction.id}`},
      {method: 'POST', rest: `dashboard/transactions/${transaction.id}/trigger`, headers: form, body: 'status=DECLINED&force=true'},
      {method: 'POST', rest: `dashboard/transactions/${transaction.id}/resend`, headers: form, body: 'which=all'},
    ]
    const answered: string[] = []
    for (const [spelling, spell] of SPELLINGS) {
      for (const {method, rest, headers, body} of families) {
        const [path, query] = rest.split('?')
        const target = `${spell(path)}${query === undefined ? '' : `?${query}`}`
        const answer = await sendWithHost(`${emulator.url}${target}`, 'evil.example', headers, method, body)
        if (!refusedByGuard(answer)) answered.push(`${spelling}: ${method} ${target} answered ${answer.status}`)
      }
    }
    // The dashboard's root under its spellings: refused by the dashboard itself.
    for (const root of ['/', '//', '/.', '/%2e', '/anything/..', '/?q=a']) {
      const answer = await sendWithHost(`${emulator.url}${root}`, 'evil.example')
      if (answer.status !== 403) answered.push(`GET ${root} answered ${answer.status}`)
    }
    expect(answered).toEqual([])
    expect((await api.get('/_emulator/faults')).body.rules.map((rule: {id: string}) => rule.id)).toEqual([keptRule])
    expect((await api.get(`/_emulator/transactions/${transaction.id}`)).body).toEqual(before)
    expect((await api.createCustomer({organisation: attackerOrganisation})).status).toBe(400)
    // The payment profile's webhook address is the one the emulator was started with.
    const next = await api.startPayment('dummy')
    await waitFor(() => receiver.requests.length > 1, 'the next webhook')
    expect((await api.get(`/_emulator/transactions/${next.transaction.id}`)).body.deliveries[0].url).toBe(webhookUrl)
  })

  it('answer any Host when the emulator listens beyond loopback', async () => {
    const emulator = await startEmulator({port: 0, host: '0.0.0.0', store: ':memory:'})
    running.push(emulator)
    expect((await getWithHost(`${emulator.url}/_emulator/health`, `my-laptop.lan:${emulator.port}`)).status).toBe(200)
  })

  it('show delivery addresses redacted (query values, token path segments, passwords) to a caller without the API key', async () => {
    const receiver = await startRecordingServer(() => ({status: 200, json: {}}))
    running.push(receiver)
    const secretUrl = `${receiver.url.replace('//', '//shop:pa55word@')}/hooks/Zq8fK2mX9vLp4RtY7wNc3BdH?key=tok_0123456789abcdef`
    const emulator = await startEmulator({port: 0, store: ':memory:', webhookUrl: secretUrl})
    running.push(emulator)
    const {transaction} = await emulatorApi(emulator).startPayment('dummy')
    await waitFor(() => receiver.requests.length > 0, 'the webhook')
    const open = await getWithHost(`${emulator.url}/_emulator/webhooks?transaction=${transaction.id}`, `127.0.0.1:${emulator.port}`)
    expect(open.status).toBe(200)
    expect(JSON.parse(open.text).deliveries[0].url).toBe(`${receiver.url}/hooks/…?key=…`)
    expect(open.text).not.toMatch(/pa55word|tok_0123456789abcdef|Zq8fK2mX9vLp4RtY7wNc3BdH/)
  })
})
