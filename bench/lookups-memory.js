#!/usr/bin/env node
// Memory of `paytx status -` over many ids (issue 23): the ids stream in on stdin, each is looked
// up against a local 127.0.0.1 server, and the rows stream out, so the CLI's peak resident
// memory (VmHWM) at 50,000 ids must stay within 1.2x its peak at 1,000 ids, measured side by
// side in the same run. --json is measured at 50,000 too, as it writes its one document element
// by element. Each round runs the three once, in turn; each figure is the median of its rounds
// (a peak read once depends on when V8 happened to collect).
import {spawn} from 'node:child_process'
import {createReadStream, existsSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {benchEnv, finish, fixed, followPeakRss, median} from './lib/measure.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const bin = join(root, 'bin', 'run.js')
const FEW = 1_000
const MANY = Number(process.env.PAYTX_BENCH_IDS ?? 50_000)
const ROUNDS = Number(process.env.PAYTX_BENCH_LOOKUP_ROUNDS ?? 3)
const CONCURRENCY = 16
const TARGET_GROWTH = 1.2

if (!existsSync(join(root, 'dist', 'main.js'))) {
  console.error('Build first: npm run build')
  process.exit(2)
}

const work = mkdtempSync(join(tmpdir(), 'paytx-bench-lookups-'))
process.on('exit', () => rmSync(work, {recursive: true, force: true}))
const idFile = (count) => {
  const file = join(work, `ids-${count}.txt`)
  writeFileSync(file, Array.from({length: count}, (_, index) => `tx-${String(index).padStart(8, '0')}`).join('\n') + '\n')
  return file
}
const files = {[FEW]: idFile(FEW), [MANY]: idFile(MANY)}

let answered = 0
const server = createServer((req, res) => {
  answered++
  const id = decodeURIComponent(req.url.split('/').pop())
  res.writeHead(200, {'content-type': 'application/json'})
  res.end(JSON.stringify({id, amount: '1499', payment_product: 'dummy', status: 'SETTLEMENT_COMPLETED', merchant_reference: `order-${id}`, details: {}, created_at: '2026-11-20T10:00:00.000Z', last_status_update: '2026-11-20T10:00:03.123Z'}))
})
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const env = benchEnv({PAYTX_CONFIG_DIR: work, PAYTX_DATA_DIR: join(work, 'data'), PAYTX_API_KEY: 'sk_bench_key_0123456789', PAYTX_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`})

/** One `status -` over the list: its peak resident memory and how long it took. */
async function measure(count, extra = []) {
  const before = answered
  const started = performance.now()
  const child = spawn(process.execPath, [bin, 'status', '-', '--concurrency', String(CONCURRENCY), ...extra], {env, stdio: ['pipe', 'ignore', 'pipe']})
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk))
  createReadStream(files[count]).pipe(child.stdin)
  const {code, peakMb} = await followPeakRss(child)
  if (code !== 0 || answered - before !== count) {
    console.error(`status - over ${count} ids exited ${code} after ${answered - before} lookups:\n${stderr}`)
    process.exit(1)
  }
  return {peakMb, seconds: (performance.now() - started) / 1000}
}

const runs = {few: [], many: [], json: []}
// One run of each first, unmeasured: it fills the file cache and Node's compile cache for all.
await measure(FEW)
for (let round = 0; round < ROUNDS; round++) {
  runs.few.push(await measure(FEW))
  runs.many.push(await measure(MANY))
  runs.json.push(await measure(MANY, ['--json']))
}
server.close()

const peak = (list) => median(list.map((run) => run.peakMb))
const growth = peak(runs.many) / peak(runs.few)
const jsonGrowth = peak(runs.json) / peak(runs.few)
console.log(`status - --concurrency ${CONCURRENCY}, ids on stdin, against a local server; peak resident memory (VmHWM), median of ${ROUNDS} rounds`)
for (const [label, list] of [[`${FEW.toLocaleString('en')} ids`, runs.few], [`${MANY.toLocaleString('en')} ids`, runs.many], [`${MANY.toLocaleString('en')} ids --json`, runs.json]]) {
  console.log(`  ${label.padEnd(18)} ${fixed(peak(list))} MB  (runs: ${list.map((run) => `${run.peakMb.toFixed(1)} MB in ${run.seconds.toFixed(1)} s`).join(', ')})`)
}
const checks = [
  [`peak at ${MANY.toLocaleString('en')} ids ${growth.toFixed(2)}x the peak at ${FEW.toLocaleString('en')} <= ${TARGET_GROWTH}x`, growth <= TARGET_GROWTH],
  [`--json: peak at ${MANY.toLocaleString('en')} ids ${jsonGrowth.toFixed(2)}x the peak at ${FEW.toLocaleString('en')} <= ${TARGET_GROWTH}x`, jsonGrowth <= TARGET_GROWTH],
]
finish(checks)
