/**
 * The resource commands against `paytx emulator start`, end to end: the emulator runs as its own
 * spawned process on a free port, and every command runs in-process (test/helpers/run-command.ts)
 * pointed at it through the environment, checked by stdout, stderr and exit code separately.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {approvalFormFields} from '../../src/test-mode/outcomes.js'
import {type RunningCli, parseJsonOutput, startCli} from '../helpers/cli.js'
import {type CommandResult, runCommand} from '../helpers/run-command.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {standaloneDigits} from '../helpers/secrets.js'

const APPROVE_PAN = '4024007108173153'
const DECLINE_PAN = '4000000000000002'
const CVV = '987'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

interface Listening {
  url: string
  proxy_url: string
  api_key: string
  proxy_key: string
  payment_profile: string
}

let emulatorCli: RunningCli
let emulator: Listening
let shop: RecordingServer
/** Created once through `customer create`, shared by the later commands. */
let customer: string

/** The emulator's NDJSON events so far. */
const emulatorLines = () => emulatorCli.stdout().trim().split('\n')

/** Starts `paytx emulator start --port 0 --json` and waits for its `listening` event. */
async function startEmulatorProcess(): Promise<void> {
  // It serves every test in this file, so its kill timer must outlast them all.
  emulatorCli = startCli(['emulator', 'start', '--port', '0', '--settle-after', '0', '--pending-for', '0', '--json'], {})
  const [line] = await emulatorCli.waitForStdout(/^\{"event":"listening".*\}$/m, 20_000)
  emulator = JSON.parse(line) as Listening
}

beforeAll(async () => {
  ;[shop] = await Promise.all([startRecordingServer(() => ({status: 200, text: 'back at the shop'})), startEmulatorProcess()])
  customer = await createCustomer()
})

afterAll(async () => {
  await emulatorCli?.stop('SIGKILL')
  await shop?.close()
})

function paytx(args: string[], input?: string): Promise<CommandResult> {
  return runCommand(args, {
    input,
    env: {PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxy_url, PAYTX_API_KEY: emulator.api_key, PAYTX_PROXY_KEY: emulator.proxy_key},
  })
}

const CUSTOMER_FLAGS = [
  '--title', 'ms',
  '--first-name', 'Erika',
  '--last-name', 'Mustermann',
  '--email-address', 'erika@example.com',
  '--phone-number', '+4930123456',
  '--street-address', 'Heidestrasse',
  '--house-number', '17',
  '--postal-code', '10557',
  '--city', 'Berlin',
  '--country-code', 'DE',
]

function expectQuietSuccess(result: CommandResult): void {
  expect(result.exitCode, result.stderr).toBe(0)
  expect(result.stderr).not.toMatch(/\n\s+at /)
}

async function createCustomer(): Promise<string> {
  const result = await paytx(['customer', 'create', ...CUSTOMER_FLAGS, '--json'])
  expectQuietSuccess(result)
  return parseJsonOutput(result).id
}

async function tokenize(customer: string, pan: string): Promise<string> {
  const result = await paytx(
    ['card', 'tokenize', '--customer', customer, '--expiry-month', '12', '--expiry-year', '2030', '--holder-name', 'Erika Mustermann', '--pan-stdin', '--json'],
    `${pan}\n`,
  )
  expectQuietSuccess(result)
  return parseJsonOutput(result).id
}

async function start(args: string[], input?: string): Promise<any> {
  const result = await paytx(['transaction', 'start', '--amount', '1499', '--redirect-url', `${shop.url}/return?order=7`, ...args, '--json'], input)
  expectQuietSuccess(result)
  return parseJsonOutput(result)
}

/** What a script does instead of a browser: one POST of the approval form's fields. */
async function approve(approvalUrl: string, fields: Record<string, string>): Promise<URL> {
  const response = await fetch(approvalUrl, {method: 'POST', body: new URLSearchParams(fields), redirect: 'manual'})
  expect(response.status).toBe(303)
  return new URL(response.headers.get('location')!)
}

