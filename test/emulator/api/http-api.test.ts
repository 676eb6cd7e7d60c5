import {request as httpRequest} from 'node:http'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {CUSTOMER_EMPTY_FIELDS, CUSTOMER_REQUEST_FIELDS} from '../../../src/api/contract.js'
import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js'
import {emulatorApi} from '../../helpers/emulator-api.js'
import {CUSTOMER_FIELDS} from '../../helpers/fixtures.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const PAN = '4024007108173153'
const CVV = '987'

describe('emulator HTTP API', () => {
  let emulator: RunningEmulator
  let api: ReturnType<typeof emulatorApi>
  const log: string[] = []
  const texts: string[] = []

  beforeAll(async () => {
    emulator = await startEmulator({port: 0, maxBodyBytes: 4096, log: (line) => log.push(line)})
    api = emulatorApi(emulator)
  })
  afterAll(async () => {
    await emulator.close()
    // Nothing the emulator said, in any answer or log line, holds the PAN, the CVV or a key.
    for (const text of [...texts, ...log]) {
      expect(text).not.toContain(PAN)
      expect(text).not.toContain(`"${CVV}"`)
      expect(text).not.toContain(emulator.apiKey)
      expect(text).not.toContain(emulator.proxyKey)
    }
  })
  const keep = <T extends {text: string}>(answer: T) => {
    texts.push(answer.text)
    return answer
  }

  describe('POST /v1/customer', () => {
    it('returns the whole customer object: UUID id, the request echoed, empty strings, unverified, ms timestamps', async () => {
      const {status, body, headers} = keep(await api.createCustomer())
      expect(status).toBe(200)
      expect(headers.get('content-type')).toMatch(/^application\/json/)
      expect(body.id).toMatch(UUID)
      for (const field of CUSTOMER_REQUEST_FIELDS) expect(body[field]).toBe(field === 'organisation' ? emulator.organisation : (CUSTOMER_FIELDS as any)[field])
      for (const field of CUSTOMER_EMPTY_FIELDS) expect(body[field]).toBe('')
      expect(body.status).toBe('unverified')
      expect(body.created_at).toMatch(ISO_MS)
      expect(body.last_status_update).toMatch(ISO_MS)
    })

    it('returns unset optional request fields as empty strings', async () => {
      const {status, body} = await api.createCustomer({gender: undefined, initials: undefined, region: undefined, date_of_birth: undefined})
      expect(status).toBe(200)
      expect([body.gender, body.initials, body.region, body.date_of_birth]).toEqual(['', '', '', ''])
    })

    it('reports every invalid field at once, keyed body.<field>, with a 3-digit string code', async () => {
      const {status, body} = await api.createCustomer({title: 'dr', email_address: 'nope', phone_number: '0612', first_name: undefined})
      expect(status).toBe(400)
      expect(body.code).toBe('400')
      expect(typeof body.message).toBe('string')
      expect(Object.keys(body.details).sort()).toEqual(['body.email_address', 'body.first_name', 'body.phone_number', 'body.title'])
      expect(body.details['body.title']).toMatch(/mr, ms/)
    })

    it('rejects another organisation', async () => {
      const {status, body} = await api.createCustomer({organisation: '11111111-2222-3333-4444-555555555555'})
      expect(status).toBe(400)
      expect(body.details['body.organisation']).toContain(emulator.organisation)
    })

    it('answers 401 without the API key and with a wrong one, never echoing the key', async () => {
      const missing = keep(await api.post(`${emulator.url}/v1/customer`, CUSTOMER_FIELDS, {'content-type': 'application/json'}))
      expect(missing.status).toBe(401)
      expect(missing.body).toMatchObject({code: '401'})
      expect(missing.body.message).toContain('X-APIKEY')
      const wrong = await api.post(`${emulator.url}/v1/customer`, CUSTOMER_FIELDS, {'content-type': 'application/json', 'X-APIKEY': 'sk_wrong_key_given'})
      expect(wrong.status).toBe(401)
      expect(wrong.text).not.toContain('sk_wrong_key_given')
    })
  })

  describe('POST /h2h/tokenize/proxy/<PROXY_ID>', () => {
    it('returns a card under the earlier generation\'s names (id and _id, last_four, card_holder_name), never the PAN', async () => {
      const customer = (await api.createCustomer()).body
      const answer = keep(await api.tokenize(customer.id, PAN))
      expect(answer.status).toBe(200)
      expect(answer.body).toEqual({
        id: answer.body.id,
        _id: answer.body.id,
        brand: 'visa',
        card_holder_name: 'Jana Jansen',
        expiry_month: '12',
        expiry_year: '2031',
        last_four: '3153',
        organisation: emulator.organisation,
      })
      expect(answer.body.id).toMatch(UUID)
      expect(answer.body).not.toHaveProperty('pan')
    })

    it('accepts the key as Basic auth with user tx-proxy-key', async () => {
      const customer = (await api.createCustomer()).body
      const basic = Buffer.from(`tx-proxy-key:${emulator.proxyKey}`).toString('base64')
      const answer = await api.post(
        `${emulator.proxyUrl}/tokenize/proxy/${emulator.proxyId}`,
        {customer: customer.id, pan: PAN, holder_name: 'J J', expiry_month: '1', expiry_year: '2031'},
        {'content-type': 'application/json', authorization: `Basic ${basic}`},
      )
      expect(answer.status).toBe(200)
      expect(answer.body.expiry_month).toBe('01')
    })

    it('answers 401 for a missing or wrong proxy key, and never takes the API key', async () => {
      const url = `${emulator.proxyUrl}/tokenize/proxy/${emulator.proxyId}`
      const body = {customer: 'x', pan: PAN, holder_name: 'J', expiry_month: '12', expiry_year: '2031'}
      expect((await api.post(url, body, {'content-type': 'application/json'})).status).toBe(401)
      expect((await api.post(url, body, {'content-type': 'application/json', 'TX-Proxy-Key': 'pk_wrong'})).status).toBe(401)
      expect((await api.post(url, body, api.apiHeaders)).status).toBe(401)
      const wrongUser = Buffer.from(`someone:${emulator.proxyKey}`).toString('base64')
      expect((await api.post(url, body, {'content-type': 'application/json', authorization: `Basic ${wrongUser}`})).status).toBe(401)
    })

    it('answers 404 for an unknown proxy id', async () => {
      const answer = await api.post(`${emulator.proxyUrl}/tokenize/proxy/9999`, {}, {'content-type': 'application/json', 'TX-Proxy-Key': emulator.proxyKey})
      expect(answer.status).toBe(404)
      expect(answer.body.code).toBe('404')
    })

    it('validates Luhn, month, year, holder and the customer', async () => {
      const customer = (await api.createCustomer()).body
      const bad = keep(await api.tokenize('00000000-0000-4000-8000-000000000000', '4024007108173154', {expiry_month: '13', holder_name: ' '}))
      expect(bad.status).toBe(400)
      expect(Object.keys(bad.body.details).sort()).toEqual(['body.customer', 'body.expiry_month', 'body.holder_name', 'body.pan'])
      expect(bad.text).not.toContain('4024007108173154')
      const expired = await api.tokenize(customer.id, PAN, {expiry_year: '2001'})
      expect(expired.status).toBe(400)
      expect(expired.body.details['body.expiry_year']).toMatch(/past/)
    })
  })

  describe('POST /v1/transaction/start', () => {
    it('returns the initiated dummy transaction with every field and type of the spec', async () => {
      const {customer, transaction} = await api.startPayment('dummy')
      expect(transaction).toMatchObject({
        payment_profile: emulator.paymentProfileId,
        customer: customer.id,
        customer_ip: '203.0.113.7',
        dynamic_descriptor: 'Order 42',
        merchant_reference: 'order-42',
        user_agent: 'Mozilla/5.0 (test)',
        payment_product: 'dummy',
        payment_product_type: 'dummy',
        processor: 'dummy',
        amount: '1499',
        status: 'INITIATED',
      })
      expect(transaction.id).toMatch(UUID)
      expect(typeof transaction.amount).toBe('string')
      expect(transaction.created_at).toMatch(ISO_MS)
      expect(transaction.last_status_update).toMatch(ISO_MS)
      expect(transaction.details.redirect_url).toBe('https://shop.example/return?order=42')
      expect(transaction.details.approval_url).toBe(`${emulator.url}/v1/transaction/${transaction.id}/authorize`)
      expect(transaction.details.issuer).toMatch(/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/)
      expect(transaction.details).not.toHaveProperty('sender')
    })

    it('gives sofort a sender with the spec fields (only bank_name empty until a bank is picked) and transliterates the descriptor', async () => {
      const {transaction} = await api.startPayment('sofort')
      expect(Object.keys(transaction.details.sender).sort()).toEqual(['account_number', 'bank_code', 'bank_name', 'bic', 'country_code', 'holder', 'iban'])
      for (const [field, value] of Object.entries(transaction.details.sender)) expect(value === '', field).toBe(field === 'bank_name')
      expect(transaction.dynamic_descriptor).toBe('Order 42 Mueller')
      expect(transaction.details).not.toHaveProperty('issuer')
    })

    it('keeps the card and never echoes the CVV', async () => {
      const {card, transaction} = await api.startPayment('card', {cvv: true})
      expect(transaction.card).toBe(card)
      expect(transaction.details).not.toHaveProperty('card_cvv')
      const read = keep(await api.transaction(transaction.id))
      expect(read.body).toEqual(transaction)
      expect(read.text).not.toMatch(/cvv/i)
    })

    it('answers 400 with every problem keyed body.<path>', async () => {
      const customer = (await api.createCustomer()).body
      const answer = keep(
        await api.start({
          amount: '14.99',
          customer: customer.id,
          customer_ip: 'not-an-ip',
          payment_product: 'ideal',
          details: {redirect_url: '/relative', card_cvv: CVV},
          webhook_transaction_update: 'ftp://x',
        }),
      )
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe('400')
      expect(Object.keys(answer.body.details).sort()).toEqual([
        'body.amount',
        'body.customer_ip',
        'body.details.redirect_url',
        'body.payment_product',
        'body.webhook_transaction_update',
      ])
    })

    it.each([
      ['a float amount', {amount: 14.5}, 'body.amount'],
      ['a zero amount', {amount: 0}, 'body.amount'],
      ['an unknown customer', {customer: '00000000-0000-4000-8000-000000000000'}, 'body.customer'],
      ['an unknown payment profile', {payment_profile: '00000000-0000-4000-8000-000000000000'}, 'body.payment_profile'],
      ['no details', {details: undefined}, 'body.details'],
    ])('rejects %s', async (_name, change, key) => {
      const customer = (await api.createCustomer()).body
      const answer = await api.start({amount: 100, customer: customer.id, payment_product: 'dummy', details: {redirect_url: 'https://shop.example/r'}, ...change})
      expect(answer.status).toBe(400)
      expect(Object.keys(answer.body.details)).toContain(key)
    })

    it('checks the sofort descriptor rules together with the other problems', async () => {
      const customer = (await api.createCustomer()).body
      const answer = await api.start({amount: 'x', customer: customer.id, payment_product: 'sofort', dynamic_descriptor: 'Order_42!', details: {redirect_url: 'https://s.example/'}})
      expect(answer.status).toBe(400)
      expect(answer.body.details['body.dynamic_descriptor']).toMatch(/"_", "!"/)
      expect(answer.body.details).toHaveProperty('body.amount')
      const tooLong = await api.start({amount: 1, customer: customer.id, payment_product: 'sofort', dynamic_descriptor: 'x'.repeat(28), details: {redirect_url: 'https://s.example/'}})
      expect(tooLong.body.details['body.dynamic_descriptor']).toMatch(/27/)
    })

    it('needs a card of the same customer for the card product', async () => {
      const one = (await api.createCustomer()).body
      const other = (await api.createCustomer()).body
      const card = (await api.tokenize(other.id, PAN)).body
      const base = {amount: 100, customer: one.id, payment_product: 'card', details: {redirect_url: 'https://s.example/'}}
      expect((await api.start(base)).body.details).toHaveProperty('body.card')
      expect((await api.start({...base, card: '00000000-0000-4000-8000-000000000000'})).body.details['body.card']).toMatch(/tokenize/)
      expect((await api.start({...base, card: card.id})).body.details['body.card']).toMatch(/another customer/)
    })
  })

  describe('GET /v1/transaction/{id} and /checkoutsuccess', () => {
    it('returns the transaction and its success', async () => {
      const {transaction} = await api.startPayment('dummy')
      const read = await api.transaction(transaction.id)
      expect(read.status).toBe(200)
      expect(read.body).toEqual(transaction)
      const check = await api.checkoutSuccess(transaction.id)
      expect(check.status).toBe(200)
      expect(check.body).toEqual({status: 'INITIATED', status_reason: '', success: false})
    })

    it('answers 404 for an unknown id and 401 without a key', async () => {
      for (const path of ['/v1/transaction/nope', '/v1/transaction/nope/checkoutsuccess']) {
        const unknown = await api.get(path)
        expect(unknown.status).toBe(404)
        expect(unknown.body.code).toBe('404')
        expect((await api.get(path, {})).status).toBe(401)
      }
    })
  })

  describe('protocol errors', () => {
    it('answers 404 with the error object for an unknown path', async () => {
      for (const path of ['/v1/customers', '/v2/transaction/start', '/v1', '/h2h/tokenize']) {
        const answer = await api.get(path)
        expect(answer.status).toBe(404)
        expect(answer.body).toMatchObject({code: '404', details: {path: 'unknown path'}})
      }
    })

    it('answers 405 with Allow for a wrong method', async () => {
      const getStart = await api.get('/v1/transaction/start')
      expect(getStart.status).toBe(405)
      expect(getStart.headers.get('allow')).toBe('POST')
      expect(getStart.body.code).toBe('405')
      const postRead = await api.post(`${emulator.url}/v1/transaction/abc`, {})
      expect(postRead.status).toBe(405)
      expect(postRead.headers.get('allow')).toBe('GET')
      expect((await fetch(`${emulator.url}/v1/customer`, {method: 'DELETE', headers: api.apiHeaders})).status).toBe(405)
    })

    it('answers 415 for a body that is not JSON', async () => {
      const answer = await api.post(`${emulator.url}/v1/customer`, 'title=mr', {...api.apiHeaders, 'content-type': 'application/x-www-form-urlencoded'})
      expect(answer.status).toBe(415)
      expect(answer.body.code).toBe('415')
      const none = await fetch(`${emulator.url}/v1/customer`, {method: 'POST', headers: {'X-APIKEY': emulator.apiKey}, body: new Uint8Array([123, 125])})
      expect(none.status).toBe(415)
    })

    it('answers 400 for malformed JSON and an empty body, without a stack trace', async () => {
      for (const raw of ['{"amount": 1', '', 'null', '[1]']) {
        const answer = await api.post(`${emulator.url}/v1/transaction/start`, raw)
        expect(answer.status).toBe(400)
        expect(answer.body.code).toBe('400')
        expect(answer.text).not.toMatch(/\n\s+at |node:internal|\.ts:\d+/)
      }
    })

    it('answers 413 for a body over the limit, declared or chunked', async () => {
      const big = JSON.stringify({...CUSTOMER_FIELDS, region: 'x'.repeat(5000)})
      const declared = await api.post(`${emulator.url}/v1/customer`, big)
      expect(declared.status).toBe(413)
      expect(declared.body.code).toBe('413')
      const chunked = await new Promise<{status: number; body: string}>((resolve, reject) => {
        const url = new URL(`${emulator.url}/v1/customer`)
        const request = httpRequest(url, {method: 'POST', headers: {...api.apiHeaders, 'transfer-encoding': 'chunked'}}, (response) => {
          let body = ''
          response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
          response.on('end', () => resolve({status: response.statusCode ?? 0, body}))
        })
        request.on('error', reject)
        request.write(big.slice(0, 3000))
        setTimeout(() => request.end(big.slice(3000)), 20)
      })
      expect(chunked.status).toBe(413)
      expect(JSON.parse(chunked.body).code).toBe('413')
    })

    it('logs one line per request with method, path and status', () => {
      expect(log.some((line) => /POST \/v1\/customer {2}200 {2}\d+ms$/.test(line))).toBe(true)
      expect(log.some((line) => /GET {2}\/v1\/transaction\/start {2}405/.test(line))).toBe(true)
    })
  })
})

