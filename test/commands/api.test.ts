/**
 * `paytx api`, in-process, against a service on 127.0.0.1 that records what it was sent. The
 * terminal case is in test/e2e/api.test.ts.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {parseJsonOutput, tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'
import {TX_ID} from '../helpers/fixtures.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {API_KEY, CVV, PAN, PROXY_KEY, expectNoSecrets} from '../helpers/secrets.js'

/** `paytx api` against a service on 127.0.0.1 that records what it was sent. */
describe('paytx api', () => {
  let server: RecordingServer
  beforeEach(async () => {
    server = await startRecordingServer((req) =>
      req.path === `/v1/transaction/${TX_ID}` ? {json: {id: TX_ID, status: 'PENDING', amount: '1499'}, headers: {'x-request-id': 'req-1'}} : undefined,
    )
  })
  afterEach(() => server.close())
  const env = () => ({PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY})
  const api = (args: string[], options: {input?: string; configDir?: string; env?: Record<string, string>} = {}) =>
    runCommand(['api', ...args], {env: {...env(), ...options.env}, input: options.input, configDir: options.configDir})

  it('GET: the path on the profile’s base URL with its key; the answer as one JSON line in a pipe', async () => {
    const result = await api([`/v1/transaction/${TX_ID}`])
    expect(result.exitCode).toBe(0)
    expect(result.stderr).toBe('')
    expect(result.stdout).toBe(`{"id":"${TX_ID}","status":"PENDING","amount":"1499"}\n`)
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0]).toMatchObject({method: 'GET', path: `/v1/transaction/${TX_ID}`, rawBody: ''})
    expect(server.requests[0].headers['x-apikey']).toBe(API_KEY)
    expect(server.requests[0].headers['tx-proxy-key']).toBeUndefined()

    // The base URL ends in /v1: a path without it lands on the same address, never /v1/v1.
    const relative = await api([`transaction/${TX_ID}`])
    expect(relative.exitCode).toBe(0)
    expect(server.requests[1].path).toBe(`/v1/transaction/${TX_ID}`)
    const fromRoot = await api([`/v1/transaction/${TX_ID}`], {env: {PAYTX_BASE_URL: server.url}})
    expect(fromRoot.exitCode).toBe(0)
    expect(server.requests[2].path).toBe(`/v1/transaction/${TX_ID}`)
  })

  it.each([
    ['a -f field', ['-f', `cvv=${CVV}`, '-f', 'amount=100'], undefined],
    ['a nested field of --input', ['--input', '-'], JSON.stringify({card: {security_code: CVV}, amount: 100})],
  ])('a CVV sent in %s and quoted back in the service’s error text is not shown', async (_, args, input) => {
    server.reply((req) => req.method === 'POST', {status: 400, json: {code: '400', message: `security code ${CVV} does not match`, details: {card: `value ${CVV} rejected`}}})
    const result = await api(['/v1/transaction/start', ...args], {input})
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toContain('security code *** does not match')
    expect(result.stderr).toContain('value *** rejected')
    expect(result.stdout + result.stderr).not.toMatch(new RegExp(`(?<!\\d)${CVV}(?!\\d)`))
  })

  it('POST with -f and -F: a JSON body of strings and typed values, @file read', async () => {
    server.reply((req) => req.method === 'POST', {status: 201, json: {id: 'refund-1', amount: 500}})
    const dir = tempConfigDir()
    const noteFile = join(dir, 'note.txt')
    writeFileSync(noteFile, 'asked by phone')
    const result = await api([`transaction/${TX_ID}/refund`, '-F', 'amount=500', '-f', 'reason=customer request', '-F', 'partial=true', '-f', 'count=2', '-F', `note=@${noteFile}`, '-F', 'meta[source]=cli'])
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toBe('{"id":"refund-1","amount":500}\n')
    const [req] = server.requests
    expect(req.method).toBe('POST')
    expect(req.path).toBe(`/v1/transaction/${TX_ID}/refund`)
    expect(req.headers['content-type']).toBe('application/json')
    expect(req.body).toEqual({amount: 500, reason: 'customer request', partial: true, count: '2', note: 'asked by phone', meta: {source: 'cli'}})
  })

  it('-X GET puts fields in the query; -X DELETE sends no body', async () => {
    expect((await api(['/v1/transaction', '-X', 'GET', '-f', 'status=PENDING', '-F', 'limit=5'])).exitCode).toBe(1)
    expect(server.requests[0]).toMatchObject({method: 'GET', path: '/v1/transaction?status=PENDING&limit=5', rawBody: ''})
    await api(['-X', 'delete', `/v1/transaction/${TX_ID}/settlement`])
    expect(server.requests[1]).toMatchObject({method: 'DELETE', path: `/v1/transaction/${TX_ID}/settlement`, rawBody: ''})
  })

  it('--input - sends stdin byte for byte as the JSON body (POST), with -H headers', async () => {
    server.reply((req) => req.method === 'POST', {json: {ok: true}})
    const body = '{"first_name": "Jane",\n  "amount": 12345678901234567890}'
    const result = await api(['/v1/customer', '--input', '-', '-H', 'Idempotency-Key: abc-123'], {input: body})
    expect(result.exitCode).toBe(0)
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0]).toMatchObject({method: 'POST', rawBody: body})
    expect(server.requests[0].headers['idempotency-key']).toBe('abc-123')
    expect(server.requests[0].headers['content-type']).toBe('application/json')
  })

  it('--input refuses what is not JSON, exit 2, nothing sent', async () => {
    const result = await api(['/v1/customer', '--input', '-'], {input: 'first_name=Jane'})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/^Error: --input: stdin is not valid JSON/)
    expect(result.stdout).toBe('')
    expect(server.requests).toHaveLength(0)
  })

  it('--include prints the status line and headers, a blank line, then the body', async () => {
    const result = await api([`/v1/transaction/${TX_ID}`, '--include'])
    expect(result.exitCode).toBe(0)
    const [head, body] = result.stdout.split('\n\n')
    const lines = head.split('\n')
    expect(lines[0]).toBe('HTTP/1.1 200 OK')
    expect(lines).toContain('x-request-id: req-1')
    expect(lines).toContain('content-type: application/json')
    expect(body).toBe(`{"id":"${TX_ID}","status":"PENDING","amount":"1499"}\n`)
  })

  it('--include shows a header value’s C1 controls as escapes; a body that is not JSON stays byte for byte', async () => {
    const raw = 'plain \u001b]0;title\u0007 text\n'
    server.reply(() => true, {status: 200, text: raw, headers: {'content-type': 'text/plain', 'x-trace': 'a\u009b2Jb\u0085c'}})
    const result = await api([`/v1/transaction/${TX_ID}`, '--include'])
    expect(result.exitCode).toBe(0)
    const [head, body] = result.stdout.split('\n\n')
    expect(head.split('\n')).toContain('x-trace: a\\x9b2Jb\\x85c')
    expect(body).toBe(raw)
  })

  it('an HTTP error: the body on stdout, the error on stderr, exit 1; with --json one document holding both', async () => {
    const result = await api(['/v1/transaction/nope'])
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toBe('{"message":"Not found"}\n')
    expect(result.stderr).toMatch(/^Error: The service answered 404 Not Found to GET \/v1\/transaction\/nope: Not found\n/)

    const json = await api(['/v1/transaction/nope', '--json'])
    expect(json.exitCode).toBe(1)
    expect(parseJsonOutput(json).error).toMatchObject({kind: 'service', exitCode: 1, status: 404, body: {message: 'Not found'}})
  })

  it('a POST that fails with 503 is not sent again; a GET is', async () => {
    server.reply(() => true, {status: 503, json: {message: 'busy'}}, {status: 503, json: {message: 'busy'}})
    const post = await api(['/v1/customer', '-f', 'first_name=Jane'])
    expect(post.exitCode).toBe(1)
    expect(server.requests).toHaveLength(1)
    expect(post.stderr).toMatch(/may still have been processed/)
    const get = await api([`/v1/transaction/${TX_ID}`])
    expect(get.exitCode).toBe(0)
    expect(server.requests.filter((req) => req.method === 'GET')).toHaveLength(2)
  })

  describe('on a production profile', () => {
    let configDir: string
    beforeEach(async () => {
      configDir = tempConfigDir()
      const add = await runCommand(['profile', 'add', 'prod', '--env', 'production', '--base-url', `${server.url}/v1`, '--api-key-stdin'], {configDir, input: `${API_KEY}\n`})
      expect(add.exitCode).toBe(0)
    })
    const prodApi = (args: string[]) => runCommand(['api', '--profile', 'prod', ...args], {configDir})

    it('a GET needs no confirmation', async () => {
      const result = await prodApi([`/v1/transaction/${TX_ID}`])
      expect(result.exitCode).toBe(0)
      expect(server.requests).toHaveLength(1)
    })

    it('any other method is refused without --yes off a terminal (exit 2, nothing sent), and sent with it', async () => {
      const refused = await prodApi([`/v1/transaction/${TX_ID}/refund`, '-F', 'amount=500'])
      expect(refused.exitCode).toBe(2)
      expect(refused.stderr).toMatch(new RegExp(`Refusing to send POST /v1/transaction/${TX_ID}/refund on production profile "prod" without confirmation`))
      expect(refused.stdout).toBe('')
      const deleted = await prodApi(['-X', 'DELETE', `/v1/transaction/${TX_ID}`])
      expect(deleted.exitCode).toBe(2)
      expect(server.requests).toHaveLength(0)

      server.reply((req) => req.method === 'POST', {json: {id: 'refund-1'}})
      const confirmed = await prodApi([`/v1/transaction/${TX_ID}/refund`, '-F', 'amount=500', '--yes'])
      expect(confirmed.exitCode).toBe(0)
      expect(server.requests).toHaveLength(1)
      expect(server.requests[0].body).toEqual({amount: 500})
    })
  })

  describe('keeps the request, and the key, on the profile’s host', () => {
    let elsewhere: RecordingServer
    beforeEach(async () => {
      elsewhere = await startRecordingServer(() => ({json: {}}))
    })
    afterEach(() => elsewhere.close())

    it.each([
      ['an absolute URL on another host', () => `${elsewhere.url}/v1/transaction/1`, /is on http:\/\/127\.0\.0\.1:\d+, not on the profile’s host/],
      ['a path starting with //', () => `//127.0.0.1:${elsewhere.port}/v1/x`, /starts with \/\/, which names another host/],
      ['a path that climbs with ..', () => '/v1/../../x', /contains a \. or \.\. segment/],
      ['an encoded ..', () => '/v1/%2e%2e/x', /contains a \. or \.\. segment/],
    ])('refuses %s: exit 2, nothing sent anywhere', async (_, path, message) => {
      const result = await api([path(), '-f', 'a=b'])
      expect(result.exitCode).toBe(2)
      expect(result.stderr).toMatch(message)
      expect(result.stdout).toBe('')
      expect(server.requests).toHaveLength(0)
      expect(elsewhere.requests).toHaveLength(0)
    })

    it('accepts an absolute URL on the profile’s own host', async () => {
      const result = await api([`${server.url}/v1/transaction/${TX_ID}`])
      expect(result.exitCode).toBe(0)
      expect(server.requests[0].path).toBe(`/v1/transaction/${TX_ID}`)
    })
  })

  it('--h2h: the card proxy’s address with TX-Proxy-Key, never the API key', async () => {
    server.reply((req) => req.path.startsWith('/h2h/'), {json: {id: 'card-1'}})
    const result = await api(['--h2h', '/tokenize/proxy/4010000000000001', '--input', '-'], {
      input: JSON.stringify({pan: PAN, expiry_month: '12'}),
      env: {PAYTX_H2H_URL: `${server.url}/h2h`, PAYTX_PROXY_KEY: PROXY_KEY},
    })
    expect(result.exitCode).toBe(0)
    expect(server.requests[0].path).toBe('/h2h/tokenize/proxy/4010000000000001')
    expect(server.requests[0].headers['tx-proxy-key']).toBe(PROXY_KEY)
    expect(server.requests[0].headers['x-apikey']).toBeUndefined()
  })

  it('--verbose logs the exchange redacted; keys, card numbers and CVVs are scrubbed from the answer too', async () => {
    // A service that echoes what it got, the key and the card included.
    server.reply((req) => req.method === 'POST', {json: {echo: {pan: PAN, cvv: CVV, note: `card ${PAN.replace(/(\d{4})/g, '$1 ').trim()}`}, key: API_KEY}})
    const result = await api(['/v1/customer', '--input', '-', '--verbose', '-H', `Authorization: Bearer ${API_KEY}`], {input: JSON.stringify({pan: PAN, card_cvv: CVV})})
    expect(result.exitCode).toBe(0)
    expect(server.requests[0].body).toEqual({pan: PAN, card_cvv: CVV})
    expectNoSecrets(result)
    const shown = JSON.parse(result.stdout)
    expect(shown.echo).toEqual({pan: '•••• 3153', cvv: '***', note: 'card •••• 3153'})
    expect(shown.key).toBe('sk_l…XcR7')
    expect(result.stderr).toMatch(/→ POST http:\/\/127\.0\.0\.1:\d+\/v1\/customer/)
    expect(result.stderr).toMatch(/x-apikey: sk_l…XcR7/i)
    expect(result.stderr).toMatch(/authorization: sk_l…XcR7/i)
    expect(result.stderr).toMatch(/← 200 OK in \d+ ms/)
  })
})
