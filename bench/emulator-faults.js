#!/usr/bin/env node
// Faults that repeat exactly and stay where they were aimed (issue 23, items 3 and 4).
// 1. Two emulators with the same fault file and seed, side by side: the same shop workload (a
//    start per merchant reference, retried once on 503; a status read; its webhooks) at
//    concurrency 1 against one and 8 against the other. Target: the same set of faulted
//    requests and webhooks (by merchant reference) in both.
// 2. One emulator with reset, cut_body, latency and status rules drawn at random; 2,400 requests
//    at concurrency 16 on keep-alive connections (fetch, and node:http with a keep-alive agent).
//    Target: every failed request has its fault event (reset or cut_body, with the rule's name),
//    and every reset or cut_body event has its failed request: no unmatched request fails.
import {writeFileSync, mkdtempSync, rmSync} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {API_KEY, call, createCustomer, finish, keepAliveAgent, printTable, requireBuild, startEmulator, stopEmulator} from './lib/emulator.js'

requireBuild()
const REFERENCES = Number(process.env.PAYTX_BENCH_REFERENCES ?? 300)
const AIMED_REQUESTS = Number(process.env.PAYTX_BENCH_AIMED ?? 1_200)
const work = mkdtempSync(join(tmpdir(), 'paytx-bench-faults-'))
process.on('exit', () => rmSync(work, {recursive: true, force: true}))

function faultFile(name, rules) {
  const path = join(work, `${name}.json`)
  writeFileSync(path, JSON.stringify({version: 1, rules}))
  return path
}

/** A webhook receiver that answers 200 to everything. */
async function receiver() {
  const server = createServer((request, response) => {
    request.resume()
    request.on('end', () => response.end('ok'))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {server, url: `http://127.0.0.1:${server.address().port}/hooks`}
}

/** An emulator that keeps its fault events. */
async function faultyEmulator(name, rules, extraArgs = []) {
  const events = []
  const started = await startEmulator(join(work, `${name}.db`), {
    args: ['--faults', faultFile(name, rules), ...extraArgs],
    onLine: (line) => {
      if (line.startsWith('{"event":"fault"')) events.push(JSON.parse(line))
    },
  })
  return {...started, events}
}

const startBody = (customer, reference) => ({amount: 1499, customer, payment_product: 'dummy', merchant_reference: reference, details: {redirect_url: 'https://shop.example/back'}})

async function pool(concurrency, items, work) {
  const queue = [...items]
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item)
  }
  await Promise.all(Array.from({length: concurrency}, worker))
}

// 1. Repeat exactly.
const repeatRules = [
  {name: 'busy-start', fault: 'status', request: {method: 'POST', path: '/v1/transaction/start'}, status: 503, probability: 0.2},
  {name: 'flaky-read', fault: 'status', request: {method: 'GET', path: '/v1/transaction/*'}, status: 500, probability: 0.2},
  {name: 'lost-webhook', fault: 'drop', webhook: {status: 'INITIATED'}, probability: 0.3},
]

