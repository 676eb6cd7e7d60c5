import {request} from 'node:http'
import {type Server, createServer} from 'node:net'
import {mkdtempSync, readFileSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {type RunningCli, runCli, startCli} from '../helpers/cli.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {WebhookSenders, brokenPromises, readSaveFile} from '../helpers/webhook-senders.js'

const API_KEY = 'sk_test_webhook_listen_4f9a8b7c6d5e'
const TX = '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'
const OTHER_AUTH = 'Bearer someone-elses-secret-credential-77'

interface Listening {
  cli: RunningCli
  url: string
}

const running: RunningCli[] = []
const servers: RecordingServer[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((cli) => cli.stop('SIGKILL')))
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

function tempFile(name: string): string {
  return join(mkdtempSync(join(tmpdir(), 'paytx-webhooks-')), name)
}

async function listen(args: string[], env: Record<string, string> = {}): Promise<Listening> {
  const cli = startCli(['webhook', 'listen', '--port', '0', ...args], {env})
  running.push(cli)
  if (args.includes('--json')) {
    await cli.waitFor('stdout', /\n/)
    const ready = JSON.parse(cli.stdout().split('\n')[0])
    expect(ready.event).toBe('ready')
    return {cli, url: ready.url}
  }
  await cli.waitFor('stderr', /Ready\. Press Ctrl-C to stop\./)
  return {cli, url: /Listening for webhooks at (\S+)/.exec(cli.stderr())![1]}
}

/** NDJSON lines printed so far. */
function events(cli: RunningCli): any[] {
  return cli
    .stdout()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
}

function webhookEvents(cli: RunningCli): any[] {
  return events(cli).filter((event) => event.event === 'webhook' || event.event === 'malformed')
}

/** A plain HTTP client that sends exactly the given headers and bytes, one connection per request. */
function send(url: string, body: string | Buffer, options: {method?: string; headers?: Record<string, string>} = {}): Promise<{status: number; text: string}> {
  return new Promise((resolve, reject) => {
    const req = request(url, {method: options.method ?? 'POST', agent: false, headers: {'content-type': 'application/json', ...options.headers}}, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({status: res.statusCode!, text}))
    })
    req.on('error', reject)
    req.end(body)
  })
}

function webhook(status: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({type: 'transaction', id: TX, status, ...extra})
}

