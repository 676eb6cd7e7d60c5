/** Comparison of two answers: shapes, enumerations, value rules, classes and the assumption each difference touches. */
import {describe, expect, it} from 'vitest'

import {attribute} from '../../src/emulator-verify/attribution.js'
import {compareAnswers, fieldTypes} from '../../src/emulator-verify/compare.js'
import {ruleBreaks} from '../../src/emulator-verify/rules.js'
import {checkVerifyProfile} from '../../src/commands/emulator/verify.js'
import {InputError} from '../../src/errors.js'

const UUID_A = '4f1c2a9e-0000-4000-8000-000000000001'
const UUID_B = '4f1c2a9e-0000-4000-8000-000000000002'
const TIME_A = '2026-01-01T00:00:00.000Z'
const TIME_B = '2026-02-03T04:05:06.789Z'

const transaction = (overrides: Record<string, unknown> = {}) => ({id: UUID_A, amount: '100', status: 'INITIATED', payment_product: 'dummy', created_at: TIME_A, last_status_update: TIME_A, ...overrides})
const sent = {amount: 100, payment_product: 'dummy'}

describe('compareAnswers', () => {
  it('ids and times are compared by form, not value: other ids and times, no difference', () => {
    expect(compareAnswers('transaction-start', {status: 200, body: transaction()}, {status: 200, body: transaction({id: UUID_B, created_at: TIME_B, last_status_update: TIME_B})}, sent)).toEqual([])
  })

  it.each([
    ['201 for 200', {status: 201, body: {}}, {status: 200, body: {}}, {path: '', kind: 'http-status', class: 'breaking', real: '201', emulator: '200', assumptions: []}],
    ['an extra field', {status: 200, body: {a: 1}}, {status: 200, body: {}}, {path: 'a', kind: 'only-real', class: 'additive', real: 'number', emulator: 'absent'}],
    ['a number as a string', {status: 200, body: {a: '1'}}, {status: 200, body: {a: 1}}, {path: 'a', kind: 'type', class: 'breaking', real: 'string', emulator: 'number'}],
    ['a field the service lacks', {status: 200, body: {}}, {status: 200, body: {d: {x: 1, y: 2}}}, {path: 'd', kind: 'only-emulator', class: 'breaking', real: 'absent', emulator: 'object'}],
  ])('%s', (_label, real, emulator, expected) => {
    expect(compareAnswers('customer', real, emulator)).toEqual([expect.objectContaining(expected)])
  })

  it('another enumeration value is breaking: a new transaction PENDING', () => {
    const differences = compareAnswers('transaction-start', {status: 200, body: transaction({status: 'PENDING'})}, {status: 200, body: transaction()}, sent)
    expect(differences).toContainEqual(expect.objectContaining({path: 'status', kind: 'enum', class: 'breaking', real: '"PENDING"', emulator: '"INITIATED"', assumptions: []}))
  })

  it('an amount of "1.00" breaks the amount rule: a value difference naming no assumption', () => {
    const differences = compareAnswers('transaction-start', {status: 200, body: transaction({amount: '1.00'})}, {status: 200, body: transaction()}, sent)
    expect(differences).toContainEqual(expect.objectContaining({path: 'amount', kind: 'value', class: 'value', emulator: '"100"', assumptions: []}))
    expect(differences[0]!.real).toContain('"1.00", not a string of whole minor units')
  })

  it('success: true while INITIATED is a value difference', () => {
    const differences = compareAnswers('checkoutsuccess', {status: 200, body: {status: 'INITIATED', status_reason: '', success: true}}, {status: 200, body: {status: 'INITIATED', status_reason: '', success: false}})
    expect(differences).toEqual([expect.objectContaining({path: 'success', kind: 'value', class: 'value'})])
  })

  it('an error code of another value touches error-statuses', () => {
    const differences = compareAnswers('invalid-amount', {status: 400, body: {code: '101', message: 'm'}}, {status: 400, body: {code: '400', message: 'm'}})
    expect(differences).toEqual([expect.objectContaining({path: 'code', kind: 'value', real: '"101"', emulator: '"400"', assumptions: ['error-statuses']})])
  })

  it('an error wrapped in {error: {...}} is a breaking shape difference that touches no listed assumption', () => {
    const differences = compareAnswers('invalid-amount', {status: 400, body: {error: {code: '400', message: 'm'}}}, {status: 400, body: {code: '400', message: 'm'}})
    expect(differences.map((d) => [d.path, d.class, d.assumptions])).toEqual([
      ['error', 'additive', []],
      ['code', 'breaking', []],
      ['message', 'breaking', []],
    ])
  })

  it('a status code difference is not a body field named status', () => {
    const differences = compareAnswers('unknown-transaction', {status: 400, body: {status: 'x'}}, {status: 404, body: {status: 'x'}})
    expect(differences).toEqual([expect.objectContaining({path: '', kind: 'http-status', assumptions: ['error-statuses']})])
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

describe('attribute', () => {
  it.each([
    ['card', 'last_four', 'only-emulator', ['card-record']],
    ['card', '_id', 'only-emulator', ['id-keys', 'card-record']],
    ['card', '', 'http-status', []],
    ['customer', '_id', 'only-real', []],
    ['customer', 'fax_number', 'value', ['customer-optional-fields']],
    ['customer', 'status_reason', 'value', ['customer-status-reason']],
    ['transaction-start-sofort', 'details.sender.bank_name', 'type', ['sofort-sender']],
    ['wrong-key', '', 'http-status', ['error-statuses']],
    ['invalid-amount', 'details.body.amount', 'only-real', []],
    ['webhook', 'status', 'only-real', ['webhook-body']],
    ['webhook', '_id', 'only-emulator', ['id-keys']],
    ['transaction', 'amount', 'type', []],
  ] as const)('%s %s (%s) touches %j', (probe, path, kind, expected) => {
    expect(attribute(probe, path, kind)).toEqual(expected)
  })
})

describe('ruleBreaks', () => {
  it('forms: a UUID, ISO 8601 with milliseconds, an error code of three digits', () => {
    expect(ruleBreaks('transaction', transaction({id: 'abc', created_at: '2026-01-01 00:00'})).map((broken) => broken.path)).toEqual(['id', 'created_at'])
    expect(ruleBreaks('invalid-customer', {code: '4000', message: 'm'})).toEqual([expect.objectContaining({path: 'code', rule: 'three digits'})])
  })

  it('optional customer fields kept as sent', () => {
    expect(ruleBreaks('customer', {fax_number: ''}, {fax_number: '+31201234567'})).toEqual([expect.objectContaining({path: 'fax_number', rule: 'kept as sent'})])
  })
})

describe('checkVerifyProfile', () => {
  const base = {base_url: 'https://sandbox.example/v1', api_key_header: 'X-APIKEY', api_key: 'sk_test_x', organisation: UUID_A}
  it.each([
    [{env: 'sandbox', ...base}, undefined],
    [{env: 'production', ...base}, 'refuses production profiles'],
    [{env: 'local', ...base}, 'is the emulator itself'],
    [{env: 'sandbox', ...base, api_key: undefined}, 'has no API key'],
    [{env: 'sandbox', ...base, organisation: undefined}, 'has no organisation'],
  ] as const)('%o: %s', (profile, refusal) => {
    const check = () => checkVerifyProfile({name: 'p', profile: profile as never})
    if (refusal === undefined) expect(check).not.toThrow()
    else expect(check).toThrow(new RegExp(refusal))
    if (refusal) expect(check).toThrow(InputError)
  })
})

describe('assumptionChecks', () => {
  it('a service elsewhere with no tunnel: every webhook assumption says why it was not checked; every listed assumption has a line', async () => {
    const {assumptionChecks} = await import('../../src/emulator-verify/checks.js')
    const {ASSUMPTIONS} = await import('../../src/emulator/index.js')
    const probes = ['customer', 'card', 'transaction-start-sofort', 'invalid-amount'].map((probe) => ({probe}))
    const checks = assumptionChecks({probes, webhooks: false, refused: false})
    expect(checks.map((check) => check.assumption)).toEqual(ASSUMPTIONS.map((row) => row.id))
    for (const id of ['webhook-body', 'webhook-retries', 'webhook-statuses']) {
      expect(checks.find((check) => check.assumption === id)).toMatchObject({checked: 'no', how: expect.stringContaining('pass --tunnel, or --webhook-url with --webhook-port')})
    }
    expect(checks.find((check) => check.assumption === 'status-moves')).toMatchObject({checked: 'partly'})
    expect(checks.find((check) => check.assumption === 'card-record')).toMatchObject({checked: 'yes'})
  })
})
