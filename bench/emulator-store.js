#!/usr/bin/env node
// Creates transactions at concurrency 8 against `paytx emulator start` with a file store, and
// the same against `--store :memory:`, each emulator in its own child process, in the same run;
// then reads the status of random ids one at a time. Figures are printed side by side.
// Targets (issue 10), for the file store: the last 10,000 creates take at most 1.3x as long as
// the first 10,000; throughput at least 0.5x the in-memory store's; the emulator's resident
// memory under 150 MB at the end; p99 of a status read under 5 ms.
// PAYTX_BENCH_CREATES sets the number of creates (default 100,000, the figure).
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync, statSync} from 'node:fs'
import {Agent, request} from 'node:http'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'bin', 'run.js')
const CREATES = Number(process.env.PAYTX_BENCH_CREATES ?? 100_000)
const BLOCK = Math.min(10_000, Math.max(1, Math.floor(CREATES / 10)))
const CONCURRENCY = 8
const READS = 2_000
const TARGET_GROWTH = 1.3
const TARGET_RATIO = 0.5
const TARGET_RSS_MB = 150
const TARGET_P99_MS = 5
const API_KEY = 'sk_test_paytx_emulator_local_key'

if (!existsSync(join(root, 'dist', 'main.js'))) {
  console.error('Build first: npm run build')
  process.exit(2)
}
if (!Number.isInteger(CREATES) || CREATES < 10) {
  console.error('PAYTX_BENCH_CREATES must be a whole number of at least 10.')
  process.exit(2)
}

const work = mkdtempSync(join(tmpdir(), 'paytx-bench-emulator-'))
const children = []
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
  rmSync(work, {recursive: true, force: true})
})

function startEmulator(store) {
  const env = {...process.env, PAYTX_DATA_DIR: work, PAYTX_CONFIG_DIR: work}
  delete env.NODE_ENV
  const child = spawn(process.execPath, [bin, 'emulator', 'start', '--port', '0', '--store', store, '--json'], {env, stdio: ['ignore', 'pipe', 'pipe']})
  children.push(child)
  let errors = ''
  child.stderr.setEncoding('utf8').on('data', (chunk) => (errors += chunk))
  return new Promise((resolve, reject) => {
    let buffered = ''
    const onData = (chunk) => {
      buffered += chunk
      const line = buffered.split('\n').find((text) => text.startsWith('{"event":"listening"'))
      if (!line) return
      child.stdout.off('data', onData)
      // One event per request follows; read and drop them, as a terminal would show them.
      child.stdout.resume()
      resolve({child, url: JSON.parse(line).url})
    }
    child.stdout.setEncoding('utf8').on('data', onData)
    child.once('exit', (code) => reject(new Error(`the emulator exited (${code}) before listening:\n${errors}`)))
  })
}

function call(agent, url, method, path, body) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = request(`${url}${path}`, {
      method,
      agent,
      headers: {'x-apikey': API_KEY, ...(payload ? {'content-type': 'application/json', 'content-length': Buffer.byteLength(payload)} : {})},
    })
    req.on('response', (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk) => (text += chunk))
      response.on('end', () => (response.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`${method} ${path}: ${response.statusCode} ${text}`))))
    })
    req.on('error', reject)
    req.end(payload)
  })
}

function residentMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

