/**
 * One `request` event per request, answered within the call (a status read, an error) or later (a
 * write, which reads its body first), with its method, its path without the query, its status and
 * the time it came in.
 */
import {afterEach, describe, expect, it} from 'vitest'

import {type EmulatorEvent, type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {emulatorApi} from '../helpers/emulator-api.js'
import {ManualClock} from '../helpers/manual-clock.js'

let emulator: RunningEmulator | undefined
afterEach(async () => {
  await emulator?.close()
  emulator = undefined
})

describe('request events', () => {
  it('are reported once per request, as answered, whether the answer came within the call or later', async () => {
    const clock = new ManualClock(Date.parse('2026-03-02T10:00:00.000Z'))
    const events: EmulatorEvent[] = []
    emulator = await startEmulator({
      port: 0,
      clock,
      onEvent: (event) => events.push(event),
    })
    const api = emulatorApi(emulator)
    const requests = () => events.filter((event) => event.event === 'request')

    // Writes: answered after the call returned, once their bodies are read.
    const customer = await api.createCustomer()
    expect(customer.status).toBe(200)
    clock.advance(1)
    const started = await api.start({amount: 1499, customer: customer.body.id, payment_product: 'dummy', details: {redirect_url: 'https://shop.example/back'}})
    expect(started.status).toBe(200)
    clock.advance(1)
    // Answered within the call: a status read, its query left out of the event; a path that is not there.
    expect((await api.get(`/v1/transaction/${started.body.id}?key=not-for-the-log`)).status).toBe(200)
    expect((await api.get('/v1/nothing-here')).status).toBe(404)

    expect(requests()).toEqual([
      {event: 'request', time: '2026-03-02T10:00:00.000Z', method: 'POST', path: '/v1/customer', status: 200, duration_ms: expect.any(Number)},
      {event: 'request', time: '2026-03-02T10:00:00.001Z', method: 'POST', path: '/v1/transaction/start', status: 200, duration_ms: expect.any(Number)},
      {event: 'request', time: '2026-03-02T10:00:00.002Z', method: 'GET', path: `/v1/transaction/${started.body.id}`, status: 200, duration_ms: expect.any(Number)},
      {event: 'request', time: '2026-03-02T10:00:00.002Z', method: 'GET', path: '/v1/nothing-here', status: 404, duration_ms: expect.any(Number)},
    ])
  })
})
