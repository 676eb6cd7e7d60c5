/**
 * Answers a broken or hostile service can give, in-process: too deep, too large, the wrong shape,
 * cut off, HTML pages, redirects, nested details. Each ends in exit 1 with a message that says what
 * happened, never a stack trace or a success.
 */
import {type IncomingMessage, type Server, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {parseJsonOutput} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'
import {CUSTOMER_FLAGS, TX_ID} from '../helpers/fixtures.js'
import {API_KEY} from '../helpers/secrets.js'

type Handler = (req: IncomingMessage, res: ServerResponse) => void

/** A server on 127.0.0.1 whose every answer is written by the test, byte by byte if need be. */
async function startRawServer(): Promise<{url: string; answer(handler: Handler): void; close(): Promise<void>}> {
  let handler: Handler = (_req, res) => res.end()
  const server: Server = createServer((req, res) => {
    req.resume()
    req.on('end', () => handler(req, res))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answer: (next) => (handler = next),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function json(status: number, body: unknown | string, headers: Record<string, string> = {}): Handler {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  return (_req, res) => {
    res.writeHead(status, {'content-type': 'application/json', ...headers})
    res.end(text)
  }
}

const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`
const TRANSACTION = {id: TX_ID, status: 'INITIATED', amount: '1499', payment_product: 'dummy', details: {}, created_at: '2026-01-01T00:00:00.000Z', last_status_update: '2026-01-01T00:00:00.000Z'}

describe('answers of a broken or hostile service', () => {
  let server: Awaited<ReturnType<typeof startRawServer>>
  beforeEach(async () => {
    server = await startRawServer()
  })
  afterEach(() => server.close())
  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCommand(args, {env: {PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY, ...env}})

  describe('item 2: deep bodies', () => {
    it('a 200 nested 5,000 deep is not understood: exit 1, a plain message, no stack overflow (text and --json)', async () => {
      server.answer(json(200, `{"id":"${TX_ID}","status":"INITIATED","extra":${deep(5000)}}`))
      const text = await cli(['status', TX_ID])
      expect(text.exitCode).toBe(1)
      expect(text.stdout).toBe('')
      expect(text.stderr).toMatch(/answered 200 OK to GET \/v1\/transaction\/\S+ with a body paytx does not understand: it is nested deeper than 100 levels/)
      expect(text.stderr).not.toMatch(/RangeError|call stack|bug in paytx/)
      const asJson = await cli(['status', TX_ID, '--json'])
      expect(asJson.exitCode).toBe(1)
      expect(parseJsonOutput(asJson).error).toMatchObject({kind: 'response', exitCode: 1})
    })

    it('an error answer nested 5,000 deep is reported by its status', async () => {
      server.answer(json(400, `{"message":"bad","details":${deep(5000)}}`))
      const result = await cli(['status', TX_ID, '--json'])
      expect(result.exitCode).toBe(1)
      expect(parseJsonOutput(result).error).toMatchObject({kind: 'service', status: 400})
      expect(result.stderr).toBe('')
    })
  })

  describe('item 3: size cap', () => {
    const big = JSON.stringify({...TRANSACTION, note: 'x'.repeat(11 * 1024 * 1024)})

    it('an 11 MB answer is cut off at 10 MB: exit 1 and a message naming the limit and how to raise it', async () => {
      server.answer(json(200, big))
      const result = await cli(['status', TX_ID, '--json'])
      expect(result.exitCode).toBe(1)
      const {error} = parseJsonOutput(result)
      expect(error.kind).toBe('response')
      expect(error.message).toMatch(/larger than 10 MB: paytx stopped reading it there/)
      expect(error.hint).toMatch(/PAYTX_MAX_RESPONSE_BYTES/)
      const text = await cli(['status', TX_ID])
      expect(text.exitCode).toBe(1)
      expect(text.stdout).toBe('')
      expect(text.stderr).toMatch(/larger than 10 MB/)
    })

    it('PAYTX_MAX_RESPONSE_BYTES raises the limit; --json then prints the large answer whole', async () => {
      server.answer(json(200, big))
      const result = await cli(['status', TX_ID, '--json'], {PAYTX_MAX_RESPONSE_BYTES: String(20 * 1024 * 1024)})
      expect(result.stderr).toBe('')
      expect(result.exitCode).toBe(0)
      expect(parseJsonOutput(result).note).toHaveLength(11 * 1024 * 1024)
    })

    it('a PAYTX_MAX_RESPONSE_BYTES that is not a number of bytes is an input error', async () => {
      const result = await cli(['status', TX_ID], {PAYTX_MAX_RESPONSE_BYTES: '10MB'})
      expect(result.exitCode).toBe(2)
      expect(result.stderr).toMatch(/PAYTX_MAX_RESPONSE_BYTES must be a whole number of bytes/)
    })
  })

  describe('item 4: 2xx of the wrong shape', () => {
    it.each([
      [['customer', 'create', ...CUSTOMER_FLAGS], 'POST /v1/customer', /: id is missing/],
      [['transaction', 'start', '--product', 'dummy', '--amount', '1499', '--customer', TX_ID, '--redirect-url', 'https://shop.example/done'], 'POST /v1/transaction/start', /: id is missing .*and 1 more: status/],
      [['status', TX_ID], 'GET /v1/transaction/', /: id is missing .*and 1 more: status/],
      [['checkoutsuccess', TX_ID], 'GET /v1/transaction/', /: status is missing .*and 1 more: success/],
    ])('%j answered 200 {"foo":1}: exit 1, "does not understand", the field', async (args, request, field) => {
      server.answer(json(200, {foo: 1}))
      const result = await cli(args as string[])
      expect(result.exitCode).toBe(1)
      expect(result.stdout).toBe('')
      expect(result.stderr).toContain('The service answered 200 with a body paytx does not understand')
      expect(result.stderr).toContain(request)
      expect(result.stderr).toMatch(field)
      expect(result.stderr).not.toMatch(/no id|undefined/)
    })

    it('checkoutsuccess --json of {"foo":1}: exit 1 with the error document, not exit 4', async () => {
      server.answer(json(200, {foo: 1}))
      const result = await cli(['checkoutsuccess', TX_ID, '--json'])
      expect(result.exitCode).toBe(1)
      expect(parseJsonOutput(result).error.message).toMatch(/does not understand .*status is missing/)
    })

    it('a status outside the ten holding a line break: the warning stays one line', async () => {
      server.answer(json(200, {status: 'WEIRD\nError: forged\u202e', success: false, status_reason: ''}))
      const result = await cli(['checkoutsuccess', TX_ID])
      expect(result.stderr).toContain('Warning: the service reported the status "WEIRD\\nError: forged\\u202e", which is none')
      expect(result.stderr).not.toMatch(/^Error: forged/m)
    })

    it('a status outside the ten is shown as unknown with a warning; the success field decides, nothing says both', async () => {
      server.answer(json(200, {status: 'WEIRD_STATE', success: true, status_reason: ''}))
      const result = await cli(['checkoutsuccess', TX_ID])
      expect(result.exitCode).toBe(0)
      expect(result.stdout).toMatch(/WEIRD_STATE \(a status paytx does not know\)/)
      expect(result.stdout).toMatch(/Success\s+yes/)
      expect(result.stdout).not.toMatch(/not a success/)
      expect(result.stderr).toMatch(/Warning: the service reported the status "WEIRD_STATE", which is none of the ten paytx knows/)
    })

    it('transaction start answered with a status outside the ten warns on stderr', async () => {
      server.answer(json(200, {...TRANSACTION, status: 'WEIRD_STATE'}))
      const result = await cli(['transaction', 'start', '--product', 'dummy', '--amount', '1499', '--customer', TX_ID, '--redirect-url', 'https://shop.example/done'])
      expect(result.exitCode).toBe(0)
      expect(result.stdout).toMatch(/WEIRD_STATE \(a status paytx does not know\)/)
      expect(result.stderr).toMatch(/Warning: the service reported the status "WEIRD_STATE", which is none of the ten paytx knows/)
    })

    it('extra fields are kept in --json', async () => {
      server.answer(json(200, {...TRANSACTION, brand_new_field: {a: 1}}))
      const result = await cli(['status', TX_ID, '--json'])
      expect(result.exitCode).toBe(0)
      expect(parseJsonOutput(result).brand_new_field).toEqual({a: 1})
    })
  })

  describe('item 9: messages that help', () => {
    const page = '<!doctype html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>upstream connect error or disconnect/reset before headers. reset reason: overflow</p></body></html>'

    it('a 502 HTML page: the status and one line; the page itself only with --verbose', async () => {
      server.answer((_req, res) => {
        res.writeHead(502, {'content-type': 'text/html'})
        res.end(page)
      })
      const result = await cli(['customer', 'create', ...CUSTOMER_FLAGS])
      expect(result.exitCode).toBe(1)
      expect(result.stderr).toMatch(/^Error: The service answered 502 Bad Gateway to POST \/v1\/customer: 502 Bad Gateway \(an HTML page; --verbose shows it\)$/m)
      expect(result.stderr).not.toMatch(/<html|upstream connect error/)
      const verbose = await cli(['customer', 'create', ...CUSTOMER_FLAGS, '--verbose'])
      expect(verbose.exitCode).toBe(1)
      expect(verbose.stderr).toContain('upstream connect error or disconnect/reset before headers')
    })

    it('a 3xx: where it pointed, and that the base URL is probably wrong', async () => {
      server.answer((_req, res) => {
        res.writeHead(301, {location: 'https://api.example.com/v1/transaction/x'})
        res.end()
      })
      const result = await cli(['status', TX_ID])
      expect(result.exitCode).toBe(1)
      expect(result.stderr).toMatch(/answered 301 Moved Permanently to GET \/v1\/transaction\/\S+, pointing at https:\/\/api\.example\.com\/v1\/transaction\/x/)
      expect(result.stderr).toMatch(/Hint: paytx does not follow redirects.*base URL is probably wrong/)
    })

    it('a 3xx pointing at an address with credentials, and a body that is not JSON or the --verbose log from an address with them: all redacted', async () => {
      server.answer((_req, res) => {
        res.writeHead(302, {location: 'https://u:l0cati0n-pa55@api.example.com/v1?key=l0cati0n-k3y'})
        res.end()
      })
      const redirected = await cli(['status', TX_ID])
      expect(redirected.stderr).toContain('pointing at https://u:…@api.example.com/v1?key=…')
      server.answer((_req, res) => {
        res.writeHead(200, {'content-type': 'text/plain'})
        res.end('not json')
      })
      const notJson = await cli(['status', TX_ID], {PAYTX_BASE_URL: `${server.url.replace('http://', 'http://u:bas3-pa55@')}/v1`})
      expect(notJson.stderr).toMatch(/to GET http:\/\/u:…@127\.0\.0\.1:\d+\/v1\/transaction\/\S+, but the body is not JSON: not json/)
      const verbose = await cli(['status', TX_ID, '--verbose'], {PAYTX_BASE_URL: `${server.url.replace('http://', 'http://u:bas3-pa55@')}/v1`})
      expect(verbose.stderr).toMatch(/^→ GET http:\/\/u:…@127\.0\.0\.1:\d+\/v1\/transaction\//m)
      for (const result of [redirected, notJson, verbose]) expect(result.stderr).not.toMatch(/l0cati0n|bas3-pa55/)
    })

    it('nested details are printed as path: message lines, never [object Object]', async () => {
      server.answer(
        json(400, {
          code: '400',
          message: 'The request is not valid.',
          details: {body: {amount: {message: 'must be greater than 0'}, details: {redirect_url: ['is required', 'must be a URL']}}, errors: [{field: 'customer', message: 'unknown customer'}]},
        }),
      )
      const result = await cli(['customer', 'create', ...CUSTOMER_FLAGS])
      expect(result.exitCode).toBe(1)
      expect(result.stderr).not.toContain('[object Object]')
      expect(result.stderr).toMatch(/^ {2}amount: must be greater than 0$/m)
      expect(result.stderr).toMatch(/^ {2}details\.redirect_url: is required; must be a URL$/m)
      expect(result.stderr).toMatch(/^ {2}customer: unknown customer$/m)
    })

    it('an answer cut off half-way is reported as cut off, with the status and bytes received', async () => {
      server.answer((req, res) => {
        res.writeHead(200, {'content-type': 'application/json', 'content-length': '1000'})
        res.write('{"id":"9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c","status":')
        setTimeout(() => req.socket.destroy(), 50)
      })
      const result = await cli(['status', TX_ID])
      expect(result.exitCode).toBe(1)
      expect(result.stderr).toMatch(/The answer from http:\/\/127\.0\.0\.1:\d+ was cut off: 200 OK arrived, then the connection closed after 54 bytes of the body after 3 tries/)
      expect(result.stderr).not.toMatch(/No answer/)
    })
  })
})
