#!/usr/bin/env node
// A restart over 100,000 overdue transactions (half abandonments, half settlements; each move
// queues a webhook to a local receiver), beside a restart over the same store with nothing due.
// Targets (issue 23, item 2): `listening` within 2x the restart with nothing due; status reads
// during the catch-up within 5x (p99) the reads over the store with nothing due; every overdue
// move done within 10 s of `listening`. PAYTX_BENCH_OVERDUE sets the number (default 100,000).
import {copyFileSync, mkdtempSync, rmSync} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {call, countDue, createCustomer, finish, growStore, keepAliveAgent, median, percentile, printTable, requireBuild, startEmulator, startTransaction, stopEmulator} from './lib/emulator.js'

requireBuild()
const OVERDUE = Number(process.env.PAYTX_BENCH_OVERDUE ?? 100_000)
const RESTARTS = 3
const TARGET_LISTENING = 2
const TARGET_READS = 5
const TARGET_DONE_MS = 10_000
const work = mkdtempSync(join(tmpdir(), 'paytx-bench-catchup-'))
process.on('exit', () => rmSync(work, {recursive: true, force: true}))

const receiver = createServer((request, response) => {
  request.resume()
  request.on('end', () => response.end('ok'))
})
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve))
const webhookUrl = `http://127.0.0.1:${receiver.address().port}/hooks`

/** The store: one transaction through the API, then copies, overdue or not. */
async function template(name, overdue) {
  const store = join(work, `${name}.db`)
  const {child, url} = await startEmulator(store, {args: ['--webhook-url', webhookUrl]})
  const agent = keepAliveAgent()
  await startTransaction(agent, url, (await createCustomer(agent, url)).id, {merchant_reference: 'first'})
  agent.destroy()
  await stopEmulator(child)
  const dueAt = overdue ? Date.now() - 60_000 : undefined
  growStore(store, Math.floor(OVERDUE / 2), {status: overdue ? 'INITIATED' : 'SETTLEMENT_COMPLETED', dueAt})
  growStore(store, OVERDUE, {status: overdue ? 'SETTLEMENT_REQUESTED' : 'SETTLEMENT_COMPLETED', dueAt})
  return store
}

const idle = await template('nothing-due', false)
const overdue = await template('overdue', true)

async function someIds(url, agent) {
  return JSON.parse((await call(agent, url, 'GET', '/_emulator/transactions?limit=200')).text).transactions.map((tx) => tx.id)
}

/** Reads random transactions one after another until `until` says stop; their times. */
async function readUntil(url, agent, ids, until) {
  const times = []
  while (!(await until())) {
    const answer = await call(agent, url, 'GET', `/v1/transaction/${ids[times.length % ids.length]}`)
    if (answer.status !== 200) throw new Error(`read: ${answer.status}`)
    times.push(answer.ms)
  }
  return times
}

const samples = {idleStart: [], overdueStart: [], idleReads: [], catchupReads: [], doneMs: []}
for (let round = 0; round < RESTARTS; round++) {
  // Nothing due: its restart, then reads for as long as a catch-up might take (2 s).
  const idleCopy = join(work, `idle-${round}.db`)
  copyFileSync(idle, idleCopy)
  const quiet = await startEmulator(idleCopy, {args: ['--webhook-url', webhookUrl]})
  samples.idleStart.push(quiet.startMs)
  const quietAgent = keepAliveAgent(1)
  const quietIds = await someIds(quiet.url, quietAgent)
  const quietEnd = performance.now() + 2_000
  samples.idleReads.push(...(await readUntil(quiet.url, quietAgent, quietIds, async () => performance.now() > quietEnd)))
  quietAgent.destroy()
  await stopEmulator(quiet.child)

  // Overdue: its restart, then reads until every overdue move is reported (a status event each:
  // the template's first transaction, made through the API, is not overdue and stays as it is).
  const overdueCopy = join(work, `overdue-${round}.db`)
  copyFileSync(overdue, overdueCopy)
  const due = countDue(overdueCopy, Date.now())
  let moved = 0
  const busy = await startEmulator(overdueCopy, {args: ['--webhook-url', webhookUrl], onLine: (line) => line.startsWith('{"event":"status"') && moved++})
  const listeningAt = performance.now()
  samples.overdueStart.push(busy.startMs)
  const busyAgent = keepAliveAgent(1)
  const busyIds = await someIds(busy.url, busyAgent)
  let doneAt
  samples.catchupReads.push(
    ...(await readUntil(busy.url, busyAgent, busyIds, async () => {
      if (moved < due) return performance.now() - listeningAt > 30_000
      doneAt = performance.now()
      return true
    })),
  )
  samples.doneMs.push(doneAt === undefined ? Infinity : doneAt - listeningAt)
  busyAgent.destroy()
  await stopEmulator(busy.child)
  rmSync(idleCopy, {force: true})
  rmSync(overdueCopy, {force: true})
}
receiver.close()

const ms = (value) => `${value.toFixed(1)} ms`
console.log(`${RESTARTS} restarts each, interleaved, over ${OVERDUE.toLocaleString('en')} transactions (medians).`)
printTable([
  ['', 'nothing due', `${OVERDUE.toLocaleString('en')} overdue`, 'ratio'],
  ['spawn to listening', ms(median(samples.idleStart)), ms(median(samples.overdueStart)), `${(median(samples.overdueStart) / median(samples.idleStart)).toFixed(2)}x`],
  ['status read p50', ms(median(samples.idleReads)), ms(median(samples.catchupReads)), `${(median(samples.catchupReads) / median(samples.idleReads)).toFixed(2)}x`],
  ['status read p99', ms(percentile(samples.idleReads, 99)), ms(percentile(samples.catchupReads, 99)), `${(percentile(samples.catchupReads, 99) / percentile(samples.idleReads, 99)).toFixed(2)}x`],
  ['reads sampled', samples.idleReads.length, samples.catchupReads.length, ''],
  ['listening to every move done', '-', `${samples.doneMs.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s`, ''],
])
const listening = median(samples.overdueStart) / median(samples.idleStart)
const reads = percentile(samples.catchupReads, 99) / percentile(samples.idleReads, 99)
finish([
  [`listening ${listening.toFixed(2)}x the restart with nothing due <= ${TARGET_LISTENING}x`, listening <= TARGET_LISTENING],
  [`status read p99 during catch-up ${reads.toFixed(2)}x that with nothing due <= ${TARGET_READS}x`, reads <= TARGET_READS],
  [`every overdue move done ${(Math.max(...samples.doneMs) / 1000).toFixed(2)} s after listening <= ${TARGET_DONE_MS / 1000} s`, Math.max(...samples.doneMs) <= TARGET_DONE_MS],
])