async function shopRun(name, concurrency) {
  const hooks = await receiver()
  const emulator = await faultyEmulator(name, repeatRules, ['--seed', '42', '--webhook-url', hooks.url])
  const agent = keepAliveAgent(concurrency)
  const outcomes = []
  const referenceOf = new Map()
  const references = Array.from({length: REFERENCES}, (_, n) => `order-${n}`)
  const customer = (await createCustomer(agent, emulator.url)).id
  await pool(concurrency, references, async (reference) => {
    let started = await call(agent, emulator.url, 'POST', '/v1/transaction/start', startBody(customer, reference))
    if (started.status === 503) started = await call(agent, emulator.url, 'POST', '/v1/transaction/start', startBody(customer, reference))
    outcomes.push(`${reference} start ${started.status}`)
    if (started.status !== 200) return
    const {id} = JSON.parse(started.text)
    referenceOf.set(id, reference)
    outcomes.push(`${reference} read ${(await call(agent, emulator.url, 'GET', `/v1/transaction/${id}`)).status}`)
  })
  // Every INITIATED webhook is sent or dropped before the emulator stops.
  for (;;) {
    const {deliveries} = JSON.parse((await call(agent, emulator.url, 'GET', '/_emulator/webhooks')).text)
    if (deliveries.length >= referenceOf.size && deliveries.every((delivery) => delivery.state !== 'pending')) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  for (const event of emulator.events) if (event.on === 'webhook') outcomes.push(`${referenceOf.get(event.transaction)} webhook dropped`)
  agent.destroy()
  await stopEmulator(emulator.child)
  hooks.server.close()
  return outcomes.sort()
}

const [one, eight] = await Promise.all([shopRun('concurrency-1', 1), shopRun('concurrency-8', 8)])
const faulted = (outcomes) => outcomes.filter((outcome) => / (503|500)$|dropped$/.test(outcome))
const sameSet = JSON.stringify(faulted(one)) === JSON.stringify(faulted(eight)) && JSON.stringify(one) === JSON.stringify(eight)
const inCommon = faulted(one).filter((outcome) => faulted(eight).includes(outcome)).length

// 2. Stay where aimed.
const aimedRules = [
  {name: 'reset-read', fault: 'reset', request: {method: 'GET', path: '/v1/transaction/*'}, probability: 0.08},
  {name: 'cut-success', fault: 'cut_body', request: {method: 'GET', path: '/v1/transaction/*/checkoutsuccess'}, probability: 0.1},
  {name: 'reset-start', fault: 'reset', request: {method: 'POST', path: '/v1/transaction/start'}, probability: 0.08},
  {name: 'cut-start', fault: 'cut_body', request: {method: 'POST', path: '/v1/transaction/start'}, probability: 0.08},
  {name: 'slow', fault: 'latency', request: {method: 'GET'}, latency: '15ms', probability: 0.1},
  {name: 'busy', fault: 'status', request: {method: 'GET'}, status: 503, probability: 0.05},
]
const aimed = await faultyEmulator('aimed', [])
const seeding = keepAliveAgent(1)
const customer = (await createCustomer(seeding, aimed.url)).id
const ids = []
for (let n = 0; n < 50; n++) ids.push(JSON.parse((await call(seeding, aimed.url, 'POST', '/v1/transaction/start', startBody(customer, `seed-${n}`))).text).id)
await call(seeding, aimed.url, 'POST', '/_emulator/faults', {seed: 7, rules: aimedRules})
seeding.destroy()

/** What a request is, as its fault event names it: a start by its merchant reference, a read by its path. */
const identity = (item) => (item.reference ? `POST start ${item.reference}` : `GET ${item.path}`)
const eventIdentity = (event) => (event.method === 'POST' ? `POST start ${event.merchant_reference}` : `GET ${event.path}`)

function requests(client) {
  return Array.from({length: AIMED_REQUESTS}, (_, n) => {
    const id = ids[n % ids.length]
    if (n % 3 === 0) return {reference: `${client}-${n}`}
    return {path: n % 3 === 1 ? `/v1/transaction/${id}` : `/v1/transaction/${id}/checkoutsuccess`}
  })
}

const clients = {
  fetch: async (item) => {
    const response = await fetch(`${aimed.url}${item.reference ? '/v1/transaction/start' : item.path}`, {
      method: item.reference ? 'POST' : 'GET',
      headers: {'x-apikey': API_KEY, 'content-type': 'application/json'},
      ...(item.reference ? {body: JSON.stringify(startBody(customer, item.reference))} : {}),
    })
    if (response.status >= 400 && response.status !== 503) throw new Error(`unexpected ${response.status}`)
    JSON.parse(await response.text())
  },
  'node:http keep-alive': (() => {
    const agent = keepAliveAgent(8)
    return async (item) => {
      const answer = await call(agent, aimed.url, item.reference ? 'POST' : 'GET', item.reference ? '/v1/transaction/start' : item.path, item.reference ? startBody(customer, item.reference) : undefined)
      if (answer.status >= 400 && answer.status !== 503) throw new Error(`unexpected ${answer.status}`)
      JSON.parse(answer.text)
    }
  })(),
}

const aimedRows = []
let aimedOk = true
for (const [client, send] of Object.entries(clients)) {
  const before = aimed.events.length
  const failed = []
  await pool(16, requests(client), async (item) => {
    await send(item).catch(() => failed.push(identity(item)))
  })
  const breaking = aimed.events.slice(before).filter((event) => event.fault === 'reset' || event.fault === 'cut_body')
  const expected = breaking.map(eventIdentity)
  const unmatched = [...failed]
  for (const entry of expected) {
    const at = unmatched.indexOf(entry)
    if (at !== -1) unmatched.splice(at, 1)
  }
  const unfailed = [...expected]
  for (const entry of failed) {
    const at = unfailed.indexOf(entry)
    if (at !== -1) unfailed.splice(at, 1)
  }
  const named = aimed.events.slice(before).every((event) => typeof event.name === 'string')
  aimedOk &&= unmatched.length === 0 && unfailed.length === 0 && named && failed.length > 0
  aimedRows.push([client, AIMED_REQUESTS, aimed.events.length - before, failed.length, unmatched.length, unfailed.length])
}
await stopEmulator(aimed.child)

console.log(`Repeat: ${REFERENCES} merchant references, seed 42, concurrency 1 and 8 side by side.`)
printTable([
  ['', 'concurrency 1', 'concurrency 8'],
  ['faulted (503 start, 500 read, dropped webhook)', faulted(one).length, faulted(eight).length],
  ['faulted in common', inCommon, inCommon],
])
console.log(`\nAimed: ${AIMED_REQUESTS} requests per client at concurrency 16 on keep-alive connections (a third starts, the rest reads).`)
printTable([['client', 'requests', 'fault events', 'failed', 'failed without event', 'reset/cut event without failure'], ...aimedRows])
finish([
  [`the same seed faults the same set at concurrency 1 and 8 (${inCommon} of ${faulted(one).length} and ${faulted(eight).length} in common)`, sameSet],
  ['every failed request has its reset or cut_body event with the rule\'s name, and every such event its failed request', aimedOk],
])
