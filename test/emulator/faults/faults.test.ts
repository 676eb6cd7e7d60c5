import {mkdtempSync, readFileSync} from 'node:fs'
import {request} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterEach, describe, expect, it} from 'vitest'

import {type EmulatorEvent, type RunningEmulator, startEmulator} from '../../../src/emulator/index.js'
import {FAULT_KINDS, FAULT_KIND_TABLE, type FaultRule, FaultRules, REQUEST_FAULTS, faultFileKeysAt, faultRuleSchema} from '../../../src/emulator/faults/index.js'
import {emulatorApi} from '../../helpers/emulator-api.js'
import {type RecordingServer, startRecordingServer} from '../../helpers/recording-server.js'
import {waitFor} from '../../helpers/wait-for.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function setup(rules: FaultRule[] = [], options: {seed?: number; settleAfterMs?: number} = {}) {
  const receiver: RecordingServer = await startRecordingServer(() => ({status: 200, json: {received: true}}))
  cleanups.push(() => receiver.close())
  const events: EmulatorEvent[] = []
  const lines: string[] = []
  const emulator: RunningEmulator = await startEmulator({
    port: 0,
    settleAfterMs: options.settleAfterMs ?? 60_000,
    webhookUrl: `${receiver.url}/hooks`,
    webhookBackoffMs: 20,
    faults: {rules, seed: options.seed ?? 1},
    // These tests tell deliveries apart by the status in their bodies.
    assumptions: {webhookPayload: 'full'},
    onEvent: (event) => events.push(event),
    log: (line) => lines.push(line),
  })
  cleanups.push(() => emulator.close())
  const faultEvents = () => events.filter((event) => event.event === 'fault') as Extract<EmulatorEvent, {event: 'fault'}>[]
  return {receiver, emulator, api: emulatorApi(emulator), events, lines, faultEvents}
}

/** A raw GET that reports how the connection ended: the status and bytes read, or the socket error. */
function rawGet(url: string, headers: Record<string, string>): Promise<{status?: number; declaredLength?: number; body: string; error?: string}> {
  return new Promise((resolve) => {
    let status: number | undefined
    let declaredLength: number | undefined
    let body = ''
    const req = request(url, {headers, agent: false}, (res) => {
      status = res.statusCode
      declaredLength = Number(res.headers['content-length'])
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({status, declaredLength, body}))
      res.on('error', (error: NodeJS.ErrnoException) => resolve({status, declaredLength, body, error: error.code ?? error.message}))
    })
    req.on('error', (error: NodeJS.ErrnoException) => resolve({status, declaredLength, body, error: error.code ?? error.message}))
    req.end()
  })
}

