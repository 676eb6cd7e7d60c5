#!/usr/bin/env node
// The dashboard and the admin list over stores of 1,000 and 100,000 transactions (and
// 1,000,000 with PAYTX_BENCH_MILLION=1: growing that store takes about a minute), each served
// by its own `paytx emulator start`, asked in turn (interleaved samples, medians).
// Target (issue 23, item 1): the dashboard's `/`, a search and a later page over 100,000 take at
// most 1.5x (or 5 ms more than) the same over 1,000; over 1,000,000 at most 2x.
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {call, createCustomer, finish, growStore, keepAliveAgent, median, printTable, requireBuild, startEmulator, startTransaction, stopEmulator, waitForSearchIndex} from './lib/emulator.js'

requireBuild()
const SAMPLES = Number(process.env.PAYTX_BENCH_SAMPLES ?? 100)
const SIZES = [1_000, 100_000, ...(process.env.PAYTX_BENCH_MILLION === '1' ? [1_000_000] : [])]
const work = mkdtempSync(join(tmpdir(), 'paytx-bench-queries-'))
process.on('exit', () => rmSync(work, {recursive: true, force: true}))

/** A store of `size` transactions: one made through the API (with a customer), the rest copies of it. */
async function seededStore(size) {
  const store = join(work, `store-${size}.db`)
  const {child, url} = await startEmulator(store)
  const agent = keepAliveAgent()
  const customer = await createCustomer(agent, url, 'Margriet')
  await startTransaction(agent, url, customer.id, {merchant_reference: 'first-order'})
  agent.destroy()
  await stopEmulator(child)
  const began = performance.now()
  growStore(store, size)
  return {store, customerId: customer.id, growMs: performance.now() - began}
}

const stores = []
for (const size of SIZES) stores.push({size, ...(await seededStore(size))})
const running = await Promise.all(stores.map(async (entry) => ({...entry, ...(await startEmulator(entry.store)), agent: keepAliveAgent(1)})))
// Measured at rest: each emulator has indexed its store's copies for search (behind the writes).
for (const entry of running) entry.indexMs = await waitForSearchIndex(entry.url)

// What is asked: the root page, a search for one merchant reference (the first transaction's,
// stored before the copies: one match in every store, the oldest, so a newest-first search walks
// to the end), for six hex digits (most often none matches: the whole index is asked), for the
// customer's name (every transaction matches), a search of two characters (not served by the
// trigram index: walks newest first until 50 match), for the first three characters of the
// customer's id and three more hex digits (each of its trigrams is in thousands of ids and almost
// never all of them together; every transaction belongs to that customer, so with the customer's
// id in each transaction's index entry this read a list as long as the store), and the page
// after the first. Each gives a
// page of the same length over every store, so that what grows is the store and not the page.
// A reference prefix is measured too, for comparison only: bench-777 matches 1, 111 and 1,111
// copies over the three stores, a page of 1 row over 1,000 and of 50 over the others.
const queries = {
  'dashboard /': () => '/',
  'search one reference': () => '/?q=first-order',
  'search a reference prefix (no target)': () => '/?q=bench-777',
  'search part of an id': () => '/?q=c0ffee',
  'search everyone (name)': () => '/?q=margriet',
  'search 2 characters': () => '/?q=ab',
  "search sharing the customer's id": (entry) => `/?q=${entry.customerId.slice(0, 3)}c0f`,
  'second page': (entry) => `/?before=${entry.firstPageLast}`,
}
/** Measured and shown, with no target: their pages are not the same length over every store. */
const FOR_COMPARISON = new Set(['search a reference prefix (no target)'])
for (const entry of running) {
  const page = await call(entry.agent, entry.url, 'GET', '/_emulator/transactions?limit=50')
  entry.firstPageLast = JSON.parse(page.text).next
}

const timings = Object.fromEntries(Object.keys(queries).map((name) => [name, Object.fromEntries(SIZES.map((size) => [size, []]))]))
for (let i = 0; i < SAMPLES + 5; i++) {
  for (const [name, path] of Object.entries(queries)) {
    for (const entry of running) {
      const answer = await call(entry.agent, entry.url, 'GET', path(entry))
      if (answer.status !== 200) throw new Error(`${name} over ${entry.size}: ${answer.status}`)
      // The first few warm the caches of both alike.
      if (i >= 5) timings[name][entry.size].push(answer.ms)
    }
  }
}
for (const entry of running) {
  entry.agent.destroy()
  await stopEmulator(entry.child)
}

const label = (size) => size.toLocaleString('en')
console.log(
  `Medians of ${SAMPLES} interleaved samples; stores grown in ${stores.map((entry) => `${(entry.growMs / 1000).toFixed(1)} s`).join(', ')}, ` +
    `then indexed for search by their emulators in ${running.map((entry) => `${(entry.indexMs / 1000).toFixed(1)} s`).join(', ')}.`,
)
printTable([['', ...SIZES.map((size) => `${label(size)} stored`), ...SIZES.slice(1).map((size) => `${label(size)} / ${label(SIZES[0])}`)], ...Object.keys(queries).map((name) => {
  const base = median(timings[name][SIZES[0]])
  return [name, ...SIZES.map((size) => `${median(timings[name][size]).toFixed(2)} ms`), ...SIZES.slice(1).map((size) => `${(median(timings[name][size]) / base).toFixed(2)}x`)]
})])

const checks = []
for (const name of Object.keys(queries)) {
  const base = median(timings[name][SIZES[0]])
  if (FOR_COMPARISON.has(name)) continue
  for (const size of SIZES.slice(1)) {
    const value = median(timings[name][size])
    const allowed = size >= 1_000_000 ? 2 * base : Math.max(1.5 * base, base + 5)
    checks.push([`${name}: ${value.toFixed(2)} ms over ${label(size)} <= ${allowed.toFixed(2)} ms (${size >= 1_000_000 ? '2x' : '1.5x or +5 ms'} the ${base.toFixed(2)} ms over ${label(SIZES[0])})`, value <= allowed])
  }
}
finish(checks)
