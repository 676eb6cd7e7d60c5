/** `transaction start`'s flags into the request, in-process: one row per input, each on its own. */
import {describe, expect, it} from 'vitest'

import TransactionStart, {type TransactionStartEnv, type TransactionStartStdin, toTransactionStartOptions} from '../../../src/commands/transaction/start.js'
import {InputError} from '../../../src/errors.js'
import {CARD_ID, CUSTOMER_ID, PAYMENT_PROFILE} from '../../helpers/fixtures.js'
import {parseFlags} from '../../helpers/parse-flags.js'

const REDIRECT = 'https://shop.example.com/return'
const BASE = ['--customer', CUSTOMER_ID, '--redirect-url', REDIRECT]
const ENV: TransactionStartEnv = {paymentProfile: PAYMENT_PROFILE, version: '1.2.3', merchantReference: 'paytx-20261120T100000Z-0a1b2c3d'}

async function options(argv: string[], stdin: TransactionStartStdin = {}, env = ENV) {
  return toTransactionStartOptions(await parseFlags(TransactionStart, argv), env, stdin)
}

describe('toTransactionStartOptions', () => {
  it('fills the defaults: customer ip, merchant reference, user agent, the profile’s payment profile', async () => {
    const {body, open, yes, warnings} = await options(['--product', 'dummy', '--amount', '1499', ...BASE])
    expect(body).toEqual({
      payment_profile: PAYMENT_PROFILE,
      amount: 1499,
      customer: CUSTOMER_ID,
      customer_ip: '127.0.0.1',
      merchant_reference: ENV.merchantReference,
      payment_product: 'dummy',
      user_agent: 'paytx/1.2.3',
      details: {redirect_url: REDIRECT},
    })
    expect({open, yes, warnings}).toEqual({open: false, yes: false, warnings: []})
  })

  it('takes every optional flag as given', async () => {
    const {body, open, yes} = await options([
      '--product', 'sofort', '--amount', '995', ...BASE,
      '--descriptor', 'Order 4711',
      '--merchant-reference', 'order-4711',
      '--customer-ip', '203.0.113.7',
      '--user-agent', 'Mozilla/5.0 (test)',
      '--webhook-url', 'https://shop.example.com/hooks?key=abc',
      '--payment-profile', 'pp-override',
      '--open', '--yes',
    ])
    expect(body).toEqual({
      payment_profile: 'pp-override',
      amount: 995,
      customer: CUSTOMER_ID,
      customer_ip: '203.0.113.7',
      dynamic_descriptor: 'Order 4711',
      merchant_reference: 'order-4711',
      payment_product: 'sofort',
      user_agent: 'Mozilla/5.0 (test)',
      details: {redirect_url: REDIRECT},
      webhook_transaction_update: 'https://shop.example.com/hooks?key=abc',
    })
    expect({open, yes}).toEqual({open: true, yes: true})
  })

  it('card: the card id and the CVV read from stdin', async () => {
    const {body} = await options(['--product', 'card', '--card', CARD_ID, '--cvv-stdin', '--amount', '2500', ...BASE], {cvv: '123'})
    expect(body).toMatchObject({payment_product: 'card', card: CARD_ID, details: {redirect_url: REDIRECT, card_cvv: '123'}})
    const withoutCvv = await options(['--product', 'card', '--card', CARD_ID, '--amount', '2500', ...BASE])
    expect(withoutCvv.body.details).toEqual({redirect_url: REDIRECT})
  })

  it('sofort: transliterates umlauts and ß and warns above 18 characters', async () => {
    const {body, warnings} = await options(['--product', 'sofort', '--amount', '995', ...BASE, '--descriptor', 'Bestellung 4711 Müßig'])
    expect(body.dynamic_descriptor).toBe('Bestellung 4711 Muessig')
    expect(warnings.join('\n')).toMatch(/--descriptor sent as "Bestellung 4711 Muessig"/)
    expect(warnings.join('\n')).toMatch(/--descriptor is 23 characters; banks in some countries show only the first 18/)
  })

  it.each([
    [['--product', 'dummy', '--amount', '0.14', ...BASE], '--amount', /--amount is in minor units.*use 14 for 0\.14 EUR/],
    [['--product', 'dummy', '--amount', '1,50', ...BASE], '--amount', /--amount is in minor units.*use 14 for 0\.14 EUR \(for "1,50" that is 150\)/],
    [['--product', 'dummy', '--amount', '0', ...BASE], '--amount', /--amount must be greater than 0/],
    [['--product', 'dummy', '--amount', '-5', ...BASE], '--amount', /--amount must be greater than 0/],
    [['--product', 'dummy', '--amount', '12abc', ...BASE], '--amount', /--amount must be a whole number of minor units/],
    [['--product', 'dummy', ...BASE], '--amount', /--amount is required/],
    [['--amount', '100', ...BASE], '--product', /--product is required \(card, sofort, dummy\)/],
    [['--product', 'card', '--amount', '100', ...BASE], '--card', /--card is required/],
    [['--product', 'dummy', '--card', CARD_ID, '--amount', '100', ...BASE], '--card', /--card applies only to --product card \(got --product dummy\)/],
    [['--product', 'dummy', '--cvv-stdin', '--amount', '100', ...BASE], '--cvv-stdin', /--cvv-stdin applies only to --product card/],
    [['--product', 'dummy', '--amount', '100', '--redirect-url', REDIRECT], '--customer', /--customer is required/],
    [['--product', 'dummy', '--amount', '100', '--customer', CUSTOMER_ID], '--redirect-url', /--redirect-url is required/],
    [['--product', 'dummy', '--amount', '100', '--customer', CUSTOMER_ID, '--redirect-url', '/return'], '--redirect-url', /--redirect-url: must be an absolute http\(s\) URL/],
    [['--product', 'dummy', '--amount', '100', ...BASE, '--customer-ip', 'localhost'], '--customer-ip', /--customer-ip: must be an IP address/],
    [['--product', 'dummy', '--amount', '100', ...BASE, '--webhook-url', 'hooks'], '--webhook-url', /--webhook-url: must be an absolute http\(s\) URL/],
    [['--product', 'sofort', '--amount', '100', ...BASE, '--descriptor', 'Order_4711!'], '--descriptor', /--descriptor contains "_", "!"; allowed are 0-9 a-z A-Z space \+ \. - ,/],
    [['--product', 'sofort', '--amount', '100', ...BASE, '--descriptor', 'Bestellung 4711 Müller Straße'], '--descriptor', /--descriptor is 31 characters long; at most 27/],
  ])('refuses %j naming %s', async (argv, flag, message) => {
    const refusal = options(argv)
    await expect(refusal).rejects.toBeInstanceOf(InputError)
    await expect(refusal).rejects.toMatchObject({flag, exitCode: 2, message: expect.stringMatching(message)})
  })

  it.each([
    ['12', /--cvv-stdin: must be 3 or 4 digits/],
    ['12345', /--cvv-stdin: must be 3 or 4 digits/],
  ])('refuses a CVV of %j from stdin', async (cvv, message) => {
    const refusal = options(['--product', 'card', '--card', CARD_ID, '--cvv-stdin', '--amount', '100', ...BASE], {cvv})
    await expect(refusal).rejects.toMatchObject({flag: '--cvv-stdin', exitCode: 2, message: expect.stringMatching(message)})
  })

  it('needs a payment profile when the profile has none', async () => {
    await expect(options(['--product', 'dummy', '--amount', '100', ...BASE], {}, {...ENV, paymentProfile: undefined})).rejects.toMatchObject({
      flag: '--payment-profile',
      message: expect.stringMatching(/--payment-profile is required \(the profile has none/),
    })
  })

  it('leaves a product outside the list to oclif’s parser, before any option is built', async () => {
    await expect(parseFlags(TransactionStart, ['--product', 'paypal', '--amount', '100', ...BASE])).rejects.toThrow(/--product/)
  })
})