describe('request faults', () => {
  it('status: the service error object and Retry-After, for the next N matches only, then normal answers', async () => {
    const {api, emulator, faultEvents, lines} = await setup([
      {fault: 'status', request: {method: 'GET', path: '/v1/transaction/*'}, status: 503, retry_after: '1500ms', times: 2, name: 'busy'},
    ])
    const {transaction} = await api.startPayment('dummy')
    const first = await api.transaction(transaction.id)
    expect(first.status).toBe(503)
    expect(first.headers.get('retry-after')).toBe('2')
    expect(first.body).toEqual({code: '503', message: expect.stringContaining('503 Service Unavailable'), details: {}})
    expect((await api.transaction(transaction.id)).status).toBe(503)
    const third = await api.transaction(transaction.id)
    expect(third.status).toBe(200)
    expect(third.body.id).toBe(transaction.id)
    // Not matched: another path, another method.
    expect((await api.checkoutSuccess(transaction.id)).status).toBe(200)
    expect(faultEvents()).toHaveLength(2)
    expect(faultEvents()[0]).toMatchObject({rule: 'f1', name: 'busy', fault: 'status', on: 'request', method: 'GET', path: `/v1/transaction/${transaction.id}`})
    expect(lines.some((line) => line.includes(`fault f1 (busy) status on GET /v1/transaction/${transaction.id}: answered 503 Service Unavailable with Retry-After 2`))).toBe(true)
    const list = (await (await fetch(`${emulator.url}/_emulator/faults`)).json()) as any
    expect(list.rules[0]).toMatchObject({id: 'f1', hits: 2, matched: 3, remaining: 0})
  })

  it('latency: the answer comes after the added time, and is the normal one', async () => {
    const {api} = await setup([{fault: 'latency', request: {path: '/v1/customer'}, latency: '400ms'}])
    const started = performance.now()
    const created = await api.createCustomer()
    expect(performance.now() - started).toBeGreaterThanOrEqual(390)
    expect(created.status).toBe(200)
    expect(created.body.id).toBeTruthy()
  })

  it('reset: the connection closes without an answer, and the request is not carried out', async () => {
    const {api, emulator} = await setup([{fault: 'reset', request: {method: 'POST', path: '/v1/transaction/start'}, times: 1}])
    await expect(api.startPayment('dummy')).rejects.toThrow()
    const answer = await rawGet(`${emulator.url}/v1/transaction/start`, api.apiHeaders)
    expect(answer.error === undefined ? answer.status : 'error').toBe(405)
    // The rule is used up: the next start goes through.
    await expect(api.startPayment('dummy')).resolves.toBeTruthy()
  })

  it('cut_body: the headers and half of the body, then the connection closes; the request was carried out', async () => {
    const {api, emulator} = await setup()
    const {transaction} = await api.startPayment('dummy')
    await api.post(`${emulator.url}/_emulator/faults`, {fault: 'cut_body', request: {path: '/v1/transaction/*'}})
    const cut = await rawGet(`${emulator.url}/v1/transaction/${transaction.id}`, api.apiHeaders)
    expect(cut.status).toBe(200)
    expect(cut.error).toBeDefined()
    expect(cut.body.length).toBe(Math.floor(cut.declaredLength! / 2))
    expect(() => JSON.parse(cut.body)).toThrow()
  })

  it('matches by product, amount and merchant reference: from the start body, then from the stored transaction', async () => {
    const {api, faultEvents} = await setup([{fault: 'status', request: {product: 'dummy', amount: 1499, merchant_reference: 'flaky-*'}, status: 500}])
    const untouched = await api.startPayment('dummy')
    expect((await api.transaction(untouched.transaction.id)).status).toBe(200)
    await expect(api.startPayment('dummy', {extra: {merchant_reference: 'flaky-1'}})).rejects.toThrow(/start failed: 500/)
    expect(faultEvents()).toHaveLength(1)
    const other = await api.startPayment('dummy', {extra: {merchant_reference: 'flaky-2', amount: 1500}})
    expect((await api.transaction(other.transaction.id)).status).toBe(200)
  })

  it('never faults the emulator\'s own routes', async () => {
    const {emulator} = await setup([{fault: 'status', status: 500}])
    expect((await fetch(`${emulator.url}/_emulator/health`)).status).toBe(200)
    expect((await fetch(`${emulator.url}/v1/transaction/x`)).status).toBe(500)
  })
})

