import {mkdtempSync, readFileSync} from 'node:fs'
import {Agent, request} from 'node:http'
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

describe('faults stay where they were aimed', () => {
  /** GETs `paths` at `concurrency` with `get`; the paths whose request failed, one entry per failure. */
  async function failedPaths(paths: string[], concurrency: number, get: (path: string) => Promise<unknown>): Promise<string[]> {
    const failed: string[] = []
    const queue = [...paths]
    const worker = async () => {
      for (let path = queue.shift(); path !== undefined; path = queue.shift()) {
        await get(path).catch(() => failed.push(path))
      }
    }
    await Promise.all(Array.from({length: concurrency}, worker))
    return failed.sort()
  }

  /** A GET on a keep-alive agent that rejects unless the whole body arrived as JSON. */
  function keepAliveGet(agent: Agent, url: string, headers: Record<string, string>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const req = request(url, {agent, headers}, (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (body += chunk))
        res.on('end', () => {
          try {
            resolve(JSON.parse(body))
          } catch (error) {
            reject(error)
          }
        })
        res.on('error', reject)
      })
      req.on('error', reject)
      req.end()
    })
  }

  it('reset and cut_body end only the requests they matched, each with its fault event, on keep-alive connections', async () => {
    const {api, emulator, faultEvents} = await setup([], {seed: 5})
    const ids: string[] = []
    for (let n = 0; n < 30; n++) ids.push((await api.start({payment_profile: emulator.paymentProfileId, amount: 1499, payment_product: 'dummy', merchant_reference: `aim-${n}`, details: {redirect_url: 'https://shop.example/back'}})).body.id)
    await api.post(`${emulator.url}/_emulator/faults`, {rules: [
      {fault: 'reset', name: 'cut-line', request: {method: 'GET', path: '/v1/transaction/*'}, probability: 0.2},
      {fault: 'cut_body', name: 'half-body', request: {method: 'GET', path: '/v1/transaction/*/checkoutsuccess'}, probability: 0.2},
      {fault: 'latency', name: 'slow', request: {method: 'GET'}, latency: '5ms', probability: 0.2},
    ]})
    const paths = Array.from({length: 4}, () => ids.flatMap((id) => [`/v1/transaction/${id}`, `/v1/transaction/${id}/checkoutsuccess`])).flat()
    const faultedPaths = () => faultEvents().filter((event) => event.fault !== 'latency').map((event) => event.path!).sort()

    const viaFetch = await failedPaths(paths, 16, async (path) => {
      const response = await fetch(`${emulator.url}${path}`, {headers: api.apiHeaders})
      return response.json()
    })
    expect(viaFetch.length).toBeGreaterThan(20)
    expect(viaFetch).toEqual(faultedPaths())

    const agent = new Agent({keepAlive: true, maxSockets: 4})
    const before = faultEvents().length
    const viaAgent = await failedPaths(paths, 16, (path) => keepAliveGet(agent, `${emulator.url}${path}`, api.apiHeaders))
    agent.destroy()
    expect(viaAgent.length).toBeGreaterThan(20)
    expect(viaAgent).toEqual(faultEvents().slice(before).filter((event) => event.fault !== 'latency').map((event) => event.path!).sort())
    expect(faultEvents().every((event) => event.name !== undefined)).toBe(true)
  })

  it('a reset or cut_body on a start request ends that request only, with its event, while others post beside it', async () => {
    const {api, emulator, faultEvents} = await setup([
      {fault: 'reset', name: 'no-answer', request: {method: 'POST', merchant_reference: 'reset-*'}},
      {fault: 'cut_body', name: 'half', request: {method: 'POST', merchant_reference: 'cut-*'}},
    ])
    const references = Array.from({length: 240}, (_, n) => `${['reset', 'cut', 'fine', 'fine'][n % 4]}-${n}`)
    const post = (reference: string) => async () => {
      const response = await fetch(`${emulator.url}/v1/transaction/start`, {
        method: 'POST',
        headers: api.apiHeaders,
        body: JSON.stringify({payment_profile: emulator.paymentProfileId, amount: 1499, payment_product: 'dummy', merchant_reference: reference, details: {redirect_url: 'https://shop.example/back'}}),
      })
      return response.json()
    }
    const failed = await failedPaths(references, 16, (reference) => post(reference)())
    expect(failed).toEqual(references.filter((reference) => !reference.startsWith('fine')).sort())
    expect(faultEvents().map((event) => event.name).sort()).toEqual(failed.map((reference) => (reference.startsWith('reset') ? 'no-answer' : 'half')).sort())
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
    return Array.from({length: 40}, (_, n) => rules.forRequest({method: 'GET', path: '/v1/transaction/x', key: `GET transaction ${n % 8}`}) !== undefined)
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

  it('a draw depends on the seed, the rule, the key and its attempt only, never on what came before', () => {
    const keys = Array.from({length: 60}, (_, n) => `POST /v1/transaction/start merchant_reference order-${n}`)
    const faulted = (order: string[], seed = 42) => {
      const rules = new FaultRules(seed)
      rules.add(rule)
      rules.add({fault: 'status', request: {method: 'POST'}, status: 500, probability: 0.3})
      // Each key twice: its first and its second attempt.
      return new Set([...order, ...order].flatMap((key, n) => {
        const active = rules.forRequest({method: 'POST', path: '/v1/transaction/start', key})
        return active ? [`${key} attempt ${n < order.length ? 1 : 2} ${active.id}`] : []
      }))
    }
    const inOrder = faulted(keys)
    const shuffled = faulted([...keys.filter((_, n) => n % 3 === 2), ...keys.filter((_, n) => n % 3 !== 2).reverse()])
    expect(shuffled).toEqual(inOrder)
    expect(inOrder.size).toBeGreaterThan(5)
    // A retry is a new attempt: drawn again, not bound to fail as the first did.
    expect([...inOrder].filter((entry) => entry.includes('attempt 1'))).not.toEqual([...inOrder].filter((entry) => entry.includes('attempt 2')).map((entry) => entry.replace('attempt 2', 'attempt 1')))
    expect(faulted(keys, 43)).not.toEqual(inOrder)
  })

  it('the same seed faults the same requests and webhooks at concurrency 1 and 8', async () => {
    const rules: FaultRule[] = [
      {fault: 'status', request: {method: 'POST', path: '/v1/transaction/start'}, status: 503, probability: 0.25},
      {fault: 'status', request: {method: 'GET', path: '/v1/transaction/*'}, status: 500, probability: 0.25},
      {fault: 'drop', webhook: {status: 'INITIATED'}, probability: 0.3},
    ]
    const run = async (concurrency: number) => {
      const {api, emulator, faultEvents} = await setup(rules, {seed: 2024})
      const outcomes: string[] = []
      const references = new Map<string, string>()
      const queue = Array.from({length: 40}, (_, n) => `order-${n}`)
      const customer = (await api.createCustomer()).body.id
      const worker = async () => {
        for (let reference = queue.shift(); reference !== undefined; reference = queue.shift()) {
          const body = {payment_profile: emulator.paymentProfileId, amount: 1499, customer, payment_product: 'dummy', merchant_reference: reference, details: {redirect_url: 'https://shop.example/back'}}
          let started = await api.start(body)
          if (started.status !== 200) started = await api.start(body)
          outcomes.push(`${reference} start ${started.status}`)
          if (started.status !== 200) continue
          references.set(started.body.id, reference)
          outcomes.push(`${reference} read ${(await api.transaction(started.body.id)).status}`)
        }
      }
      await Promise.all(Array.from({length: concurrency}, worker))
      const webhooks = async () => (await api.get('/_emulator/webhooks', {})).body.deliveries as {transaction: string; state: string}[]
      await waitFor(async () => (await webhooks()).every((delivery) => delivery.state !== 'pending'), 'every webhook sent or dropped', 10_000)
      const dropped = (await webhooks()).filter((delivery) => delivery.state === 'dropped').map((delivery) => `${references.get(delivery.transaction)} dropped`)
      expect(faultEvents().filter((event) => event.on === 'webhook')).toHaveLength(dropped.length)
      await emulator.close()
      return [...outcomes, ...dropped].sort()
    }
    const one = await run(1)
    const eight = await run(8)
    expect(eight).toEqual(one)
    for (const kind of [' start 503', ' read 500', ' dropped']) expect(one.some((outcome) => outcome.endsWith(kind))).toBe(true)
  })

  it('rules are tried in order; only the first that applies counts a hit', () => {
    const rules = new FaultRules(1)
    const never = rules.add({fault: 'status', request: {method: 'POST'}, status: 500})
    const first = rules.add({fault: 'status', status: 502, times: 1})
    const second = rules.add({fault: 'status', status: 503})
    expect(rules.forRequest({method: 'GET', path: '/v1/customer', key: 'a'})?.id).toBe(first.id)
    expect(rules.forRequest({method: 'GET', path: '/v1/customer', key: 'a'})?.id).toBe(second.id)
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

