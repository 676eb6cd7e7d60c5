/**
 * The emulator's assumptions where the spec is silent: the narrowest reading by default, each
 * switch giving the other reading, and merchant code that only passes when it does what the
 * service's clients do (read `type` and the id, re-fetch the transaction).
 */
import {type IncomingMessage, type Server, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {ASSUMPTIONS, type EmulatorOptions, type RunningEmulator, assumptionsMarkdownTable, startEmulator} from '../../src/emulator/index.js'
import {ROOT, parseJsonOutput, runCli} from '../helpers/cli.js'
import {emulatorApi} from '../helpers/emulator-api.js'
import {startRecordingServer} from '../helpers/recording-server.js'
import {waitFor} from '../helpers/wait-for.js'

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!()
})

async function emulatorWith(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const emulator = await startEmulator({port: 0, settleAfterMs: 60_000, ...options})
  cleanups.push(() => emulator.close())
  return emulator
}

/**
 * A merchant's webhook handler, as a shop would write it: it answers 200 and records which status
 * it believes the order is in. `readsBody` trusts `body.status`; otherwise it reads `type` and the
 * id and re-fetches the transaction with the API key, as the service's clients do.
 */
async function startMerchant(emulator: RunningEmulator, how: 'refetches' | 'readsBody') {
  const believed: (string | undefined)[] = []
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    response.writeHead(200).end()
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    if (body.type !== 'transaction') return
    if (how === 'readsBody') {
      believed.push(body.status)
      return
    }
    const id = body.id ?? body._id
    const answer = await fetch(`${emulator.url}/v1/transaction/${id}`, {headers: {[emulator.apiKeyHeader]: emulator.apiKey}})
    believed.push(((await answer.json()) as {status: string}).status)
  }
  const server: Server = createServer((request, response) => void handle(request, response))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  cleanups.push(() => new Promise((resolve) => server.close(resolve)))
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, believed}
}

/** A declined dummy payment whose webhooks go to the merchant's handler; what the handler believed, in order. */
async function declinedPaymentSeenBy(how: 'refetches' | 'readsBody', options: EmulatorOptions = {}) {
  const emulator = await emulatorWith(options)
  const merchant = await startMerchant(emulator, how)
  const api = emulatorApi(emulator)
  const {transaction} = await api.startPayment('dummy', {extra: {webhook_transaction_update: merchant.url}})
  await api.approve(transaction.details.approval_url, {outcome: 'DECLINED'})
  await waitFor(() => merchant.believed.length === 3, 'three webhooks handled', 10_000)
  return merchant.believed
}

describe('the webhook handler a merchant writes', () => {
  it('passes when it reads only type and the id and re-fetches the transaction', async () => {
    expect((await declinedPaymentSeenBy('refetches')).at(-1)).toBe('DECLINED')
  })

  it('fails with the default payload when it reads body.status', async () => {
    // It never learns that the payment was declined: the body does not say.
    expect(await declinedPaymentSeenBy('readsBody')).toEqual([undefined, undefined, undefined])
  })

  it('reads body.status only with --webhook-payload full (paytx 0.1\'s body)', async () => {
    expect(await declinedPaymentSeenBy('readsBody', {assumptions: {webhookPayload: 'full'}})).toEqual(['INITIATED', 'IN_PROGRESS', 'DECLINED'])
  })
})