describe('webhook listen', () => {
  it('prints one line per webhook (time, type, id from id or _id, status), marks duplicates, and exits 130 on Ctrl-C with the counts', async () => {
    const {cli, url} = await listen([])
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks\?key=[\w-]{16,}$/)
    expect(cli.stderr()).toMatch(/tunnel/)
    expect((await send(url, webhook('INITIATED'))).status).toBe(200)
    expect((await send(url, JSON.stringify({type: 'refund', _id: '5f2b9c0e1d4a3b6c7d8e9f01', status: 'SETTLEMENT_REQUESTED'}))).status).toBe(200)
    expect((await send(url, webhook('INITIATED'))).status).toBe(200)
    expect((await send(url, webhook('SETTLEMENT_COMPLETED'))).status).toBe(200)
    await cli.waitFor('stdout', (text) => text.split('\n').filter(Boolean).length === 4)

    const result = await cli.stop('SIGINT')
    expect(result.code).toBe(130)
    const lines = result.stdout.trim().split('\n')
    expect(lines).toHaveLength(4)
    expect(lines[0]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z  transaction  ${TX}  INITIATED$`))
    expect(lines[1]).toMatch(/  refund  5f2b9c0e1d4a3b6c7d8e9f01  SETTLEMENT_REQUESTED$/)
    expect(lines[2]).toMatch(new RegExp(`  ${TX}  INITIATED  duplicate$`))
    expect(lines[3]).toMatch(new RegExp(`  ${TX}  SETTLEMENT_COMPLETED$`))
    expect(result.stderr).toContain('Stopped. 4 webhooks received (1 duplicate), 0 malformed, 0 rejected.')
  })

  it('answers 404 to a wrong or missing token and counts it, and accepts the token in the path too', async () => {
    const {cli, url} = await listen(['--token', 'my-own-token-123', '--json'])
    const base = url.replace(/\/webhooks\?key=.*$/, '')
    expect(url).toBe(`${base}/webhooks?key=my-own-token-123`)
    expect((await send(`${base}/webhooks?key=wrong-token-000`, webhook('INITIATED'))).status).toBe(404)
    expect((await send(`${base}/webhooks`, webhook('INITIATED'))).status).toBe(404)
    expect((await send(`${base}/other?key=my-own-token-123`, webhook('INITIATED'))).status).toBe(404)
    expect((await send(`${base}/webhooks/my-own-token-123`, webhook('PENDING'))).status).toBe(200)
    await cli.waitFor('stdout', /"event":"webhook"/)

    const result = await cli.stop('SIGTERM')
    expect(result.code).toBe(130)
    expect(webhookEvents(cli)).toHaveLength(1)
    expect(events(cli).at(-1)).toEqual({event: 'stopped', received: 1, duplicates: 0, malformed: 0, rejected: 3, rejected_by_status: {404: 3}})
    expect(result.stderr.match(/Rejected POST \S+ with 404/g)).toHaveLength(3)
    expect(result.stderr).not.toContain('my-own-token-123')
  })

  it('with --json --save: a ready event first, NDJSON per webhook, every body and header in the file; malformed 400 recorded raw, oversized 413, GET 405', async () => {
    const file = tempFile('webhooks.ndjson')
    const {cli, url} = await listen(['--json', '--save', file, '--max-body', '1kb'])
    expect(events(cli)[0]).toMatchObject({event: 'ready', url, host: '127.0.0.1', token_required: true, save: file, fetch: false})

    const first = await send(url, webhook('SETTLEMENT_REQUESTED', {amount: '1499', card_number: '4024007108173153'}), {
      headers: {authorization: OTHER_AUTH, 'x-request-id': 'req-1'},
    })
    expect(first).toEqual({status: 200, text: '{"received":true}'})
    const malformed = await send(url, '{"type": "transaction", "id": ')
    expect(malformed.status).toBe(400)
    expect((await send(url, JSON.stringify({type: 'transaction', id: TX, padding: 'x'.repeat(2000)}))).status).toBe(413)
    expect((await send(url, '', {method: 'GET'})).status).toBe(405)
    expect((await send(url, webhook('SETTLEMENT_REQUESTED'))).status).toBe(200)
    await cli.waitFor('stdout', () => webhookEvents(cli).length === 3)

    const result = await cli.stop('SIGINT')
    expect(result.code).toBe(130)
    const printed = events(cli)
    expect(printed[0].event).toBe('ready')
    expect(printed.at(-1)).toEqual({event: 'stopped', received: 2, duplicates: 1, malformed: 1, rejected: 2, rejected_by_status: {405: 1, 413: 1}})
    const [one, bad, two] = printed.slice(1, -1)
    expect(one).toMatchObject({event: 'webhook', seq: 1, type: 'transaction', transaction_id: TX, status: 'SETTLEMENT_REQUESTED', duplicate: false})
    expect(one.body.card_number).toBe('•••• 3153')
    expect(bad).toMatchObject({event: 'malformed', seq: 2, raw: '{"type": "transaction", "id": ', bytes: 30})
    expect(two).toMatchObject({event: 'webhook', seq: 3, duplicate: true})

    expect(statSync(file).mode & 0o777).toBe(0o600)
    const saved = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
    expect(saved).toHaveLength(3)
    expect(saved[0]).toMatchObject({seq: 1, method: 'POST', path: '/webhooks', answered: 200, body: {id: TX, status: 'SETTLEMENT_REQUESTED', amount: '1499'}})
    expect(saved[0].headers['x-request-id']).toBe('req-1')
    expect(saved[0].headers.authorization).not.toContain('someone-elses-secret')
    expect(saved[1]).toMatchObject({seq: 2, answered: 400, raw: '{"type": "transaction", "id": '})
    expect(saved[2]).toMatchObject({seq: 3, answered: 200})
    const fileText = readFileSync(file, 'utf8')
    expect(fileText).not.toContain('4024007108173153')
    expect(fileText).not.toContain(new URL(url).searchParams.get('key'))
    expect(result.stdout + result.stderr).not.toContain('someone-elses-secret')
    expect(result.stdout + result.stderr).not.toContain('fwd-pa55word')
  })

  it('refuses a chunked body once it passes --max-body, and keeps serving', async () => {
    const {cli, url} = await listen(['--json', '--max-body', '100'])
    const big = await new Promise<number>((resolve, reject) => {
      const req = request(url, {method: 'POST', agent: false, headers: {'content-type': 'application/json', 'transfer-encoding': 'chunked'}}, (res) => {
        res.resume()
        resolve(res.statusCode!)
      })
      req.on('error', reject)
      req.write('{"type":"transaction","padding":"')
      req.write('y'.repeat(200))
      req.end('"}')
    })
    expect(big).toBe(413)
    expect((await send(url, webhook('PENDING'))).status).toBe(200)
    await cli.waitFor('stdout', /"event":"webhook"/)
    const result = await cli.stop()
    expect(result.code).toBe(130)
    expect(events(cli).at(-1)).toMatchObject({received: 1, rejected: 1, rejected_by_status: {413: 1}})
  })

  it('--fetch answers the sender at once, then shows the status the service reports beside the webhook’s own', async () => {
    // The service holds its answer until the test lets it go: a listener that waited for it
    // before answering the sender would never answer (a timed bound depended on the machine's load).
    let letServiceAnswer!: () => void
    const serviceMayAnswer = new Promise<void>((resolve) => (letServiceAnswer = resolve))
    const service = await startRecordingServer((req) => {
      if (req.path === `/v1/transaction/${TX}`) return {json: {id: TX, status: 'SETTLEMENT_COMPLETED', amount: '1499'}, heldUntil: serviceMayAnswer}
      return {status: 404, json: {message: 'no such transaction'}}
    })
    servers.push(service)
    const env = {PAYTX_BASE_URL: `${service.url}/v1`, PAYTX_API_KEY: API_KEY}
    const {cli, url} = await listen(['--fetch'], env)
    expect(cli.stderr()).toContain('reading each transaction from the service (profile "local")')

    // The sender has its 200 while the service has not answered, and nothing is printed yet;
    // the webhooks after it wait for its line.
    expect((await send(url, webhook('SETTLEMENT_REQUESTED'))).status).toBe(200)
    expect(cli.stdout()).toBe('')
    expect((await send(url, JSON.stringify({type: 'transaction', _id: 'unknown-tx', status: 'PENDING'}))).status).toBe(200)
    expect((await send(url, JSON.stringify({type: 'transaction', status: 'PENDING'}))).status).toBe(200)
    expect(cli.stdout()).toBe('')
    letServiceAnswer()
    await cli.waitFor('stdout', (text) => text.trim().split('\n').length === 3)

    const result = await cli.stop()
    expect(result.code).toBe(130)
    const lines = result.stdout.trim().split('\n')
    expect(lines[0]).toMatch(new RegExp(`  ${TX}  SETTLEMENT_REQUESTED \\(the service has moved on: now SETTLEMENT_COMPLETED\\)$`))
    expect(lines[1]).toMatch(/  unknown-tx  PENDING  service: not read \(The service answered 404.*no such transaction\)$/)
    expect(lines[2]).toMatch(/  \(no id\)  PENDING  service: not read \(the webhook carries no transaction id\)$/)
    const gets = service.requests.filter((req) => req.method === 'GET')
    expect(gets.map((req) => req.path)).toEqual([`/v1/transaction/${TX}`, '/v1/transaction/unknown-tx'])
    expect(gets[0].headers['x-apikey']).toBe(API_KEY)
    expect(result.stdout + result.stderr).not.toContain(API_KEY)
  })

  it('--fetch --json reports service_status, status_differs, moved_on and fetch errors', async () => {
    const service = await startRecordingServer(() => ({json: {id: TX, status: 'SETTLEMENT_REQUESTED'}}))
    servers.push(service)
    const {cli, url} = await listen(['--fetch', '--json'], {PAYTX_BASE_URL: service.url, PAYTX_API_KEY: API_KEY})
    await send(url, webhook('SETTLEMENT_REQUESTED'))
    await send(url, JSON.stringify({type: 'transaction', id: TX}))
    await cli.waitFor('stdout', () => webhookEvents(cli).length === 2)
    await cli.stop()
    const [same, withoutStatus] = webhookEvents(cli)
    expect(same).toMatchObject({status: 'SETTLEMENT_REQUESTED', service_status: 'SETTLEMENT_REQUESTED', status_differs: false, moved_on: false, duplicate: false})
    // Without a status in the body it cannot be told from the next move's webhook: the status
    // read back from the service is shown, and never makes it a duplicate.
    expect(withoutStatus).toMatchObject({status: null, service_status: 'SETTLEMENT_REQUESTED', status_differs: false, moved_on: false, duplicate: false})
  })

  it('--forward-to passes the raw body and end-to-end headers to the endpoint and prints its status', async () => {
    const endpoint = await startRecordingServer(() => ({status: 202, text: 'accepted'}))
    servers.push(endpoint)
    const {cli, url} = await listen(['--forward-to', `${endpoint.url.replace('//', '//shop:fwd-pa55word@')}/hooks/payments?shop=1`])
    // The address is shown with its password and query values redacted.
    expect(cli.stderr()).toContain(`forwarding each to ${endpoint.url.replace('//', '//shop:…@')}/hooks/payments?shop=…`)
    const raw = '{ "type" : "transaction",\n  "id": "9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c", "status":"SETTLEMENT_COMPLETED" }'
    const answer = await send(url, raw, {
      headers: {'x-shop-signature': 'abc123', authorization: OTHER_AUTH, connection: 'keep-alive, x-hop-only', 'x-hop-only': 'drop me', 'user-agent': 'payment-service/1.0'},
    })
    expect(answer.status).toBe(200)
    await cli.waitFor('stdout', /forwarded: 202/)

    const result = await cli.stop()
    expect(result.code).toBe(130)
    expect(result.stdout.trim()).toMatch(new RegExp(`  ${TX}  SETTLEMENT_COMPLETED  forwarded: 202 \\(\\d+ ms\\)$`))
    expect(endpoint.requests).toHaveLength(1)
    const forwarded = endpoint.requests[0]
    expect(forwarded.method).toBe('POST')
    expect(forwarded.path).toBe('/hooks/payments?shop=1')
    expect(forwarded.rawBody).toBe(raw)
    expect(forwarded.headers['content-type']).toBe('application/json')
    expect(forwarded.headers['x-shop-signature']).toBe('abc123')
    expect(forwarded.headers['user-agent']).toBe('payment-service/1.0')
    expect(forwarded.headers.authorization).toBe(OTHER_AUTH)
    expect(forwarded.headers['x-hop-only']).toBeUndefined()
    expect(forwarded.headers.host).toBe(new URL(endpoint.url).host)
    expect(result.stdout + result.stderr).not.toContain('someone-elses-secret')
  })

  it('--token dev-token (as the README once showed) warns naming --token, and a page of another site cannot post through it to the app', async () => {
    const app = await startRecordingServer(() => ({status: 200, json: {}}))
    servers.push(app)
    const {cli, url} = await listen(['--token', 'dev-token', '--forward-to', `${app.url}/webhooks`])
    expect(cli.stderr()).toContain('Warning: --token is 9 characters long: a token shorter than 16 can be guessed.')
    // What a page elsewhere can send without asking: a text/plain POST, its Origin set by the browser.
    const fromPage = await send(url, webhook('SETTLEMENT_COMPLETED'), {headers: {'content-type': 'text/plain', origin: 'https://attacker.example', 'sec-fetch-site': 'cross-site'}})
    expect(fromPage.status).toBe(403)
    await cli.waitFor('stderr', /Rejected POST \/webhooks with 403: a web page of another site sent it/)
    expect((await send(url, webhook('PENDING'))).status).toBe(200)
    await cli.waitFor('stdout', /forwarded: 200/)
    const result = await cli.stop()
    expect(app.requests.map((forwarded) => forwarded.body.status)).toEqual(['PENDING'])
    expect(result.stderr).toContain('1 rejected (403: 1)')
  })

  it('--forward-to reports an endpoint that is down and keeps listening', async () => {
    const closed = await startRecordingServer()
    const deadUrl = `${closed.url}/hooks`
    await closed.close()
    const {cli, url} = await listen(['--forward-to', deadUrl, '--json'])
    expect((await send(url, webhook('DECLINED'))).status).toBe(200)
    await cli.waitFor('stdout', /"event":"webhook"/)
    expect((await send(url, webhook('FAILED'))).status).toBe(200)
    await cli.waitFor('stdout', () => webhookEvents(cli).length === 2)
    const result = await cli.stop()
    expect(result.code).toBe(130)
    const [first] = webhookEvents(cli)
    expect(first.forward).toMatchObject({url: deadUrl, error: 'connection refused (is the endpoint running?)'})
    expect(first.forward.status).toBeUndefined()
  })

  it.each([
    ['Ctrl-C', 'SIGINT', 130],
    ['a kill -9', 'SIGKILL', null],
  ] as const)('on %s under load, every webhook answered 200 is in the saved file', async (_name, signal, code) => {
    const file = tempFile('burst.ndjson')
    const {cli, url} = await listen(['--json', '--save', file])
    const senders = new WebhookSenders([new URL(url)], 'burst', {fresh: 8, keptAlive: 0, pipelines: 0, depth: 0, maxWebhooks: 2000})
    await cli.waitFor('stdout', () => webhookEvents(cli).length >= 100)
    const result = await cli.stop(signal)
    senders.stop()
    await senders.finished()
    expect(result.code).toBe(code)
    expect(senders.acknowledged.size).toBeGreaterThanOrEqual(100)
    // Each line read on its own: every acknowledged webhook, none of them on a line a kill cut short.
    const saved = readSaveFile(file)
    expect(saved.badLines).toEqual([])
    expect(brokenPromises(senders.acknowledged, saved)).toEqual({missing: []})
    if (signal === 'SIGKILL') {
      // The kill came while webhooks were being sent.
      expect(senders.sent).toBeLessThan(2000)
    } else {
      expect(saved.cutShort).toBeUndefined()
      const printedIds = new Set(webhookEvents(cli).map((event) => event.transaction_id))
      expect([...saved.ids].filter((id) => !printedIds.has(id))).toEqual([])
      expect(events(cli).at(-1).event).toBe('stopped')
    }
  })

  it('rejects bad flags with exit 2 before listening', async () => {
    const size = await runCli(['webhook', 'listen', '--port', '0', '--max-body', 'lots'])
    expect(size.code).toBe(2)
    expect(size.stderr).toContain('--max-body must be a size in bytes')
    const target = await runCli(['webhook', 'listen', '--port', '0', '--forward-to', 'localhost:3000', '--json'])
    expect(target.code).toBe(2)
    expect(JSON.parse(target.stdout).error).toMatchObject({kind: 'input', flag: '--forward-to'})
    const both = await runCli(['webhook', 'listen', '--port', '0', '--token', 'abc', '--no-token'])
    expect(both.code).toBe(2)
    expect(both.stdout).toBe('')
  })

  it('says which port is taken (exit 2) and refuses to forward to itself', async () => {
    const blocker: Server = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    const port = (blocker.address() as {port: number}).port
    try {
      const taken = await runCli(['webhook', 'listen', '--port', String(port)])
      expect(taken.code).toBe(2)
      expect(taken.stderr).toContain(`Port ${port} on 127.0.0.1 is in use; pick another with --port or stop the other program.`)
      expect(taken.stderr).toContain('--port 0')
    } finally {
      blocker.close()
    }
    const loop = await runCli(['webhook', 'listen', '--port', String(port), '--forward-to', `http://127.0.0.1:${port}/webhooks`])
    expect(loop.code).toBe(2)
    expect(loop.stderr).toContain('points at this listener itself')
  })
})
