/** `flow`'s flags and stdin into the flow to run, in-process. */
import {describe, expect, it} from 'vitest'

import Flow, {type FlowEnv, type FlowStdin, toFlowOptions} from '../../src/commands/flow.js'
import {CARD_ID, CUSTOMER_FIELDS, CUSTOMER_ID} from '../helpers/fixtures.js'
import {parseFlags} from '../helpers/parse-flags.js'
import {tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'
import {PAN} from '../helpers/secrets.js'

const signal = new AbortController().signal
const LOCAL: FlowEnv = {environment: 'local', version: '1.2.3', signal}
const PRODUCTION: FlowEnv = {...LOCAL, environment: 'production'}

async function options(argv: string[], stdin: FlowStdin = {}, env = LOCAL) {
  return toFlowOptions(await parseFlags(Flow, argv), env, stdin)
}

describe('toFlowOptions', () => {
  it('runs a dummy flow on the local profile with its defaults', async () => {
    const {options: flow, notes} = await options(['--product', 'dummy', '--amount', '1499'])
    expect(flow).toMatchObject({
      product: 'dummy',
      amount: 1499,
      openBrowser: true,
      webhook: {mode: 'local'},
      waitTimeoutMs: 600_000,
      until: 'final',
      userAgent: 'paytx/1.2.3',
      signal,
    })
    expect(flow.customer).toBeUndefined()
    expect(flow.card).toBeUndefined()
    expect(notes).toEqual([])
  })

  it.each([
    [['--approve', 'SETTLEMENT_COMPLETED'], LOCAL, {until: 'settled', approve: 'SETTLEMENT_COMPLETED'}],
    [['--approve', 'DECLINED', '--until', 'settled'], LOCAL, {until: 'settled'}],
    [['--webhook', 'none', '--no-open', '--port', '0'], LOCAL, {webhook: {mode: 'none'}, openBrowser: false, listenerPort: 0}],
    [[], {...LOCAL, environment: 'sandbox'}, {webhook: {mode: 'none'}}],
    [['--webhook-url', 'https://example.ngrok.app/hooks'], {...LOCAL, environment: 'sandbox'}, {webhook: {mode: 'url', url: 'https://example.ngrok.app/hooks'}}],
    [['--customer', CUSTOMER_ID, '--wait-timeout', '90s'], LOCAL, {customer: {id: CUSTOMER_ID}, waitTimeoutMs: 90_000}],
  ] as [string[], FlowEnv, object][])('dummy with %j gives %j', async (argv, env, expected) => {
    expect((await options(['--product', 'dummy', '--amount', '100', ...argv], {}, env)).options).toMatchObject(expected)
  })

  it('card: a card id, or the number and CVV from stdin, normalised', async () => {
    expect((await options(['--product', 'card', '--amount', '100', '--card', CARD_ID])).options.card).toEqual({id: CARD_ID})
    const spaced = PAN.replace(/(\d{4})(?=\d)/g, '$1 ')
    const {options: flow} = await options(['--product', 'card', '--amount', '100', '--pan-stdin', '--cvv-stdin'], {pan: spaced, cvv: '123'})
    expect(flow.card).toEqual({pan: PAN, expiryMonth: undefined, expiryYear: undefined, holderName: undefined})
    expect(flow.cvv).toBe('123')
  })

  it('production: the card number and its expiry and holder are required', async () => {
    const argv = ['--product', 'card', '--amount', '100', '--customer', CUSTOMER_ID]
    await expect(options(argv, {}, PRODUCTION)).rejects.toMatchObject({flag: '--pan-stdin', exitCode: 2})
    await expect(options([...argv, '--pan-stdin'], {pan: PAN}, PRODUCTION)).rejects.toMatchObject({flag: '--expiry-month'})
    const {options: flow} = await options([...argv, '--pan-stdin', '--expiry-month', '09', '--expiry-year', '2030', '--holder-name', 'J Doe'], {pan: PAN}, PRODUCTION)
    expect(flow.card).toEqual({pan: PAN, expiryMonth: '09', expiryYear: '2030', holderName: 'J Doe'})
  })

  it('sofort: the descriptor transliterated, with a note', async () => {
    const {options: flow, notes} = await options(['--product', 'sofort', '--amount', '990', '--descriptor', 'Bestellung Müller'])
    expect(flow.descriptor).toBe('Bestellung Mueller')
    expect(notes.join('\n')).toContain('--descriptor sent as "Bestellung Mueller"')
  })

  it('takes the customer from --customer-data’s object', async () => {
    expect((await options(['--product', 'dummy', '--amount', '100', '--customer-data', 'c.json'], {customerData: CUSTOMER_FIELDS})).options.customer).toEqual({
      data: CUSTOMER_FIELDS,
    })
  })

  it.each([
    [['--product', 'dummy', '--amount', '14.99'], {}, '--amount', /--amount is in minor units/],
    [['--product', 'dummy', '--amount', '100', '--wait-timeout', 'soon'], {}, '--wait-timeout', /--wait-timeout must be a duration greater than 0/],
    [['--product', 'dummy', '--amount', '100', '--card', CARD_ID], {}, '--card', /--card applies only to --product card \(got --product dummy\)/],
    [['--product', 'sofort', '--amount', '100', '--holder-name', 'J'], {}, '--holder-name', /--holder-name applies only to --product card/],
    [['--product', 'card', '--amount', '100', '--customer-data', '-', '--pan-stdin'], {}, '--customer-data', /--customer-data - reads stdin, so it cannot be combined/],
    [['--product', 'card', '--amount', '100', '--cvv-stdin'], {cvv: '12'}, '--cvv-stdin', /--cvv-stdin must read 3 or 4 digits/],
    [['--product', 'dummy', '--amount', '100', '--customer-data', 'c.json'], {customerData: {nickname: 'JD', shoe: 42}}, '--customer-data', /--customer-data: unknown fields nickname, shoe/],
    [['--product', 'sofort', '--amount', '100', '--descriptor', 'Order_4711!'], {}, '--descriptor', /--descriptor contains "_", "!"/],
  ] as [string[], FlowStdin, string, RegExp][])('refuses %j naming the flag', async (argv, stdin, flag, message) => {
    await expect(options(argv, stdin)).rejects.toMatchObject({flag, exitCode: 2, message: expect.stringMatching(message)})
  })

  it('leaves --customer with --customer-data and --webhook with --webhook-url to oclif’s parser', async () => {
    await expect(parseFlags(Flow, ['--product', 'dummy', '--amount', '1', '--customer', 'a', '--customer-data', 'b'])).rejects.toThrow(/--customer/)
    await expect(parseFlags(Flow, ['--product', 'dummy', '--amount', '1', '--webhook', 'none', '--webhook-url', 'https://x.example'])).rejects.toThrow(/--webhook/)
  })
})

describe('flow --webhook-url refused', () => {
  it('quotes the address redacted: its password and key are not shown back (exit 2, nothing sent)', async () => {
    const result = await runCommand(['flow', '--product', 'dummy', '--amount', '100', '--webhook-url', 'hooks:s3cret@hooks.example:4242/x?key=s3cret'], {configDir: tempConfigDir()})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('--webhook-url must be an absolute http(s) URL (got "hooks:…@hooks.example:4242/x?key=…").')
    expect(result.stderr).not.toContain('s3cret')
  })
})
