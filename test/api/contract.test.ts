import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {
  cardSchema,
  checkoutSuccessSchema,
  customerSchema,
  serviceErrorBodySchema,
  transactionSchema,
  validateCustomerRequest,
} from '../../src/api/schemas.js'
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {emulatorApi} from '../helpers/emulator-api.js'
import {CUSTOMER_BODY} from '../helpers/fixtures.js'

/** The zod issues as "path: message", or [] when the value fits. */
function misfits(schema: {safeParse(value: unknown): {success: boolean; error?: {issues: {path: PropertyKey[]; message: string}[]}}}, value: unknown): string[] {
  const result = schema.safeParse(value)
  return result.success ? [] : (result.error?.issues ?? []).map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`)
}

describe('the emulator answers what the contract schemas say', () => {
  let emulator: RunningEmulator
  let api: ReturnType<typeof emulatorApi>
  beforeAll(async () => {
    emulator = await startEmulator({port: 0})
    api = emulatorApi(emulator)
  })
  afterAll(() => emulator.close())

  it.each(['card', 'sofort', 'dummy'] as const)('customer, card, transaction and checkoutsuccess of a %s payment', async (product) => {
    const {customer, card, transaction} = await api.startPayment(product)
    expect(misfits(customerSchema(), customer)).toEqual([])
    expect(misfits(transactionSchema(), transaction)).toEqual([])
    if (card) expect(misfits(cardSchema(), (await api.tokenize(customer.id, '4024007108173153')).body)).toEqual([])
    const read = await api.transaction(transaction.id)
    expect(misfits(transactionSchema(), read.body)).toEqual([])
    const checkout = await api.checkoutSuccess(transaction.id)
    expect(misfits(checkoutSuccessSchema(), checkout.body)).toEqual([])
  })

  it('an error body', async () => {
    const refused = await api.createCustomer({email_address: 'not-an-address'})
    expect(refused.status).toBe(400)
    expect(misfits(serviceErrorBodySchema(), refused.body)).toEqual([])
  })

  it('the schemas are not vacuous: a transaction without status or amount does not fit', () => {
    expect(misfits(transactionSchema(), {id: 'tx', payment_product: 'card', details: {}, created_at: 'x', last_status_update: 'x'})).toEqual([
      'amount: Invalid input: expected string, received undefined',
      'status: Invalid input: expected string, received undefined',
    ])
  })
})

describe('validateCustomerRequest modes', () => {
  const missingTitle = {...CUSTOMER_BODY, title: undefined}
  const badPhone = {...CUSTOMER_BODY, phone_number: '0612345678'}
  it.each([
    ['emulator', missingTitle, ['title']],
    ['emulator', badPhone, ['phone_number']],
    ['cli', missingTitle, []],
    ['cli', badPhone, ['phone_number']],
    ['scenario', missingTitle, []],
    ['scenario', badPhone, ['phone_number']],
    ['forced', badPhone, []],
    ['forced', {...CUSTOMER_BODY, phone_number: 612345678}, ['phone_number']],
  ] as const)('%s mode: %j → problems in %j', (mode, body, paths) => {
    expect(validateCustomerRequest(body, {mode}).map((issue) => issue.path)).toEqual(paths)
  })

  it('checks like the emulator when no mode is given', () => {
    expect(validateCustomerRequest(missingTitle).map((issue) => issue.path)).toEqual(['title'])
  })
})
