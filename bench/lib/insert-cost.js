#!/usr/bin/env node
// What one transaction start costs the store, by part (issue 41's write path): a store made by
// the emulator (built dist/), then 20,000 rows inserted as the start does (the transaction's row
// and its first status change), `group` per commit, with one part of the schema taken away:
//   base   the schema as it is
//   nofts  without the trigram search index's trigger
//   noidx  without the five listing indexes (created, status, product, customer, reference)
//   asc    the search index's rowids counting up (the seq) instead of down
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
if (variant === 'nofts') db.exec('DROP TRIGGER transactions_searchable')
if (variant === 'noidx') for (const index of ['created', 'status', 'product', 'customer', 'reference']) db.exec(`DROP INDEX transactions_by_${index}`)
if (variant === 'asc') {
  db.exec('DROP TRIGGER transactions_searchable')
  db.exec(`CREATE TRIGGER transactions_searchable AFTER INSERT ON transactions BEGIN
    INSERT INTO transaction_search (rowid, id, merchant_reference) VALUES (new.seq, new.id, coalesce(new.merchant_reference, '')); END`)
}
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
