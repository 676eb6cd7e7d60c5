#!/usr/bin/env node
// Start-up time of the built CLI: median wall time of `paytx --version` and `paytx --help` as a
// ratio to `node -e 0`, and of `paytx status <id>` (against a local 127.0.0.1 test server) as a
// ratio to a bare Node script that fetches the same URL with the same header and prints the
// status; all measured in the same run, interleaved so that machine load hits all alike.
// Targets: --version at most 2.5x, --help at most 3x, status at most 1.5x; exits 1 when one is missed.
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'bin', 'run.js')
const samples = Number(process.env.BENCH_SAMPLES ?? 21)
const TX = {id: 'bench-tx', amount: '1499', payment_product: 'dummy', status: 'SETTLEMENT_COMPLETED', details: {}, created_at: '2026-11-20T10:00:00.000Z', last_status_update: '2026-11-20T10:00:00.000Z'}

const env = {...process.env, PAYTX_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'paytx-bench-')), PAYTX_API_KEY: 'sk_bench_key_0123456789'}
delete env.PAYTX_PROFILE
delete env.NODE_ENV

const cases = {
  'node -e 0': ['-e', '0'],
  'paytx --version': [bin, '--version'],
  'paytx --help': [bin, '--help'],
  'node fetch <url>': ['-e', `fetch(new URL('/v1/transaction/${TX.id}', process.env.PAYTX_BASE_URL), {headers: {'X-APIKEY': process.env.PAYTX_API_KEY}}).then(async (r) => console.log((await r.json()).status))`],
  'paytx status <id>': [bin, 'status', TX.id],
}
const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]))

// The runs below block this process (spawnSync), so the test server lives in a child process.
const helper = spawn(process.execPath, ['-e', `
  const http = require('node:http');
  const body = ${JSON.stringify(JSON.stringify(TX))};
  const s = http.createServer((q, r) => { r.writeHead(200, {'content-type': 'application/json'}); r.end(body) });
  s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'));
`], {stdio: ['ignore', 'pipe', 'inherit']})
const port = await new Promise((resolve) => helper.stdout.once('data', (d) => resolve(Number(String(d).trim()))))
env.PAYTX_BASE_URL = `http://127.0.0.1:${port}/v1`

function run(name) {
  const started = process.hrtime.bigint()
  const result = spawnSync(process.execPath, cases[name], {env, encoding: 'utf8'})
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (result.status !== 0) {
    console.error(`${name} failed (exit ${result.status}):\n${result.stderr}`)
    helper.kill()
    process.exit(1)
  }
  return ms
}

for (const name of Object.keys(cases)) run(name) // warm the file cache
for (let i = 0; i < samples; i++) for (const name of Object.keys(cases)) times[name].push(run(name))
helper.kill()

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}
// Each measured command: the case it is compared with, and the most it may take as a multiple.
const targets = {
  'paytx --version': {baseline: 'node -e 0', ratio: 2.5},
  'paytx --help': {baseline: 'node -e 0', ratio: 3},
  'paytx status <id>': {baseline: 'node fetch <url>', ratio: 1.5},
}
let missed = 0
console.log(`startup, median of ${samples} interleaved runs (node ${process.version})`)
for (const name of Object.keys(cases)) {
  const value = median(times[name])
  const target = targets[name]
  if (target === undefined) {
    console.log(`  ${name.padEnd(20)} ${value.toFixed(1).padStart(7)} ms`)
    continue
  }
  const ratio = value / median(times[target.baseline])
  const met = ratio <= target.ratio
  if (!met) missed++
  console.log(`  ${name.padEnd(20)} ${value.toFixed(1).padStart(7)} ms  ${ratio.toFixed(2).padStart(5)}x ${target.baseline}  ${met ? 'ok' : 'MISSED'} (target <= ${target.ratio}x)`)
}
process.exit(missed === 0 ? 0 : 1)