async function measure(label, store) {
  const {child, url} = await startEmulator(store)
  const agent = new Agent({keepAlive: true, maxSockets: CONCURRENCY})
  const customer = await call(agent, url, 'POST', '/v1/customer', {
    title: 'ms', first_name: 'Jana', last_name: 'Jansen', email_address: 'jana@example.com', phone_number: '+31612345678',
    street_address: 'Dam 1', postal_code: '1012 JS', city: 'Amsterdam', country_code: 'NL', organisation: '0a0f2c55-6c8e-4c51-9b0e-3e7a1d000001',
  })
  const body = {amount: 1499, customer: customer.id, payment_product: 'dummy', details: {redirect_url: 'https://shop.example/back'}}
  const ids = []
  const blockEnds = []
  let started = 0
  const begin = performance.now()
  const worker = async () => {
    while (started < CREATES) {
      started++
      const transaction = await call(agent, url, 'POST', '/v1/transaction/start', body)
      ids.push(transaction.id)
      if (ids.length % BLOCK === 0) blockEnds.push(performance.now())
    }
  }
  await Promise.all(Array.from({length: CONCURRENCY}, worker))
  const totalMs = performance.now() - begin
  const blocks = blockEnds.map((end, index) => end - (index === 0 ? begin : blockEnds[index - 1]))

  const latencies = []
  for (let i = 0; i < READS; i++) {
    const id = ids[Math.floor(Math.random() * ids.length)]
    const readStart = performance.now()
    await call(agent, url, 'GET', `/v1/transaction/${id}`)
    latencies.push(performance.now() - readStart)
  }
  latencies.sort((a, b) => a - b)
  const rss = residentMb(child.pid)
  agent.destroy()
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
  return {
    label,
    totalMs,
    perSecond: (CREATES / totalMs) * 1000,
    firstBlockMs: blocks[0],
    lastBlockMs: blocks.at(-1),
    growth: blocks.at(-1) / blocks[0],
    rss,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    fileMb: store === ':memory:' ? undefined : statSync(store).size / 1024 / 1024,
  }
}

console.log(`Creating ${CREATES.toLocaleString('en')} transactions at concurrency ${CONCURRENCY} per store, then ${READS} status reads of random ids (blocks of ${BLOCK.toLocaleString('en')}).`)
const file = await measure('file store', join(work, 'emulator.db'))
const memory = await measure(':memory:', ':memory:')

const rows = [
  ['', 'file store', ':memory:'],
  ['total', `${(file.totalMs / 1000).toFixed(1)} s`, `${(memory.totalMs / 1000).toFixed(1)} s`],
  ['creates/s', file.perSecond.toFixed(0), memory.perSecond.toFixed(0)],
  [`first ${BLOCK.toLocaleString('en')}`, `${(file.firstBlockMs / 1000).toFixed(2)} s`, `${(memory.firstBlockMs / 1000).toFixed(2)} s`],
  [`last ${BLOCK.toLocaleString('en')}`, `${(file.lastBlockMs / 1000).toFixed(2)} s`, `${(memory.lastBlockMs / 1000).toFixed(2)} s`],
  ['last / first', `${file.growth.toFixed(2)}x`, `${memory.growth.toFixed(2)}x`],
  ['resident memory', `${file.rss.toFixed(0)} MB`, `${memory.rss.toFixed(0)} MB`],
  ['status read p50', `${file.p50.toFixed(2)} ms`, `${memory.p50.toFixed(2)} ms`],
  ['status read p99', `${file.p99.toFixed(2)} ms`, `${memory.p99.toFixed(2)} ms`],
  ['database file', `${file.fileMb.toFixed(0)} MB`, '-'],
]
const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)))
for (const row of rows) console.log(row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join('   '))

const ratio = file.perSecond / memory.perSecond
const checks = [
  [`file store: last ${BLOCK.toLocaleString('en')} / first ${file.growth.toFixed(2)}x <= ${TARGET_GROWTH}x`, file.growth <= TARGET_GROWTH],
  [`file store throughput ${ratio.toFixed(2)}x the in-memory store's >= ${TARGET_RATIO}x`, ratio >= TARGET_RATIO],
  [`file store emulator resident memory ${file.rss.toFixed(0)} MB < ${TARGET_RSS_MB} MB`, file.rss < TARGET_RSS_MB],
  [`file store status read p99 ${file.p99.toFixed(2)} ms < ${TARGET_P99_MS} ms`, file.p99 < TARGET_P99_MS],
]
for (const [text, ok] of checks) console.log(`${ok ? 'ok  ' : 'MISS'}  ${text}`)
process.exit(checks.every(([, ok]) => ok) ? 0 : 1)
