import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js'
import {emulatorApi} from '../../helpers/emulator-api.js'
import {CUSTOMER_FIELDS} from '../../helpers/fixtures.js'

/** Nothing a client sends stops the emulator: a body nested too deep gets the service's 400 error object. */
describe('emulator: bodies nested too deep', () => {
  let emulator: RunningEmulator
  let api: ReturnType<typeof emulatorApi>

  beforeAll(async () => {
    emulator = await startEmulator({port: 0})
    api = emulatorApi(emulator)
  })
  afterAll(() => emulator.close())

  const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`

  it.each([
    ['customer', () => `${emulator.url}/v1/customer`, () => JSON.stringify({...CUSTOMER_FIELDS, organisation: emulator.organisation}).replace(/}$/, `,"extra":${deep(5000)}}`)],
    ['transaction start', () => `${emulator.url}/v1/transaction/start`, () => `{"payment_product":"dummy","amount":1,"customer":"x","details":{"redirect_url":"https://a.example/","x":${deep(5000)}}}`],
  ])('%s: 400 with the error object, and the emulator keeps answering', async (_name, url, body) => {
    const answer = await api.post(url(), body())
    expect(answer.status).toBe(400)
    expect(answer.body).toEqual({code: '400', message: 'The request body is nested deeper than 100 levels.', details: {body: 'must not nest deeper than 100 levels'}})
    expect((await api.createCustomer()).status).toBe(200)
  })
})
