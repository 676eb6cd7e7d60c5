/**
 * The one normaliser every layer of the emulator routes and guards by: a path means the same
 * thing however it is spelled, and what cannot be read as a path is a 400 naming it.
 */
import type {IncomingMessage, ServerResponse} from 'node:http'
import {describe, expect, it} from 'vitest'

import {guardAdminHost} from '../../src/emulator/admin/index.js'
import {FaultRules, withRequestFaults} from '../../src/emulator/faults/index.js'
import {ApiError} from '../../src/emulator/http-exchange.js'
import {isAdminTarget, requestTarget, routeRequests} from '../../src/emulator/router.js'
import {EmulatorStore} from '../../src/emulator/store/index.js'

describe('requestTarget', () => {
  it.each([
    ['/_emulator/health', ['_emulator', 'health']],
    ['/%5Femulator/health', ['_emulator', 'health']],
    ['/_%65mulator/%68ealth', ['_emulator', 'health']],
    ['//_emulator//health/', ['_emulator', 'health']],
    ['/./_emulator/%2E/health', ['_emulator', 'health']],
    ['/a/b/../../_emulator/x/%2e%2e/health', ['_emulator', 'health']],
    ['/../../_emulator/health', ['_emulator', 'health']],
    ['/', []],
    ['//', []],
    ['/v1/transaction/a%2Fb', ['v1', 'transaction', 'a/b']],
  ])('%s is read as %j', (raw, segments) => {
    expect(requestTarget(raw).segments).toEqual(segments)
  })

  it('keeps the query apart, as sent, and writes the path back unambiguously', () => {
    expect(requestTarget('/%5Femulator/transactions?search=a%20b&limit=5')).toEqual({
      segments: ['_emulator', 'transactions'],
      path: '/_emulator/transactions',
      query: 'search=a%20b&limit=5',
    })
    expect(requestTarget('/v1/transaction/a%2Fb%25c').path).toBe('/v1/transaction/a%2Fb%25c')
    // A path with no `%` is read as it is, its empty and dot segments dropped all the same.
    expect(requestTarget('/v1//x/../transaction/./tx-1/?key=k')).toEqual({segments: ['v1', 'transaction', 'tx-1'], path: '/v1/transaction/tx-1', query: 'key=k'})
  })

  it.each([
    ['/v1/%E0%A4%A', 'bad percent-encoding'],
    ['http://127.0.0.1:4010/_emulator/health', 'must start with /'],
    ['*', 'must start with /'],
  ])('refuses %s with a 400 naming the path', (raw, reason) => {
    let thrown: unknown
    try {
      requestTarget(raw)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ApiError)
    expect((thrown as ApiError).body()).toEqual({code: '400', message: `The request path is not valid (${reason}).`, details: {path: reason}})
  })

  it('marks /_emulator/ targets in any case as the emulator\'s own', () => {
    expect(['/_emulator', '/%5FEMULATOR/x', '/x/../_Emulator/faults'].map((raw) => isAdminTarget(requestTarget(raw)))).toEqual([true, true, true])
    expect(['/', '/v1/_emulator', '/_emulatorx/health'].map((raw) => isAdminTarget(requestTarget(raw)))).toEqual([false, false, false])
  })
})

describe('the layers a request goes through', () => {
  const request = {method: 'GET', headers: {host: '127.0.0.1:4010'}} as IncomingMessage
  const response = {} as ServerResponse
  const target = requestTarget('/v1/transaction/abc')

  it('answer a handler that works within the call, within the call: no promise made on the way (a status read under load)', () => {
    const seen: string[][] = []
    const routed = routeRequests([{method: 'GET', pattern: ['v1', 'transaction', ':'], handler: (_request, _response, params) => void seen.push(params)}])
    const guarded = guardAdminHost(routed, {listenHost: '127.0.0.1', ownUrls: () => ['http://127.0.0.1:4010']})
    const layered = withRequestFaults(guarded, new FaultRules(1), {store: EmulatorStore.open(), maxBodyBytes: 1024, now: () => 0, report: () => {}})
    expect(layered(request, response, target)).toBeUndefined()
    expect(seen).toEqual([['abc']])
  })

  it('pass on the promise of a handler that awaits, and throw what fails within the call', async () => {
    const routed = routeRequests([{method: 'GET', pattern: ['v1', 'transaction', ':'], handler: async () => {}}])
    await expect(routed(request, response, target)).resolves.toBeUndefined()
    expect(() => routed(request, response, requestTarget('/v2'))).toThrow(ApiError)
  })
})

describe('routeRequests', () => {
  const answered: string[] = []
  const route = (method: 'GET' | 'POST', pattern: string[], name: string) => ({method, pattern, handler: (_request: IncomingMessage, _response: ServerResponse, params: string[]) => void answered.push(`${name}(${params.join(',')})`)})
  const routed = routeRequests([
    route('POST', ['v1', 'transaction', 'start'], 'start'),
    route('GET', ['v1', 'transaction', ':'], 'status'),
    route('POST', ['v1', 'transaction', ':'], 'update'),
    route('GET', ['v1', 'transaction', ':', 'checkoutsuccess'], 'checkout'),
    route('GET', [':', ':'], 'pair'),
  ])
  const send = (method: string, raw: string) => routed({method} as IncomingMessage, {} as ServerResponse, requestTarget(raw))
  const failure = (method: string, raw: string) => {
    try {
      send(method, raw)
    } catch (error) {
      return error as ApiError
    }
    throw new Error(`${method} ${raw} was answered`)
  }

  it('answers by the first pattern that matches, with what its `:` segments matched', () => {
    answered.length = 0
    send('POST', '/v1/transaction/start')
    send('GET', '/v1/transaction/tx-1')
    send('POST', '/v1/transaction/tx-1')
    send('GET', '/v1/transaction/tx-1/checkoutsuccess')
    send('GET', '/a/b')
    expect(answered).toEqual(['start()', 'status(tx-1)', 'update(tx-1)', 'checkout(tx-1)', 'pair(a,b)'])
  })

  it('a pattern listed first decides even for another method: 405 with the methods it allows; no pattern: 404', () => {
    // `/v1/transaction/start` is the literal route's, though GET /v1/transaction/: is listed too.
    expect(failure('GET', '/v1/transaction/start')).toMatchObject({status: 405, headers: {allow: 'POST'}})
    expect(failure('DELETE', '/v1/transaction/tx-1')).toMatchObject({status: 405, headers: {allow: 'GET, POST'}})
    expect(failure('GET', '/v1/transaction/tx-1/nothing')).toMatchObject({status: 404})
    expect(failure('GET', '/v1')).toMatchObject({status: 404})
  })
})
