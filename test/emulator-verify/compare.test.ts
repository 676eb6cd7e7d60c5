/** Field-by-field comparison of two answers, and the assumptions each difference touches. */
import {describe, expect, it} from 'vitest'

import {assumptionsFor, compareAnswers, fieldTypes} from '../../src/emulator-verify/compare.js'
import {checkVerifyProfile} from '../../src/commands/emulator/verify.js'
import {InputError} from '../../src/errors.js'

describe('compareAnswers', () => {
  it('same fields and types, other values: no difference', () => {
    expect(compareAnswers('transaction', {status: 200, body: {id: 'a', amount: '100', details: {x: 1}}}, {status: 200, body: {id: 'b', amount: '5', details: {x: 2}}})).toEqual([])
  })

  it.each([
    [{status: 400, body: {}}, {status: 422, body: {}}, [{path: 'status', kind: 'status', real: '400', emulator: '422'}]],
    [{status: 200, body: {a: 1}}, {status: 200, body: {}}, [{path: 'a', kind: 'only-real', real: 'number', emulator: 'absent'}]],
    [{status: 200, body: {a: '1'}}, {status: 200, body: {a: 1}}, [{path: 'a', kind: 'type', real: 'string', emulator: 'number'}]],
    [{status: 200, body: {}}, {status: 200, body: {d: {x: 1, y: 2}}}, [{path: 'd', kind: 'only-emulator', real: 'absent', emulator: 'object'}]],
    [{status: 200, body: {list: [{a: 1}]}}, {status: 200, body: {list: [{a: null}]}}, [{path: 'list[].a', kind: 'type', real: 'number', emulator: 'null'}]],
  ])('%o against %o', (real, emulator, expected) => {
    expect(compareAnswers('customer', real, emulator)).toEqual(expected.map((difference) => expect.objectContaining(difference)))
  })

  it('an error shape: details keyed differently', () => {
    const differences = compareAnswers('invalid-amount', {status: 400, body: {code: '400', message: 'm', details: {'body.amount': 'x'}}}, {status: 400, body: {code: '400', message: 'm', details: {amount: 'x'}}})
    expect(differences.map((difference) => [difference.path, difference.kind, difference.assumptions])).toEqual([
      ['details.body.amount', 'only-real', ['error-statuses']],
      ['details.amount', 'only-emulator', ['error-statuses']],
    ])
  })

  it('fieldTypes walks objects and the first item of arrays', () => {
    expect([...fieldTypes({a: {b: [1]}, c: null})]).toEqual([
      ['a', 'object'],
      ['a.b', 'array'],
      ['a.b[]', 'number'],
      ['c', 'null'],
    ])
  })
})

describe('assumptionsFor', () => {
  it.each([
    ['card', 'last_four', ['card-record']],
    ['card', '_id', ['id-keys', 'card-record']],
    ['customer', 'fax_number', ['customer-optional-fields']],
    ['customer', 'status_reason', ['customer-status-reason']],
    ['transaction', 'details.sender.bank_name', ['sofort-sender']],
    ['wrong-key', '', ['error-statuses', 'api-key-header']],
    ['transaction', 'amount', []],
  ])('%s %s touches %j', (probe, path, expected) => {
    expect(assumptionsFor(probe, path)).toEqual(expected)
  })
})

describe('checkVerifyProfile', () => {
  const base = {base_url: 'https://sandbox.example/v1', api_key_header: 'X-APIKEY', api_key: 'sk_test_x'}
  it.each([
    [{env: 'sandbox', ...base}, undefined],
    [{env: 'production', ...base}, 'refuses production profiles'],
    [{env: 'local', ...base}, 'is the emulator itself'],
    [{env: 'sandbox', ...base, api_key: undefined}, 'has no API key'],
  ] as const)('%o: %s', (profile, refusal) => {
    const check = () => checkVerifyProfile({name: 'p', profile: profile as never})
    if (refusal === undefined) expect(check).not.toThrow()
    else expect(check).toThrow(new RegExp(refusal))
    if (refusal) expect(check).toThrow(InputError)
  })
})
