#!/usr/bin/env node
// Start-up time of the built CLI on a normal machine (no NODE_EXTRA_CA_CERTS): wall time of
// `paytx --version` and `paytx --help` as a ratio to `node -e 0`, and of `paytx status <id>`
// (against a local 127.0.0.1 test server) as a ratio to a bare Node script that makes the same
// request with node:http and prints the status; a bare script that uses fetch is measured too,
// for comparison with earlier runs (it is slower than node:http and hid part of the cost).
// Every round runs each case once, in a shuffled order, so that machine load weighs on all
// alike; a ratio is the median of the per-round ratios (each command against its baseline of
// the same round), after warm-up rounds that fill the file cache, Node's compile cache and
// paytx's code cache (in the run's own PAYTX_CACHE_DIR, as a user's would be after a first run).
// Targets (issue 23): --version at most 2.5x, --help at most 3x, status at most 2x node:http.
// Beside each wall-time ratio, the ratio of CPU time (user + system, the mean per run, from the
// children's times in /proc/self/stat) is printed for comparison: on a machine other work keeps
// busy, waiting for a CPU swells wall times, while the CPU a run takes stays near its own.
// BENCH_SAMPLES sets the number of rounds (default 21).
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {benchEnv, finish, fixed, median} from './lib/measure.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'bin', 'run.js')
const samples = Number(process.env.BENCH_SAMPLES ?? 21)
const WARM_UP = 3
const TX = {id: 'bench-tx', amount: '1499', payment_product: 'dummy', status: 'SETTLEMENT_COMPLETED', details: {}, created_at: '2026-11-20T10:00:00.000Z', last_status_update: '2026-11-20T10:00:00.000Z'}

const work = mkdtempSync(join(tmpdir(), 'paytx-bench-'))
const env = benchEnv({PAYTX_CONFIG_DIR: work, PAYTX_DATA_DIR: join(work, 'data'), PAYTX_CACHE_DIR: join(work, 'cache'), PAYTX_API_KEY: 'sk_bench_key_0123456789'})

const BARE_HTTP = `
const http = require('node:http');
const url = new URL('transaction/${TX.id}', process.env.PAYTX_BASE_URL + '/');
http.get(url, {headers: {'X-APIKEY': process.env.PAYTX_API_KEY}}, (res) => {
  let text = '';
  res.setEncoding('utf8');
  res.on('data', (chunk) => (text += chunk));
  res.on('end', () => console.log(JSON.parse(text).status));
});`
const BARE_FETCH = `fetch(new URL('transaction/${TX.id}', process.env.PAYTX_BASE_URL + '/'), {headers: {'X-APIKEY': process.env.PAYTX_API_KEY}}).then(async (r) => console.log((await r.json()).status))`

const cases = {
  'node -e 0': ['-e', '0'],
  'paytx --version': [bin, '--version'],
  'paytx --help': [bin, '--help'],
  'node:http script': ['-e', BARE_HTTP],
  'fetch script': ['-e', BARE_FETCH],
  'paytx status <id>': [bin, 'status', TX.id],
}
// Each measured command: the case it is compared with, and the most it may take as a multiple.
const targets = [
  {name: 'paytx --version', baseline: 'node -e 0', ratio: 2.5},
  {name: 'paytx --help', baseline: 'node -e 0', ratio: 3},
  {name: 'paytx status <id>', baseline: 'node:http script', ratio: 2},
  {name: 'paytx status <id>', baseline: 'fetch script'},
]
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
const stop = (code) => {
  helper.kill()
  rmSync(work, {recursive: true, force: true})
  process.exit(code)
}

const cpu = Object.fromEntries(Object.keys(cases).map((name) => [name, 0]))

/** CPU time of the children this process has waited for, in ms (Linux; 0 elsewhere). */
function childrenCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')
    // cutime and cstime are fields 16 and 17 of /proc/<pid>/stat, in clock ticks (100 per second).
    return (Number(fields[13]) + Number(fields[14])) * 10
  } catch {
    return 0
  }
}

function run(name, measured = false) {
  const started = process.hrtime.bigint()
  const cpuBefore = childrenCpuMs()
  const result = spawnSync(process.execPath, cases[name], {env, encoding: 'utf8'})
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (measured) cpu[name] += childrenCpuMs() - cpuBefore
  if (result.status !== 0) {
    console.error(`${name} failed (exit ${result.status}):\n${result.stderr}`)
    stop(1)
  }
  return ms
}

function shuffled(names) {
  const order = [...names]
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[order[i], order[j]] = [order[j], order[i]]
  }
  return order
}

for (let i = 0; i < WARM_UP; i++) for (const name of Object.keys(cases)) run(name)
for (let i = 0; i < samples; i++) for (const name of shuffled(Object.keys(cases))) times[name].push(run(name, true))

const checks = []
console.log(`startup, ${samples} rounds after ${WARM_UP} of warm-up, each case once per round in shuffled order (node ${process.version}, no NODE_EXTRA_CA_CERTS)`)
for (const name of Object.keys(cases)) console.log(`  ${name.padEnd(20)} ${fixed(median(times[name]))} ms median, CPU ${fixed(cpu[name] / samples)} ms mean`)
for (const target of targets) {
  const ratio = median(times[target.name].map((ms, round) => ms / times[target.baseline][round]))
  const verdict = target.ratio === undefined ? '(for comparison)' : ratio <= target.ratio ? `ok (target <= ${target.ratio}x)` : `MISSED (target <= ${target.ratio}x)`
  const cpuRatio = cpu[target.name] / cpu[target.baseline]
  console.log(`  ${target.name.padEnd(20)} ${fixed(ratio, 2, 5)}x ${target.baseline.padEnd(17)} ${verdict}; CPU ${cpuRatio.toFixed(2)}x`)
  if (target.ratio !== undefined) checks.push([`startup: ${target.name} ${ratio.toFixed(2)}x ${target.baseline} (target <= ${target.ratio}x; node ${process.version})`, ratio <= target.ratio])
}
helper.kill()
rmSync(work, {recursive: true, force: true})
finish(checks)