// Each test spawns several CLI processes one after another; allow for a busy machine.
describe('paytx resource commands against `paytx emulator start`', {timeout: 90_000}, () => {
  it('announces its addresses and keys as the first NDJSON event', () => {
    expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(emulator.url).not.toBe('http://127.0.0.1:4010')
    expect(emulator.proxy_url).toBe(`${emulator.url}/h2h`)
    expect(emulator.payment_profile).toMatch(UUID)
  })

  it('customer create: prints the customer for people, returns it for --json', async () => {
    const [human, json] = await Promise.all([paytx(['customer', 'create', ...CUSTOMER_FLAGS]), paytx(['customer', 'create', ...CUSTOMER_FLAGS, '--json'])])
    expectQuietSuccess(human)
    expect(human.stdout).toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/)
    expect(human.stdout).toContain('Mustermann')
    expect(human.stdout).toContain('unverified')
    expectQuietSuccess(json)
    const customer = parseJsonOutput(json)
    expect(customer).toMatchObject({first_name: 'Erika', last_name: 'Mustermann', status: 'unverified', fax_number: ''})
    expect(customer.id).toMatch(UUID)
    expect(customer.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  })

  it('customer create: a field the emulator rejects exits 1 with its details', async () => {
    const result = await paytx(['customer', 'create', ...CUSTOMER_FLAGS, '--organisation', '00000000-0000-4000-8000-000000000000'])
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('organisation')
  })

  it('card tokenize: shows the card id and last four, never the number', async () => {
    const args = ['card', 'tokenize', '--customer', customer, '--expiry-month', '12', '--expiry-year', '2030', '--holder-name', 'Erika Mustermann', '--pan-stdin']
    const [human, json] = await Promise.all([paytx(args, `${APPROVE_PAN}\n`), paytx([...args, '--json'], `${APPROVE_PAN}\n`)])
    expectQuietSuccess(human)
    expect(human.stdout).toContain('3153')
    expect(`${human.stdout}${human.stderr}`).not.toContain(APPROVE_PAN)
    expectQuietSuccess(json)
    expect(`${json.stdout}${json.stderr}`).not.toContain(APPROVE_PAN)
    expect(parseJsonOutput(json)).toMatchObject({id: expect.stringMatching(UUID), last_four: '3153', brand: 'visa', customer})
  })

  it('card tokenize: a wrong proxy key is refused by the emulator (exit 1)', async () => {
    const result = await runCommand(
      ['card', 'tokenize', '--customer', customer, '--expiry-month', '12', '--expiry-year', '2030', '--holder-name', 'Erika Mustermann', '--pan-stdin'],
      {input: `${APPROVE_PAN}\n`, env: {PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxy_url, PAYTX_API_KEY: emulator.api_key, PAYTX_PROXY_KEY: 'pk_wrong_key_0000'}},
    )
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('401')
    expect(result.stderr).not.toContain(APPROVE_PAN)
    expect(result.stderr).not.toContain('pk_wrong_key_0000')
  })

  it('card: start without a CVV, pay on the page with one, then status and checkoutsuccess say settled (exit 0)', async () => {
    const card = await tokenize(customer, APPROVE_PAN)
    const transaction = await start(['--product', 'card', '--customer', customer, '--card', card])
    expect(transaction).toMatchObject({status: 'INITIATED', amount: '1499', payment_product: 'card', card, customer})
    expect(transaction.details.card_cvv).toBeUndefined()
    expect(transaction.details.approval_url).toBe(`${emulator.url}/v1/transaction/${transaction.id}/authorize`)

    const landed = await approve(transaction.details.approval_url, approvalFormFields('card', 'SETTLEMENT_COMPLETED', {cvv: CVV})!)
    expect(landed.origin + landed.pathname).toBe(`${shop.url}/return`)
    expect(landed.searchParams.get('order')).toBe('7')
    expect(landed.searchParams.get('transaction_id')).toBe(transaction.id)

    const [status, statusJson, checkout] = await Promise.all([
      paytx(['transaction', 'status', transaction.id]),
      paytx(['status', transaction.id, '--json']),
      paytx(['checkoutsuccess', transaction.id, '--json']),
    ])
    expectQuietSuccess(status)
    expect(status.stdout).toContain('SETTLEMENT_COMPLETED')
    expect(status.stdout).toContain('14.99')
    expectQuietSuccess(statusJson)
    expect(parseJsonOutput(statusJson)).toMatchObject({id: transaction.id, status: 'SETTLEMENT_COMPLETED', amount: '1499'})
    expectQuietSuccess(checkout)
    expect(parseJsonOutput(checkout)).toMatchObject({status: 'SETTLEMENT_COMPLETED', success: true})
    for (const result of [status, statusJson, checkout]) expect(`${result.stdout}${result.stderr}`).not.toMatch(standaloneDigits(CVV))
  })

  it('card: a CVV given at start is never shown; the declining test card ends DECLINED (checkoutsuccess exit 3)', async () => {
    const card = await tokenize(customer, DECLINE_PAN)
    const result = await paytx(
      ['transaction', 'start', '--product', 'card', '--customer', customer, '--card', card, '--cvv-stdin', '--amount', '1499', '--redirect-url', `${shop.url}/return`, '--json'],
      `${CVV}\n`,
    )
    expectQuietSuccess(result)
    expect(`${result.stdout}${result.stderr}`).not.toMatch(standaloneDigits(CVV))
    const transaction = parseJsonOutput(result)

    await approve(transaction.details.approval_url, {action: 'pay'})
    const [checkout, checkoutJson] = await Promise.all([paytx(['transaction', 'checkoutsuccess', transaction.id]), paytx(['checkoutsuccess', transaction.id, '--json'])])
    expect(checkout.exitCode).toBe(3)
    expect(checkout.stdout).toContain('DECLINED')
    expect(checkoutJson.exitCode).toBe(3)
    expect(parseJsonOutput(checkoutJson)).toMatchObject({status: 'DECLINED', success: false})
  })

  it('dummy and sofort: start, approve, settle', async () => {
    const dummy = await start(['--product', 'dummy', '--customer', customer])
    expect(dummy).toMatchObject({status: 'INITIATED', payment_product: 'dummy', payment_product_type: 'dummy', processor: 'dummy'})
    expect(typeof dummy.details.issuer).toBe('string')
    await approve(dummy.details.approval_url, approvalFormFields('dummy', 'SETTLEMENT_COMPLETED')!)
    expectQuietSuccess(await paytx(['checkoutsuccess', dummy.id]))

    const sofort = await start(['--product', 'sofort', '--customer', customer, '--descriptor', 'Bestellung 4711 Müller'])
    expect(sofort).toMatchObject({status: 'INITIATED', payment_product: 'sofort', dynamic_descriptor: 'Bestellung 4711 Mueller'})
    await approve(sofort.details.approval_url, approvalFormFields('sofort', 'SETTLEMENT_COMPLETED')!)
    const status = await paytx(['status', sofort.id, '--json'])
    expectQuietSuccess(status)
    expect(parseJsonOutput(status)).toMatchObject({status: 'SETTLEMENT_COMPLETED', details: {sender: {bank_name: 'Demo Bank', holder: 'Erika Mustermann'}}})
  })

  it('transaction start: bad input exits 2 and sends nothing; an unknown customer exits 1', async () => {
    const [bad, unknown] = await Promise.all([
      paytx(['transaction', 'start', '--product', 'dummy', '--customer', customer, '--amount', '14.99', '--redirect-url', `${shop.url}/return`]),
      paytx(['transaction', 'start', '--product', 'dummy', '--customer', '00000000-0000-4000-8000-000000000000', '--amount', '1499', '--redirect-url', `${shop.url}/return`]),
    ])
    expect(bad.exitCode).toBe(2)
    expect(bad.stdout).toBe('')
    expect(bad.stderr).toContain('--amount')
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stdout).toBe('')
    expect(unknown.stderr).toContain('customer')
  })

  it('status and checkoutsuccess of an unknown id exit 1 with the 404', async () => {
    for (const result of await Promise.all([paytx(['status', 'no-such-transaction']), paytx(['checkoutsuccess', 'no-such-transaction'])])) {
      expect(result.exitCode).toBe(1)
      expect(result.stdout).toBe('')
      expect(result.stderr).toContain('404')
      expect(result.stderr).not.toMatch(/\n\s+at /)
    }
  })

  it('the emulator logged the requests as events and stops on Ctrl-C with exit 130', async () => {
    expect(emulatorLines().length).toBeGreaterThan(1)
    const log = emulatorCli.stdout()
    expect(log).not.toContain(APPROVE_PAN)
    expect(log).not.toContain(DECLINE_PAN)
    expect(log).not.toContain(`"${CVV}"`)
    const exit = await emulatorCli.stop('SIGINT')
    expect(exit.code).toBe(130)
    expect(JSON.parse(emulatorLines().at(-1)!)).toMatchObject({event: 'stopped'})
  })
})
