/** The requests a smoke case makes to the merchant's service: bounded in time and in size. */
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {NetworkError} from '../../src/errors.js'
import {MERCHANT_ANSWER_MAX_BYTES, describeAnswer, merchantRequest} from '../../src/smoke/merchant-http.js'

let server: Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined))
  server = undefined
})

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler)
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('merchantRequest', () => {
  it('sends the JSON body and headers, and reads the JSON answer', async () => {
    const seen: {headers?: Record<string, unknown>; body?: string} = {}
    const url = await serve((request, response) => {
      let body = ''
      request.on('data', (chunk) => (body += chunk))
      request.on('end', () => {
        Object.assign(seen, {headers: request.headers, body})
        response.writeHead(201, {'content-type': 'application/json'}).end('{"payment":{"id":"tx-1"}}')
      })
    })
    const answer = await merchantRequest({method: 'POST', url: `${url}/checkout`, headers: {'x-shop': 'yes'}, body: {amount: 1}, timeoutMs: 5000})
    expect(answer).toMatchObject({status: 201, isJson: true, json: {payment: {id: 'tx-1'}}})
    expect(seen.body).toBe('{"amount":1}')
    expect(seen.headers).toMatchObject({'x-shop': 'yes', 'content-type': 'application/json'})
  })

  it('gives up after its timeout with an error naming the address (exit 1)', async () => {
    const url = await serve(() => undefined)
    const started = Date.now()
    const failed = merchantRequest({method: 'GET', url: `${url}/orders/1?token=secret-value`, timeoutMs: 300})
    await expect(failed).rejects.toBeInstanceOf(NetworkError)
    await expect(failed).rejects.toThrow(/^GET http:\/\/127\.0\.0\.1:\d+\/orders\/1\?token=\S+ failed: no answer within 300 ms\.$/)
    await failed.catch((error: Error) => expect(error.message).not.toContain('secret-value'))
    expect(Date.now() - started).toBeLessThan(5000)
  })

  it('reads no more than its cap of an answer', async () => {
    const url = await serve((_request, response) => {
      response.writeHead(200, {'content-type': 'application/json'})
      response.end(Buffer.alloc(MERCHANT_ANSWER_MAX_BYTES + 10, 'a'))
    })
    await expect(merchantRequest({method: 'GET', url, timeoutMs: 5000})).rejects.toThrow(`answered more than ${MERCHANT_ANSWER_MAX_BYTES} bytes`)
  })

  it('describes an answer in one short line', () => {
    expect(describeAnswer({status: 404, text: '{"error":\n "not found"}'})).toBe('HTTP 404 {"error": "not found"}')
    expect(describeAnswer({status: 204, text: ''})).toBe('HTTP 204 (empty body)')
    expect(describeAnswer({status: 200, text: 'x'.repeat(500)})).toHaveLength('HTTP 200 '.length + 161)
  })
})
