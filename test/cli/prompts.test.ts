/**
 * Prompts check each answer as it is typed (issue 37, item 5), and flow asks for a missing
 * --product and --amount on a terminal (item 3): commands run in-process at a pretend terminal,
 * with a scripted person (test/helpers/fake-prompter.ts) who retypes what a prompt refuses.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {askedName} from '../../src/cli/asking.js'
import {CARD_ID, CUSTOMER_FLAGS, CUSTOMER_ID, CUSTOMER_RESPONSE} from '../helpers/fixtures.js'
import {fakePrompter} from '../helpers/fake-prompter.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {runCommand} from '../helpers/run-command.js'
import {API_KEY, PAN, PROXY_KEY} from '../helpers/secrets.js'

// A person at an 80-column terminal: not CI, whatever the machine running the tests says.
const atTerminal = {terminalColumns: 80, env: {CI: undefined, TERM: 'xterm'}}

describe('askedName: what a required answer is called when left empty', () => {
  it.each([
    ['Two-letter country code, e.g. NL (country_code)', 'Two-letter country code'],
    ['Postal code, e.g. "1234 AB" (postal_code)', 'Postal code'],
    ['Salutation: mr or ms (title)', 'Salutation'],
    ['Organisation UUID (default: the profile’s) (organisation)', 'Organisation UUID'],
    ['Expiry month (01-12)', 'Expiry month'],
    ['Name on the card', 'Name on the card'],
  ])('%j → %j (no example, no list of values)', (message, name) => {
    expect(askedName(message)).toBe(name)
  })
})

describe('prompts check each answer as it is typed', () => {
  let server: RecordingServer
  beforeEach(async () => {
    server = await startRecordingServer((req) => {
      if (req.path === '/v1/customer') return {json: {...CUSTOMER_RESPONSE, ...req.body}}
      if (req.path === '/v1/transaction/start') return {json: {id: '9a2e0000-0000-4000-8000-000000000001', status: 'INITIATED', details: {approval_url: 'https://pay.example/x'}}}
      if (req.path.startsWith('/h2h/')) return {json: {id: CARD_ID}}
      return undefined
    })
  })
  afterEach(() => server.close())

  it('customer create: the country code is upper-cased and checked against ISO 3166-1 at its prompt; an empty answer is required without the example', async () => {
    const flags = CUSTOMER_FLAGS.filter((_, i, all) => all[i] !== '--country-code' && all[i - 1] !== '--country-code')
    const prompter = fakePrompter([{question: /country code/, answers: ['', 'XX', 'nl']}])
    const result = await runCommand(['customer', 'create', ...flags], {...atTerminal, env: {...atTerminal.env, PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY}, context: {prompter}})
    expect(result.stderr).toBe('')
    expect(result.exitCode).toBe(0)
    expect(prompter.events.map(({typed, refused}) => [typed, refused])).toEqual([
      ['', 'Two-letter country code is required'],
      ['XX', 'XX is not a country code of ISO 3166-1 (two letters, such as NL, DE or BE)'],
      ['nl', undefined],
    ])
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0].body.country_code).toBe('NL')
  })

  it('transaction start: a redirect URL that is not absolute is refused at its own prompt, before the next question, and nothing is lost', async () => {
    const prompter = fakePrompter([
      {question: /^Customer id/, answers: [CUSTOMER_ID]},
      {question: /^Redirect URL/, answers: ['shop.example.com/return', 'https://shop.example.com/return']},
    ])
    const result = await runCommand(['transaction', 'start', '--product', 'dummy', '--amount', '1499', '--payment-profile', 'pp-1'], {
      ...atTerminal,
      env: {...atTerminal.env, PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY},
      context: {prompter},
    })
    expect(result.exitCode).toBe(0)
    expect(prompter.events.map(({question, typed, refused}) => [question.split(' ')[0], typed, refused])).toEqual([
      ['Customer', CUSTOMER_ID, undefined],
      ['Redirect', 'shop.example.com/return', 'Redirect URL must be an absolute http(s) URL, such as https://shop.example.com/return'],
      ['Redirect', 'https://shop.example.com/return', undefined],
    ])
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0].body).toMatchObject({customer: CUSTOMER_ID, details: {redirect_url: 'https://shop.example.com/return'}})
  })

  it('card tokenize asks for the hidden card number first, before the visible customer, expiry and name', async () => {
    const prompter = fakePrompter([
      {question: /^Card number \(hidden\)/, answers: [PAN]},
      {question: /^Customer id/, answers: [CUSTOMER_ID]},
      {question: /^Expiry month/, answers: ['13', '07']},
      {question: /^Expiry year/, answers: ['2030']},
      {question: /^Name on the card/, answers: ['Jane Doe']},
    ])
    const result = await runCommand(['card', 'tokenize'], {...atTerminal, env: {...atTerminal.env, PAYTX_H2H_URL: `${server.url}/h2h`, PAYTX_PROXY_KEY: PROXY_KEY}, context: {prompter}})
    expect(result.exitCode).toBe(0)
    expect(prompter.events.map(({kind, typed, refused}) => [kind, typed === PAN ? 'PAN' : typed, refused !== undefined])).toEqual([
      ['secret', 'PAN', false],
      ['ask', CUSTOMER_ID, false],
      ['ask', '13', true],
      ['ask', '07', false],
      ['ask', '2030', false],
      ['ask', 'Jane Doe', false],
    ])
    expect(server.requests[0].body).toMatchObject({pan: PAN, customer: CUSTOMER_ID, expiry_month: '07'})
  })
})

describe('flow asks for a missing --product and --amount on a terminal, like transaction start', () => {
  it('asks for the product, then the amount (refusing a decimal amount at its prompt), and goes on with the answers', async () => {
    const prompter = fakePrompter([
      {question: /^Payment product/, answers: ['dummy']},
      {question: /^Amount in minor units/, answers: ['14.99', '1499']},
    ])
    // A wrong --wait-timeout stops the flow right after the answers are taken, before anything is sent.
    const result = await runCommand(['flow', '--wait-timeout', 'soon'], {...atTerminal, context: {prompter}})
    expect(prompter.events.map(({kind, typed, refused}) => [kind, typed, refused])).toEqual([
      ['choose', 'dummy', undefined],
      ['ask', '14.99', 'Amount is in minor units, a whole number without a decimal point: use 14 for 0.14 EUR (for "14.99" that is 1499).'],
      ['ask', '1499', undefined],
    ])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/^Error: --wait-timeout/)
  })

  it('asks only for what is missing', async () => {
    const prompter = fakePrompter([{question: /^Amount in minor units/, answers: ['1499']}])
    const result = await runCommand(['flow', '--product', 'sofort', '--wait-timeout', 'soon'], {...atTerminal, context: {prompter}})
    expect(prompter.asked()).toEqual(['Amount in minor units (1499 is 14.99 EUR)'])
    expect(result.stderr).toMatch(/^Error: --wait-timeout/)
  })

  it.each([
    ['without a terminal', {}, []],
    ['with --no-input at a terminal', atTerminal, ['--no-input']],
  ] as const)('%s: the missing-flag error, exit 2, each flag with what it is for, no colour codes', async (_how, options, extra) => {
    const prompter = fakePrompter([])
    const result = await runCommand(['flow', ...extra], {...options, context: {prompter}})
    expect(result.exitCode).toBe(2)
    expect(prompter.events).toEqual([])
    expect(result.stderr.replace(/\n {13}/g, ' ')).toBe(
      [
        'Error: Missing required flags:',
        '  --product  Payment product; one of card, sofort, dummy.',
        '  --amount   Amount in minor units: 1499 for 14.99 EUR.',
        'Hint: See `paytx flow --help` for every flag.',
        '',
      ].join('\n'),
    )
    expect(result.stderr).not.toMatch(/\x1b|\\x1b/)
  })
})

describe('oclif’s missing required flag, in paytx’s words', () => {
  it('webhook replay without --to: the flag with what it is for and the command’s help, exit 2, as JSON too', async () => {
    const result = await runCommand(['webhook', 'replay', 'saved.ndjson'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toBe(
      'Error: Missing required flag:\n  --to  The address to send the webhooks to (absolute http(s) URL).\nHint: See `paytx webhook replay --help` for every flag.\n',
    )
    const json = await runCommand(['webhook', 'replay', 'saved.ndjson', '--json'])
    expect(JSON.parse(json.stdout).error).toMatchObject({kind: 'input', exitCode: 2, flag: '--to', missing: [{flag: '--to', purpose: 'The address to send the webhooks to (absolute http(s) URL).'}]})
  })
})

describe('oclif’s other parse errors, in paytx’s words', () => {
  it('a missing argument is listed with what it is for and the command’s help, exit 2', async () => {
    const result = await runCommand(['emulator', 'trigger'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toBe(
      [
        'Error: Missing required arguments:',
        '  ID      Transaction id.',
        '  STATUS  The status to move to; one of INITIATED, IN_PROGRESS, PENDING, SETTLEMENT_REQUESTED, SETTLEMENT_COMPLETED, CANCELLED, DECLINED, FAILED, UNKNOWN, ABANDONED.',
        'Hint: See `paytx emulator trigger --help` for every argument and flag.',
        '',
      ].join('\n'),
    )
    const narrow = await runCommand(['emulator', 'trigger'], {terminalColumns: 60})
    expect(narrow.stderr.split('\n').slice(2, 4)).toEqual(['  STATUS  The status to move to; one of INITIATED,', '          IN_PROGRESS, PENDING, SETTLEMENT_REQUESTED,'])
  })

  it('one problem of the flag checks is said as itself, not as a list of one', async () => {
    const result = await runCommand(['flow', '--product', 'dummy', '--amount', '1', '--customer', 'a', '--customer-data', 'b'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toBe('Error: --customer-data=b cannot also be provided when using --customer\nHint: see --help for the flags and their allowed values.\n')
  })
})