describe('webhook faults', () => {
  const statuses = (receiver: RecordingServer) => receiver.requests.map((req) => req.body?.status)

  it('drop: never sent, recorded as dropped by the rule, not retried; later webhooks still go', async () => {
    const {api, emulator, receiver, faultEvents} = await setup([{fault: 'drop', webhook: {status: 'INITIATED'}}], {settleAfterMs: 0})
    const {transaction} = await api.startPayment('dummy')
    await api.approve(transaction.details.approval_url, {outcome: 'SETTLEMENT_COMPLETED'})
    await waitFor(() => statuses(receiver).includes('SETTLEMENT_COMPLETED'), 'the final webhook')
    expect(statuses(receiver)).not.toContain('INITIATED')
    const log = (await (await fetch(`${emulator.url}/_emulator/webhooks?transaction=${transaction.id}`)).json()) as any
    const dropped = log.deliveries.find((delivery: any) => delivery.status === 'INITIATED')
    expect(dropped).toMatchObject({state: 'dropped', attempts: [{attempt: 1, fault: 'drop by f1'}]})
    // Dropped is a final state with its one attempt: nothing is left to retry it.
    expect(faultEvents()).toEqual([expect.objectContaining({fault: 'drop', on: 'webhook', transaction: transaction.id, status: 'INITIATED'})])
  })

  it('duplicate: the receiver gets the same body twice', async () => {
    const {api, receiver, faultEvents} = await setup([{fault: 'duplicate', webhook: {status: 'INITIATED'}}])
    await api.startPayment('dummy')
    const got = await waitFor(() => (receiver.requests.length === 2 ? receiver.requests : undefined), 'two deliveries')
    expect(got[0].rawBody).toBe(got[1].rawBody)
    await waitFor(() => faultEvents().length === 1, 'the fault event')
    expect(faultEvents()[0].effect).toBe('sent twice: HTTP 200, then HTTP 200')
  })

  it('out_of_order: held back until the next webhook of the transaction has been sent', async () => {
    const {api, receiver, faultEvents} = await setup([{fault: 'out_of_order', webhook: {status: 'INITIATED'}}], {settleAfterMs: 0})
    const {transaction} = await api.startPayment('dummy')
    // The emulator says when it holds the webhook back: from then on, nothing is sent until the next one.
    await waitFor(() => faultEvents().length === 1, 'the hold')
    expect(faultEvents()[0].effect).toMatch(/^held back until the transaction's next webhook is sent/)
    expect(receiver.requests).toHaveLength(0)
    await api.approve(transaction.details.approval_url, {outcome: 'SETTLEMENT_COMPLETED'})
    await waitFor(() => statuses(receiver).includes('SETTLEMENT_COMPLETED'), 'the final webhook')
    const got = statuses(receiver)
    // The next webhook went first, then the held one, then the rest in order.
    expect(got[0]).not.toBe('INITIATED')
    expect(got[1]).toBe('INITIATED')
    expect(got.filter((status) => status === 'INITIATED')).toHaveLength(1)
  })

  it('out_of_order: goes out anyway after hold_at_most when no later webhook comes', async () => {
    const {api, receiver} = await setup([{fault: 'out_of_order', webhook: {status: 'INITIATED'}, hold_at_most: '300ms'}])
    const started = Date.now()
    await api.startPayment('dummy')
    await waitFor(() => receiver.requests.length === 1, 'the held webhook')
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
  })

  it('delay: sent once, that much later', async () => {
    const {api, receiver, emulator} = await setup([{fault: 'delay', webhook: {}, delay: '500ms', times: 1}])
    const started = Date.now()
    const {transaction} = await api.startPayment('dummy')
    await waitFor(() => receiver.requests.length === 1, 'the delayed webhook')
    expect(Date.now() - started).toBeGreaterThanOrEqual(490)
    const deliveries = async () => ((await (await fetch(`${emulator.url}/_emulator/webhooks?transaction=${transaction.id}`)).json()) as any).deliveries
    await waitFor(async () => (await deliveries())[0].state === 'delivered', 'delivered')
    // Delivered is final, after one attempt: the emulator's own record shows it was sent once.
    const [delivery, ...others] = await deliveries()
    expect(others).toHaveLength(0)
    expect(delivery.attempts).toHaveLength(1)
    expect(receiver.requests).toHaveLength(1)
  })
})

describe('faults and the durable outbox', () => {
  it('a held and a delayed delivery stay in the store and go out from the next emulator; a dropped one never does', async () => {
    const receiver = await startRecordingServer(() => ({status: 200, json: {received: true}}))
    cleanups.push(() => receiver.close())
    const store = join(mkdtempSync(join(tmpdir(), 'paytx-faults-store-')), 'emulator.db')
    const options = {port: 0, store, settleAfterMs: 60_000, webhookUrl: `${receiver.url}/hooks`, webhookBackoffMs: 20}
    const first = await startEmulator({
      ...options,
      faults: {
        rules: [
          {fault: 'drop', webhook: {merchant_reference: 'drop-me'}},
          {fault: 'delay', webhook: {merchant_reference: 'later'}, delay: '600ms'},
          {fault: 'out_of_order', webhook: {merchant_reference: 'held'}, hold_at_most: '600ms'},
        ],
      },
    })
    const api = emulatorApi(first)
    const ids: Record<string, string> = {}
    for (const reference of ['drop-me', 'later', 'held']) ids[reference] = (await api.startPayment('dummy', {extra: {merchant_reference: reference}})).transaction.id
    const states = async (emulator: RunningEmulator) =>
      Object.fromEntries(((await (await fetch(`${emulator.url}/_emulator/webhooks`)).json()) as any).deliveries.map((delivery: any) => [delivery.transaction, delivery.state]))
    expect(await waitFor(async () => {
      const now = await states(first)
      return now[ids['drop-me']] === 'dropped' && now[ids.held] === 'held' ? now : undefined
    }, 'the faults to be stored')).toMatchObject({[ids.later]: 'pending'})
    await first.close()
    expect(receiver.requests).toHaveLength(0)

    // No rules in the next emulator: what the first one stored is carried out all the same.
    const second = await startEmulator(options)
    cleanups.push(() => second.close())
    await waitFor(() => receiver.requests.length === 2, 'the delayed and the held webhook', 10_000)
    expect(receiver.requests.map((req) => req.body._id ?? req.body.id).sort()).toEqual([ids.later, ids.held].sort())
    const after = await states(second)
    expect(after).toEqual({[ids['drop-me']]: 'dropped', [ids.later]: 'delivered', [ids.held]: 'delivered'})
  })
})

describe('probabilities under a seed', () => {
  const rule: FaultRule = {fault: 'status', request: {method: 'GET', path: '/v1/transaction/*'}, status: 503, probability: 0.5}

  function hitsOf(seed: number): boolean[] {
    const rules = new FaultRules(seed)
    rules.add(rule)
    return Array.from({length: 40}, () => rules.forRequest({method: 'GET', path: '/v1/transaction/x'}) !== undefined)
  }

  it('the same seed gives the same hits; another seed others', () => {
    expect(hitsOf(42)).toEqual(hitsOf(42))
    expect(hitsOf(42)).not.toEqual(hitsOf(43))
    const count = hitsOf(42).filter(Boolean).length
    expect(count).toBeGreaterThan(8)
    expect(count).toBeLessThan(32)
  })

  it('a running emulator answers the same requests with the same faults under the same seed', async () => {
    const run = async (seed: number) => {
      const {api, emulator} = await setup([rule], {seed})
      const {transaction} = await api.startPayment('dummy')
      const answers: number[] = []
      for (let i = 0; i < 16; i++) answers.push((await api.transaction(transaction.id)).status)
      await emulator.close()
      return answers
    }
    const first = await run(7)
    expect(first).toContain(503)
    expect(first).toContain(200)
    expect(await run(7)).toEqual(first)
  })

  it('rules are tried in order; only the first that applies counts a hit', () => {
    const rules = new FaultRules(1)
    const never = rules.add({fault: 'status', request: {method: 'POST'}, status: 500})
    const first = rules.add({fault: 'status', status: 502, times: 1})
    const second = rules.add({fault: 'status', status: 503})
    expect(rules.forRequest({method: 'GET', path: '/v1/customer'})?.id).toBe(first.id)
    expect(rules.forRequest({method: 'GET', path: '/v1/customer'})?.id).toBe(second.id)
    expect([never.hits, first.hits, second.hits]).toEqual([0, 1, 1])
    expect(first.matched).toBe(2)
  })
})

describe('/_emulator/faults', () => {
  it('adds (API key required), lists with counts, removes one and clears', async () => {
    const {emulator, api} = await setup()
    const url = `${emulator.url}/_emulator/faults`
    const refused = await api.post(url, {fault: 'reset'}, {'content-type': 'application/json'})
    expect(refused.status).toBe(401)
    const invalid = await api.post(url, {fault: 'status', status: 200, request: {verb: 'GET'}})
    expect(invalid.status).toBe(400)
    expect(invalid.body.details).toMatchObject({'body.status': 'must be an HTTP status from 400 to 599'})
    expect(Object.keys(invalid.body.details)).toContain('body.request')
    const unknown = await api.post(url, {fault: 'explode'})
    expect(unknown.body.details.body ?? unknown.body.details['body.fault']).toMatch(/must be one of status, latency, reset, cut_body, drop, duplicate, out_of_order, delay/)

    const added = await api.post(url, {seed: 99, rules: [{fault: 'reset', name: 'a'}, {fault: 'drop'}]})
    expect(added.status).toBe(200)
    expect(added.body).toMatchObject({seed: 99, added: [{id: 'f1', name: 'a', fault: 'reset', hits: 0}, {id: 'f2', fault: 'drop'}]})
    const single = await api.post(url, {fault: 'latency', latency: 1})
    expect(single.body.added[0].id).toBe('f3')

    const listed = (await api.get('/_emulator/faults', {})).body
    expect(listed.seed).toBe(99)
    expect(listed.rules.map((rule: any) => rule.id)).toEqual(['f1', 'f2', 'f3'])

    const removeOne = await fetch(`${url}/f2`, {method: 'DELETE', headers: api.apiHeaders})
    expect(await removeOne.json()).toEqual({removed: 1, id: 'f2'})
    expect((await fetch(`${url}/f2`, {method: 'DELETE', headers: api.apiHeaders})).status).toBe(404)
    expect((await fetch(url, {method: 'DELETE'})).status).toBe(401)
    expect(await (await fetch(url, {method: 'DELETE', headers: api.apiHeaders})).json()).toEqual({removed: 2})
    expect((await api.get('/_emulator/faults', {})).body.rules).toEqual([])
  })
})

describe('the table of fault kinds', () => {
  it('gives every kind a rule of its own fields on its side (request: or webhook:), and a test of its effect in this file', () => {
    const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8')
    for (const kind of FAULT_KINDS) {
      const entry = FAULT_KIND_TABLE[kind]
      expect(faultFileKeysAt(['rules', 0], {fault: kind})).toEqual(['fault', entry.on, ...Object.keys(entry.fields), 'name', 'times', 'probability'])
      expect(REQUEST_FAULTS.includes(kind as never)).toBe(entry.on === 'request')
      expect(faultRuleSchema.safeParse({fault: kind, [entry.on === 'request' ? 'webhook' : 'request']: {}}).success).toBe(false)
      expect(thisFile).toContain(`it('${kind}: `)
    }
  })
})

