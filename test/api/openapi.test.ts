/**
 * The service's contract as an OpenAPI 3.1 document (src/api/openapi.ts): a real OpenAPI
 * validator takes it, the copy shipped in schemas/ is the one the code makes, and the emulator's
 * answers and webhooks, for every endpoint and each error, conform to it.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {Validator} from '@seriousme/openapi-schema-validator'
import {Ajv2020} from 'ajv/dist/2020.js'
import formats from 'ajv-formats'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {openApiDocument} from '../../src/api/openapi.js'
import {FINAL_STATUSES, STATUSES, SUCCESS_STATUSES} from '../../src/api/contract.js'
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {ROOT} from '../helpers/cli.js'
import {emulatorApi} from '../helpers/emulator-api.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {waitFor} from '../helpers/wait-for.js'

const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string
const DOCUMENT = openApiDocument(VERSION) as any

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 for a real validator', async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(DOCUMENT))
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
    // The validator does find what is wrong: a path's answer without its description.
    const broken = structuredClone(DOCUMENT)
    delete broken.paths['/v1/customer'].post.responses['200'].description
    expect((await new Validator().validate(broken)).valid).toBe(false)
  })

  it('is the copy shipped in the package (npm run schema writes it)', () => {
    expect(JSON.parse(readFileSync(join(ROOT, 'schemas', 'openapi.json'), 'utf8'))).toEqual(DOCUMENT)
  })

  it('has every endpoint, the webhook, and the contract’s statuses with the final and success sets', () => {
    expect(Object.keys(DOCUMENT.paths)).toEqual(['/v1/customer', '/v1/transaction/start', '/v1/transaction/{id}', '/v1/transaction/{id}/checkoutsuccess', '/tokenize/proxy/{proxyId}'])
    expect(Object.keys(DOCUMENT.webhooks)).toEqual(['transactionUpdate'])
    expect(DOCUMENT.components.schemas.TransactionStatus).toMatchObject({enum: [...STATUSES], 'x-final-statuses': [...FINAL_STATUSES], 'x-success-statuses': [...SUCCESS_STATUSES]})
    expect(DOCUMENT.components.schemas.TransactionStartRequest.required).toEqual(expect.arrayContaining(['amount', 'customer', 'payment_product', 'details']))
    expect(DOCUMENT.components.schemas.CustomerRequest.properties.title).toMatchObject({enum: ['mr', 'ms']})
  })
})

describe('docs/emulator.md’s request bodies', () => {
  it('are the three requests, each valid by the document', () => {
    const page = readFileSync(join(ROOT, 'docs', 'emulator.md'), 'utf8')
    const section = page.slice(page.indexOf('**The request bodies**'))
    const bodies = [...section.matchAll(/```json\n([\s\S]*?)```/g)].slice(0, 3).map((match) => JSON.parse(match[1]))
    const ajv = new Ajv2020({strict: false, allErrors: true})
    formats.default(ajv)
    ajv.addSchema({...DOCUMENT, $id: 'paytx-openapi'}, 'paytx-openapi')
    ;['CustomerRequest', 'CardRequest', 'TransactionStartRequest'].forEach((name, index) => {
      const validate = ajv.getSchema(`paytx-openapi#/components/schemas/${name}`)!
      expect(validate(bodies[index]), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true)
      const required = DOCUMENT.components.schemas[name].required as string[]
      expect(Object.keys(bodies[index])).toEqual(expect.arrayContaining(required))
    })
  })
})

describe('the emulator answers as the document says', () => {
  let emulator: RunningEmulator
  let receiver: RecordingServer
  let api: ReturnType<typeof emulatorApi>
  const ajv = new Ajv2020({strict: false, allErrors: true})
  // ajv-formats is CommonJS: its plugin is the module's default export.
  formats.default(ajv)
  ajv.addSchema({...DOCUMENT, $id: 'paytx-openapi'}, 'paytx-openapi')

  /** The schema of an operation's answer with this status, checked against the body. */
  function problems(path: string, method: string, status: number, body: unknown): string[] {
    const response = DOCUMENT.paths[path][method].responses[String(status)]
    if (!response) return [`the document has no ${status} answer for ${method.toUpperCase()} ${path}`]
    const name = response.content['application/json'].schema.$ref.split('/').pop()
    const validate = ajv.getSchema(`paytx-openapi#/components/schemas/${name}`)!
    return validate(body) ? [] : (validate.errors ?? []).map((error: {instancePath: string; message?: string}) => `${error.instancePath} ${error.message}`)
  }

  beforeAll(async () => {
    receiver = await startRecordingServer(() => ({status: 200, json: {}}))
    emulator = await startEmulator({port: 0, store: ':memory:', settleAfterMs: 0, webhookUrl: `${receiver.url}/hooks`})
    api = emulatorApi(emulator)
  })
  afterAll(async () => {
    await emulator.close()
    await receiver.close()
  })

  it.each(['card', 'sofort', 'dummy'] as const)('%s: customer, card, start, status and checkoutsuccess', async (product) => {
    const customer = await api.createCustomer()
    expect(problems('/v1/customer', 'post', customer.status, customer.body)).toEqual([])
    if (product === 'card') {
      const card = await api.tokenize(customer.body.id, '4024007108173153')
      expect(problems('/tokenize/proxy/{proxyId}', 'post', card.status, card.body)).toEqual([])
    }
    const {transaction} = await api.startPayment(product)
    expect(problems('/v1/transaction/start', 'post', 200, transaction)).toEqual([])
    const read = await api.transaction(transaction.id)
    expect(problems('/v1/transaction/{id}', 'get', read.status, read.body)).toEqual([])
    const success = await api.checkoutSuccess(transaction.id)
    expect(problems('/v1/transaction/{id}/checkoutsuccess', 'get', success.status, success.body)).toEqual([])
  })

  it('the errors: 400 with details, 401, 404', async () => {
    const invalid = await api.start({amount: 0, payment_product: 'dummy'})
    expect(invalid.status).toBe(400)
    expect(problems('/v1/transaction/start', 'post', 400, invalid.body)).toEqual([])
    const badCustomer = await api.createCustomer({email_address: 'not an address'})
    expect(problems('/v1/customer', 'post', badCustomer.status, badCustomer.body)).toEqual([])
    const refused = await api.get('/v1/transaction/9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c', {'X-APIKEY': 'sk_wrong'})
    expect(problems('/v1/transaction/{id}', 'get', refused.status, refused.body)).toEqual([])
    const unknown = await api.transaction('9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c')
    expect(problems('/v1/transaction/{id}', 'get', unknown.status, unknown.body)).toEqual([])
    const unknownCheckout = await api.checkoutSuccess('9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c')
    expect(problems('/v1/transaction/{id}/checkoutsuccess', 'get', unknownCheckout.status, unknownCheckout.body)).toEqual([])
    expect([refused.status, unknown.status, unknownCheckout.status]).toEqual([401, 404, 404])
  })

  it('its webhooks carry the body the document gives', async () => {
    const {transaction} = await api.startPayment('dummy')
    await api.approve(transaction.details.approval_url, {outcome: 'SETTLEMENT_COMPLETED'})
    await waitFor(() => receiver.requests.filter((request) => request.body?.id === transaction.id).length >= 2, 'two webhooks of the transaction')
    const webhook = ajv.getSchema('paytx-openapi#/components/schemas/TransactionWebhook')!
    for (const request of receiver.requests) expect(webhook(request.body), JSON.stringify(webhook.errors)).toBe(true)
  })
})