describe('fidelity points', () => {
  const firstWebhookBody = async (options: EmulatorOptions) => {
    const receiver = await startRecordingServer(() => ({status: 200}))
    cleanups.push(() => receiver.close())
    const emulator = await emulatorWith({...options, webhookUrl: `${receiver.url}/hooks`})
    const {transaction} = await emulatorApi(emulator).startPayment('dummy')
    await waitFor(() => receiver.requests.length > 0, 'the INITIATED webhook')
    return {body: receiver.requests[0].body, transaction}
  }

  it.each([
    [{}, ['type', 'id', '_id']],
    [{idKeys: 'id' as const}, ['type', 'id']],
    [{idKeys: '_id' as const}, ['type', '_id']],
  ])('the default webhook body carries type and the id only (%o)', async (assumptions, keys) => {
    const {body, transaction} = await firstWebhookBody({assumptions})
    expect(Object.keys(body)).toEqual(keys)
    expect(body.type).toBe('transaction')
    for (const key of keys.slice(1)) expect(body[key]).toBe(transaction.id)
  })

  it('--webhook-payload full adds status and the whole transaction', async () => {
    const {body, transaction} = await firstWebhookBody({assumptions: {webhookPayload: 'full'}})
    const {type, _id, ...rest} = body
    expect({type, _id}).toEqual({type: 'transaction', _id: transaction.id})
    expect(rest).toEqual(transaction)
  })

  it('keeps the customer\'s optional fields as sent, "" only when not sent, and refuses non-strings', async () => {
    const api = emulatorApi(await emulatorWith())
    const sent = {house_number_suffix: 'bis', fax_number: '+31201234567', social_security_number: '123456782', segment: 'retail'}
    const customer = (await api.createCustomer(sent)).body
    expect(customer).toMatchObject({...sent, status_reason: ''})
    const plain = (await api.createCustomer()).body
    for (const field of Object.keys(sent)) expect(plain[field], field).toBe('')
    const bad = await api.createCustomer({segment: 7})
    expect(bad.status).toBe(400)
    expect(bad.body.details).toEqual({'body.segment': 'must be a string'})
  })

  it('gives sofort a sender with every field but bank_name from the start, and the bank\'s name once confirmed', async () => {
    const api = emulatorApi(await emulatorWith())
    const {customer, transaction} = await api.startPayment('sofort')
    const before = transaction.details.sender
    expect(before.bank_name).toBe('')
    for (const field of ['country_code', 'iban', 'bic', 'bank_code', 'account_number', 'holder']) expect(before[field], field).not.toBe('')
    expect(before.holder).toBe(`${customer.first_name} ${customer.last_name}`)
    await api.approve(transaction.details.approval_url, {action: 'confirm', bank: 'musterbank'})
    expect((await api.transaction(transaction.id)).body.details.sender.bank_name).toBe('Musterbank Berlin')
  })

  it('names the card record as the earlier generation did, or as the request does with --card-record request-names', async () => {
    const pan = '4024007108173153'
    const earlierApi = emulatorApi(await emulatorWith())
    const earlier = (await earlierApi.tokenize((await earlierApi.createCustomer()).body.id, pan)).body
    expect(Object.keys(earlier).sort()).toEqual(['_id', 'brand', 'card_holder_name', 'expiry_month', 'expiry_year', 'id', 'last_four', 'organisation'])
    expect(earlier).toMatchObject({last_four: '3153', card_holder_name: 'Jana Jansen'})

    const requestApi = emulatorApi(await emulatorWith({assumptions: {cardRecord: 'request-names', idKeys: 'id'}}))
    const customer = (await requestApi.createCustomer()).body
    const named = (await requestApi.tokenize(customer.id, pan)).body
    expect(Object.keys(named).sort()).toEqual(['brand', 'created_at', 'customer', 'expiry_month', 'expiry_year', 'holder_name', 'id', 'last4', 'organisation'])
    expect(named).toMatchObject({last4: '3153', holder_name: 'Jana Jansen', customer: customer.id})
    for (const record of [earlier, named]) expect(JSON.stringify(record)).not.toContain(pan)
  })
})

describe('paytx emulator assumptions', () => {
  it('prints the one table docs/emulator.md holds', async () => {
    const page = readFileSync(join(ROOT, 'docs', 'emulator.md'), 'utf8')
    expect(page).toContain('## What the emulator assumes')
    expect(page).toContain(assumptionsMarkdownTable())

    const json = await runCli(['emulator', 'assumptions', '--json'])
    expect(json.code).toBe(0)
    expect(json.stderr).toBe('')
    const result = parseJsonOutput(json)
    expect(result.assumptions).toEqual(ASSUMPTIONS)
    expect(result.rule).toMatch(/must not break on any answer the spec allows/)

    const human = await runCli(['emulator', 'assumptions'])
    expect(human.code).toBe(0)
    for (const row of ASSUMPTIONS) {
      expect(human.stdout).toContain(row.topic)
      // The id emulator verify names it by, in --json and in its report.
      expect(human.stdout).toMatch(new RegExp(`^  id +${row.id}$`, 'm'))
      expect(human.stdout).toContain(row.choice)
      if (row.switch) expect(human.stdout).toContain(row.switch)
    }
  })
})
