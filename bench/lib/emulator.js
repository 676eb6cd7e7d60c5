// What the emulator benchmarks share: starting `paytx emulator start` in a child process over a
// store, HTTP calls on keep-alive agents, a store grown to a given size quickly, and percentiles.
import {spawn} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {createRequire} from 'node:module'
import {Agent, request} from 'node:http'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {benchEnv, median} from './measure.js'

export {finish, median} from './measure.js'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const bin = join(root, 'bin', 'run.js')
export const API_KEY = 'sk_test_paytx_emulator_local_key'
const ORGANISATION = '0a0f2c55-6c8e-4c51-9b0e-3e7a1d000001'

export function requireBuild() {
  if (!existsSync(join(root, 'dist', 'main.js'))) {
    console.error('Build first: npm run build')
    process.exit(2)
  }
}

/** Kills what is still running at exit (a benchmark that fails half-way leaves no emulator behind). */
const children = new Set()
/** The emulators' data and config folders: never the user's own. */
const home = mkdtempSync(join(tmpdir(), 'paytx-bench-home-'))
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
  rmSync(home, {recursive: true, force: true})
})

/**
 * Starts `paytx emulator start --json` over `store` with `args`; resolves once it printed its
 * `listening` event, with the child, its URL and how long that took (ms, from spawn).
 */
export function startEmulator(store, {args = [], env = {}, onLine} = {}) {
  const childEnv = benchEnv({PAYTX_DATA_DIR: home, PAYTX_CONFIG_DIR: home, ...env})
  const began = performance.now()
  const child = spawn(process.execPath, [bin, 'emulator', 'start', '--port', '0', '--store', store, '--json', ...args], {env: childEnv, stdio: ['ignore', 'pipe', 'pipe']})
  children.add(child)
  let errors = ''
  child.stderr.setEncoding('utf8').on('data', (chunk) => (errors += chunk))
  return new Promise((resolve, reject) => {
    let buffered = ''
    let listening = false
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      buffered += chunk
      const lines = buffered.split('\n')
      buffered = lines.pop()
      for (const line of lines) {
        if (!listening && line.startsWith('{"event":"listening"')) {
          listening = true
          resolve({child, url: JSON.parse(line).url, startMs: performance.now() - began})
        } else if (onLine) {
          onLine(line)
        }
      }
    })
    child.once('exit', (code) => {
      if (!listening) reject(new Error(`the emulator exited (${code}) before listening:\n${errors}`))
    })
  })
}

export async function stopEmulator(child) {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

export function keepAliveAgent(maxSockets = 8) {
  return new Agent({keepAlive: true, maxSockets})
}

/** One HTTP call; resolves with {status, text, ms}. */
export function call(agent, url, method, path, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const began = performance.now()
    const req = request(`${url}${path}`, {
      method,
      agent,
      headers: {'x-apikey': API_KEY, ...(payload ? {'content-type': 'application/json', 'content-length': Buffer.byteLength(payload)} : {}), ...headers},
    })
    req.on('response', (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk) => (text += chunk))
      response.on('end', () => resolve({status: response.statusCode, text, ms: performance.now() - began}))
      response.on('error', reject)
    })
    req.on('error', reject)
    req.end(payload)
  })
}

/** A call that must answer 200; resolves with its JSON body. */
export async function callJson(agent, url, method, path, body) {
  const answer = await call(agent, url, method, path, body)
  if (answer.status !== 200) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`)
  return JSON.parse(answer.text)
}

export function createCustomer(agent, url, firstName = 'Jana') {
  return callJson(agent, url, 'POST', '/v1/customer', {
    title: 'ms', first_name: firstName, last_name: 'Jansen', email_address: `${firstName.toLowerCase()}@example.com`, phone_number: '+31612345678',
    street_address: 'Dam 1', postal_code: '1012 JS', city: 'Amsterdam', country_code: 'NL', organisation: ORGANISATION,
  })
}

export function startTransaction(agent, url, customer, extra = {}) {
  return callJson(agent, url, 'POST', '/v1/transaction/start', {
    amount: 1499, customer, payment_product: 'dummy', details: {redirect_url: 'https://shop.example/back'}, ...extra,
  })
}

/**
 * Grows the store at `store` (closed: no emulator running over it) to `total` transactions by
 * copying its newest one in SQL, each copy with its own id, merchant reference `bench-<n>` and
 * creation time one millisecond after the one before, a status and a due time if given, each
 * written to the body and to the columns the store keeps beside it, as its inserts do. Creating
 * 1,000,000 through the API would take most of an hour; this takes seconds. An emulator started
 * over it indexes the copies for search behind them, as it does the API's starts: a bench that
 * measures an index at rest waits for it (waitForSearchIndex).
 */
export function growStore(store, total, {status, dueAt} = {}) {
  const Database = createRequire(join(root, 'package.json'))('libsql')
  const db = new Database(store)
  const have = db.prepare('SELECT count(*) AS n FROM transactions').get().n
  const copies = total - have
  if (copies > 0) {
    const from = new Date(Date.now() - copies - 60_000).toISOString()
    db.exec('BEGIN')
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?),
       copies(i, id) AS MATERIALIZED (SELECT i, lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a'
                                                   || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6))) FROM n)
       INSERT INTO transactions (id, body, cvv_given, settlement_held, due_at, status, created_at, merchant_reference, customer, product)
       SELECT id, json_set(body, '$.id', id, '$.merchant_reference', merchant_reference, '$.created_at', created_at, '$.last_status_update', created_at, '$.status', status),
              0, 0, ?, status, created_at, merchant_reference, customer, product
       FROM (SELECT c.i, c.id, 'bench-' || c.i AS merchant_reference, t.body, t.customer, t.product, coalesce(?, t.status) AS status,
                    strftime('%Y-%m-%dT%H:%M:%fZ', ?, '+' || (c.i / 1000.0) || ' seconds') AS created_at
             FROM copies c, (SELECT body, customer, product, status FROM transactions ORDER BY rowid DESC LIMIT 1) t)
       ORDER BY i`,
    ).run(copies, dueAt ?? null, status ?? null, from)
    db.exec('COMMIT')
  }
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  db.close()
}

/**
 * Resolves once the emulator at `url` has indexed every stored transaction for search (its
 * health's `search_pending` is 0), with how long that took in milliseconds; searches are exact
 * meanwhile, only slower over what is not indexed yet.
 */
export async function waitForSearchIndex(url, timeoutMs = 600_000) {
  const began = performance.now()
  for (;;) {
    const health = await (await fetch(`${url}/_emulator/health`)).json()
    if (health.search_pending === 0) return performance.now() - began
    if (performance.now() - began > timeoutMs) throw new Error(`${url}: ${health.search_pending} transactions still not indexed for search after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** How many transactions of the store at `store` (closed) have a move due at `at`. */
export function countDue(store, at) {
  const Database = createRequire(join(root, 'package.json'))('libsql')
  const db = new Database(store)
  try {
    return db.prepare('SELECT count(*) AS n FROM transactions WHERE due_at <= ?').get(at).n
  } finally {
    db.close()
  }
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]
}

/** Prints rows as a table: the first row is the header, the first column left-aligned. */
export function printTable(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => String(row[column]).length)))
  for (const row of rows) console.log(row.map((cell, column) => (column === 0 ? String(cell).padEnd(widths[column]) : String(cell).padStart(widths[column]))).join('   '))
}