describe('emulator options', () => {
  it('takes the API key in a configured header and serves the health document', async () => {
    const emulator = await startEmulator({port: 0, apiKey: 'custom_key_1234567890', apiKeyHeader: 'Authorization-Key'})
    try {
      const ok = await fetch(`${emulator.url}/v1/transaction/x`, {headers: {'authorization-key': 'custom_key_1234567890'}})
      expect(ok.status).toBe(404)
      const old = await fetch(`${emulator.url}/v1/transaction/x`, {headers: {'x-apikey': 'custom_key_1234567890'}})
      expect(old.status).toBe(401)
      const health = await (await fetch(`${emulator.url}/_emulator/health`)).json()
      expect(health).toMatchObject({status: 'ok', url: emulator.url, proxy_url: emulator.proxyUrl, payment_profile: emulator.paymentProfileId})
      expect(JSON.stringify(health)).not.toContain('custom_key_1234567890')
    } finally {
      await emulator.close()
    }
  })

  it('refuses a port that is in use with a clear error, an input error as for every local server', async () => {
    const first = await startEmulator({port: 0})
    try {
      await expect(startEmulator({port: first.port})).rejects.toMatchObject({
        name: 'ListenError',
        problem: 'port-in-use',
        exitCode: 2,
        message: expect.stringContaining(`Port ${first.port}`),
      })
    } finally {
      await first.close()
    }
  })
})
