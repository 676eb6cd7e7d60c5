#!/usr/bin/env node
// The emulator's request path against its floor (issue 41): transaction starts and status reads
// through `paytx emulator start` over a file store, beside a bare node:http server that parses
// the same JSON body and inserts one row into an SQLite file in WAL mode with the same libsql
// (bench/lib/floor-server.js), each in its own process, 16 requests at a time, fed in turn
// (a round's requests of each kind in 4 slices each, which goes first alternating), in rounds; a
// round's ratio is the emulator's rate over the floor's in that round, and the figure is the
// median of the rounds' ratios, so that load elsewhere on the machine weighs on both alike. The
// emulator's event lines go to a file, not through this process (which is the client of both).
// Targets: writes (transaction starts) at least 0.5x the floor's rate (stretch 0.7x), reads
// (GET /v1/transaction/{id} of random ids it created) at least 0.8x.
// PAYTX_BENCH_ROUNDS (default 7) and PAYTX_BENCH_REQUESTS (per server and round, default 2,000).
// PAYTX_BENCH_CPU_PROF=<folder> runs the emulator with `node --cpu-prof` writing its profile there.
import {spawn} from 'node:child_process'
import {closeSync, mkdtempSync, openSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {benchEnv} from './lib/measure.js'
import {bin, call, createCustomer, finish, keepAliveAgent, median, printTable, requireBuild, root, stopEmulator} from './lib/emulator.js'

const ROUNDS = Number(process.env.PAYTX_BENCH_ROUNDS ?? 7)
const REQUESTS = Number(process.env.PAYTX_BENCH_REQUESTS ?? 2_000)
const CONCURRENCY = 16
const SLICES = 4
const TARGET_WRITES = 0.5
const STRETCH_WRITES = 0.7
const TARGET_READS = 0.8

requireBuild()
if (!Number.isInteger(ROUNDS) || ROUNDS < 1 || !Number.isInteger(REQUESTS) || REQUESTS < 100 || REQUESTS % SLICES !== 0) {
  console.error(`PAYTX_BENCH_ROUNDS must be a whole number of at least 1, PAYTX_BENCH_REQUESTS one of at least 100 that ${SLICES} divides.`)
  process.exit(2)
}

const work = mkdtempSync(join(tmpdir(), 'paytx-bench-floor-'))
let floorChild
let emulatorChild
process.on('exit', () => {
  for (const child of [floorChild, emulatorChild]) if (child?.exitCode === null) child.kill('SIGKILL')
  rmSync(work, {recursive: true, force: true})
})

function startFloor(store) {
  floorChild = spawn(process.execPath, [join(root, 'bench', 'lib', 'floor-server.js'), store], {env: benchEnv(), stdio: ['ignore', 'pipe', 'inherit']})
  return new Promise((resolve, reject) => {
    let buffered = ''
    floorChild.stdout.setEncoding('utf8').on('data', (chunk) => {
      buffered += chunk
      if (buffered.includes('\n')) resolve({child: floorChild, url: JSON.parse(buffered.split('\n')[0]).url})
    })
    floorChild.once('exit', (code) => reject(new Error(`the floor server exited (${code}) before listening`)))
  })
}

/** `count` requests made by `request(i)`, CONCURRENCY at a time; requests per second. */
async function rate(count, request) {
  let next = 0
  const began = performance.now()
  const worker = async () => {
    while (next < count) {
      const answer = await request(next++)
      if (answer.status !== 200) throw new Error(`${answer.status} ${answer.text}`)
    }
  }
  await Promise.all(Array.from({length: CONCURRENCY}, worker))
  return count / ((performance.now() - began) / 1000)
}

function writes(server, count) {
  return rate(count, async () => {
    const answer = await call(server.agent, server.url, 'POST', '/v1/transaction/start', server.body)
    if (answer.status === 200) server.ids.push(JSON.parse(answer.text).id)
    return answer
  })
}

function reads(server, count) {
  return rate(count, () => call(server.agent, server.url, 'GET', `/v1/transaction/${server.ids[Math.floor(Math.random() * server.ids.length)]}`))
}

/**
 * A round's rate of each server for one kind of request: REQUESTS each, fed in SLICES slices that
 * take turns (which goes first alternates), so that a burst of load elsewhere on the machine (a
 * few hundred milliseconds) weighs on both rather than on whichever was being fed. A slice of 2,000
 * status reads lasted about 130 ms: one such burst could decide a round.
 */
async function interleaved(servers, measure) {
  const seconds = new Map(servers.map((server) => [server, 0]))
  const count = REQUESTS / SLICES
  for (let slice = 0; slice < SLICES; slice++) {
    for (const server of slice % 2 === 0 ? servers : [...servers].reverse()) seconds.set(server, seconds.get(server) + count / (await measure(server, count)))
  }
  return new Map(servers.map((server) => [server, REQUESTS / seconds.get(server)]))
}

/**
 * `paytx emulator start --json` over a file store, its event lines (one per request) written to a
 * file: read through a pipe by this process, they cost the client, and so the emulator's rate,
 * what no terminal showing them would cost a real client. Resolves once it listens.
 */
function startEmulator(store) {
  const log = join(work, 'emulator.jsonl')
  const fd = openSync(log, 'w')
  const env = benchEnv({PAYTX_DATA_DIR: work, PAYTX_CONFIG_DIR: work})
  const profile = process.env.PAYTX_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PAYTX_BENCH_CPU_PROF}`] : []
  // Its notes (the keys of the local profile's preset) go to the same file, not between the figures.
  const child = spawn(process.execPath, [...profile, bin, 'emulator', 'start', '--port', '0', '--store', store, '--json'], {env, stdio: ['ignore', fd, fd]})
  closeSync(fd)
  emulatorChild = child
  return new Promise((resolve, reject) => {
    const look = setInterval(() => {
      const line = readFileSync(log, 'utf8').split('\n').find((text) => text.startsWith('{"event":"listening"'))
      if (!line) return
      clearInterval(look)
      resolve({child, url: JSON.parse(line).url})
    }, 20)
    child.once('exit', (code) => {
      clearInterval(look)
      reject(new Error(`the emulator exited (${code}) before listening`))
    })
  })
}

const emulator = {name: 'emulator', ...(await startEmulator(join(work, 'emulator.db'))), agent: keepAliveAgent(CONCURRENCY), ids: []}
const customer = await createCustomer(emulator.agent, emulator.url)
emulator.body = {amount: 1499, customer: customer.id, payment_product: 'dummy', details: {redirect_url: 'https://shop.example/back'}}
const floor = {name: 'floor', ...(await startFloor(join(work, 'floor.db'))), agent: keepAliveAgent(CONCURRENCY), ids: [], body: emulator.body}

console.log(
  `Transaction starts, then status reads of random ids, ${REQUESTS.toLocaleString('en')} of each per server and round, ${CONCURRENCY} at a time, ` +
    `through the emulator (file store) and a bare node:http + libsql (WAL) floor, in turn, ${ROUNDS} rounds after one to warm up; node ${process.version}.`,
)
// One round unmeasured: code not yet optimised is not the path being measured.
for (const server of [emulator, floor]) await writes(server, REQUESTS), await reads(server, REQUESTS)
const rounds = []
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? [emulator, floor] : [floor, emulator]
  const figures = {}
  for (const [server, perSecond] of await interleaved(order, writes)) figures[`${server.name} writes`] = perSecond
  for (const [server, perSecond] of await interleaved(order, reads)) figures[`${server.name} reads`] = perSecond
  rounds.push(figures)
}

const writeRatios = rounds.map((figures) => figures['emulator writes'] / figures['floor writes'])
const readRatios = rounds.map((figures) => figures['emulator reads'] / figures['floor reads'])
printTable([
  ['round', 'emulator writes/s', 'floor writes/s', 'ratio', 'emulator reads/s', 'floor reads/s', 'ratio'],
  ...rounds.map((figures, round) => [
    String(round + 1),
    figures['emulator writes'].toFixed(0),
    figures['floor writes'].toFixed(0),
    `${writeRatios[round].toFixed(2)}x`,
    figures['emulator reads'].toFixed(0),
    figures['floor reads'].toFixed(0),
    `${readRatios[round].toFixed(2)}x`,
  ]),
])
const writeRatio = median(writeRatios)
const readRatio = median(readRatios)
console.log(`median ratios: writes ${writeRatio.toFixed(2)}x (stretch ${STRETCH_WRITES}x: ${writeRatio >= STRETCH_WRITES ? 'met' : 'not met'}), reads ${readRatio.toFixed(2)}x`)

for (const server of [emulator, floor]) server.agent.destroy()
await stopEmulator(emulator.child)
await stopEmulator(floor.child)
finish([
  [`emulator writes ${writeRatio.toFixed(2)}x the floor's (median of ${ROUNDS} rounds) >= ${TARGET_WRITES}x`, writeRatio >= TARGET_WRITES],
  [`emulator reads ${readRatio.toFixed(2)}x the floor's (median of ${ROUNDS} rounds) >= ${TARGET_READS}x`, readRatio >= TARGET_READS],
])
