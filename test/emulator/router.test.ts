/**
 * The one normaliser every layer of the emulator routes and guards by: a path means the same
 * thing however it is spelled, and what cannot be read as a path is a 400 naming it.
 */
import {describe, expect, it} from 'vitest'

import {ApiError} from '../../src/emulator/http-exchange.js'
import {isAdminTarget, requestTarget} from '../../src/emulator/router.js'

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
