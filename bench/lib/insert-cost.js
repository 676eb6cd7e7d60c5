#!/usr/bin/env node
// What one transaction start costs the store, by part (issue 41's write path): a store made by
// the emulator (built dist/), then 20,000 rows inserted as the start does (the transaction's row
// and its first status change), `group` per commit, with one part of the schema changed:
//   base   the schema as it is (the search index is written behind, in a file of its own)
//   fts    with the trigram search index written in the same commit, in the store itself (as
//          before issue 41: what the start paid for it)
//   noidx  without the five listing indexes (created, status, product, customer, reference)
// Prints wall and CPU microseconds per insert; CPU is the figure to trust on a loaded machine.
//   node bench/lib/insert-cost.js <variant> [group, default 4]
import {mkdtempSync, rmSync} from 'node:fs'
import {randomUUID} from 'node:crypto'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {requireBuild, root} from './emulator.js'

requireBuild()
const {startEmulator} = await import(join(root, 'dist', 'lib-emulator.js'))
const Database = createRequire(join(root, 'package.json'))('libsql')
const [variant = 'base', groupText = '4'] = process.argv.slice(2)
const group = Number(groupText)
const dir = mkdtempSync(join(tmpdir(), 'paytx-insert-cost-'))
process.on('exit', () => rmSync(dir, {recursive: true, force: true}))
const store = join(dir, 'store.db')
await (await startEmulator({port: 0, store})).close()

const db = new Database(store)
db.exec('PRAGMA journal_mode = WAL')
db.exec('PRAGMA synchronous = NORMAL')
if (variant === 'fts') {
  db.exec(`CREATE VIRTUAL TABLE transaction_search USING fts5 (id, merchant_reference, tokenize = 'trigram');
    CREATE TRIGGER transactions_searchable AFTER INSERT ON transactions BEGIN
      INSERT INTO transaction_search (rowid, id, merchant_reference) VALUES (1099511627776 - new.seq, new.id, coalesce(new.merchant_reference, '')); END`)
}
if (variant === 'noidx') for (const index of ['created', 'status', 'product', 'customer', 'reference']) db.exec(`DROP INDEX transactions_by_${index}`)
const insert = db.prepare(`INSERT INTO transactions (id, body, cvv_given, settlement_held, due_at, status, created_at, merchant_reference, customer, product)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
const statusChange = db.prepare('INSERT INTO status_changes (transaction_id, transaction_seq, from_status, to_status, reason, at, by) VALUES (?, ?, ?, ?, ?, ?, ?)')
const body = JSON.stringify({amount: '1499', details: {redirect_url: 'https://shop.example/back'}, pad: 'x'.repeat(400)})
const customer = randomUUID()
const COUNT = 20_000
const began = performance.now()
const cpu = process.cpuUsage()
for (let i = 0; i < COUNT; i += group) {
  db.exec('BEGIN IMMEDIATE')
  for (let j = 0; j < group; j++) {
    const id = randomUUID()
    const now = new Date(Date.now() + i).toISOString()
    const {lastInsertRowid} = insert.run(id, body, 0, 0, Date.now() + 3_600_000, 'INITIATED', now, '', customer, 'dummy')
    statusChange.run(id, lastInsertRowid, null, 'INITIATED', '', now, 'start')
  }
  db.exec('COMMIT')
}
const used = process.cpuUsage(cpu)
db.close()
console.log(`${variant}, ${group} a commit: ${(((performance.now() - began) / COUNT) * 1000).toFixed(1)} µs wall, ${((used.user + used.system) / COUNT).toFixed(1)} µs CPU per insert`)
