/** The emulator's extra answer fields (readings of `emulator verify --save`): added after the answer is built, only where given. */
import {afterAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {withAnswerExtras} from '../../src/emulator/api/index.js'
import type {Route} from '../../src/emulator/router.js'
import {sampleCustomer} from '../../src/flow/sample-customer.js'

const closers: RunningEmulator[] = []
afterAll(async () => {
  await Promise.allSettled(closers.map((emulator) => emulator.close()))
})

describe('extra answer fields', () => {
  it('without any, the route table is the very same one: nothing is added to any answer\'s path', () => {
    const routes: Route[] = [{method: 'GET', pattern: ['v1', 'transaction', ':'], handler: () => {}}]
    expect(withAnswerExtras(routes, undefined)).toBe(routes)
    expect(withAnswerExtras(routes, [])).toBe(routes)
    // A route no extra names keeps its own handler.
    expect(withAnswerExtras(routes, [{request: 'customer', status: 200, path: 'x', value: 1}])[0]!.handler).toBe(routes[0]!.handler)
  })

  it('added to the answers of the request and status named (products too), never replacing the emulator\'s own field; content-length follows', async () => {
    const emulator = await startEmulator({
      port: 0,
      store: ':memory:',
      answerExtras: [
        {request: 'transaction', status: 404, path: 'trace_id', value: 'abc'},
        {request: 'transaction', status: 401, path: 'code', value: 'not mine'},
        {request: 'customer', status: 200, path: 'meta.tags[]', value: ''},
        {request: 'customer', status: 200, path: 'status', value: 'replaced?'},
        {request: 'transaction-start', status: 200, path: 'fee', value: 0, products: ['sofort']},
      ],
    })
    closers.push(emulator)
    const headers = {[emulator.apiKeyHeader]: emulator.apiKey, 'content-type': 'application/json'}
    const unknown = await fetch(`${emulator.url}/v1/transaction/00000000-0000-4000-8000-000000000000`, {headers})
    const text = await unknown.text()
    expect(unknown.headers.get('content-length')).toBe(String(Buffer.byteLength(text)))
    expect(JSON.parse(text)).toMatchObject({code: '404', trace_id: 'abc'})
    const refused = (await (await fetch(`${emulator.url}/v1/transaction/00000000-0000-4000-8000-000000000000`, {headers: {[emulator.apiKeyHeader]: 'wrong'}})).json()) as Record<string, unknown>
    expect(refused).toMatchObject({code: '401'})
    expect(refused).not.toHaveProperty('trace_id')
    const customer = (await (await fetch(`${emulator.url}/v1/customer`, {method: 'POST', headers, body: JSON.stringify(sampleCustomer(emulator.organisation))})).json()) as Record<string, unknown>
    expect(customer.meta).toEqual({tags: ['']})
    expect(customer.status).toBe('unverified')
    const start = {amount: 100, customer: customer.id, customer_ip: '127.0.0.1', dynamic_descriptor: 'x', merchant_reference: 'r', payment_product: 'dummy', user_agent: 'ua', details: {redirect_url: 'https://example.com/'}}
    const dummy = (await (await fetch(`${emulator.url}/v1/transaction/start`, {method: 'POST', headers, body: JSON.stringify(start)})).json()) as Record<string, unknown>
    expect(dummy.status).toBe('INITIATED')
    expect(dummy).not.toHaveProperty('fee')
  })
})
