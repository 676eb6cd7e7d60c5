#!/usr/bin/env node
// The floor the emulator's request path is measured against (bench/emulator-floor.js): a bare
// node:http server that does the least a service with a durable store must do. A POST parses
// its JSON body and inserts one row into an SQLite file in WAL mode, with the same libsql and
// the same synchronous setting as the emulator's store, committed before it answers; a GET
// reads the row back by its id. No validation, no routes, no events.
//
//   node bench/lib/floor-server.js <store file>    prints {"url": ...} once listening
import {randomUUID} from 'node:crypto'
import {createServer} from 'node:http'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const Database = createRequire(join(root, 'package.json'))('libsql')
const db = new Database(process.argv[2])
db.exec('PRAGMA journal_mode = WAL')
db.exec('PRAGMA synchronous = NORMAL')
db.exec('CREATE TABLE IF NOT EXISTS transactions (id TEXT PRIMARY KEY, body TEXT NOT NULL, created_at TEXT NOT NULL)')
const insert = db.prepare('INSERT INTO transactions (id, body, created_at) VALUES (?, ?, ?)')
const select = db.prepare('SELECT body FROM transactions WHERE id = ?')

function answer(response, status, text) {
  response.writeHead(status, {'content-type': 'application/json', 'content-length': Buffer.byteLength(text)})
  response.end(text)
}

const server = createServer((request, response) => {
  if (request.method === 'GET') {
    const row = select.get(request.url.slice(request.url.lastIndexOf('/') + 1))
    return row ? answer(response, 200, row.body) : answer(response, 404, '{"code":"NOT_FOUND"}')
  }
  const chunks = []
  request.on('data', (chunk) => chunks.push(chunk))
  request.on('end', () => {
    let body
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      return answer(response, 400, '{"code":"INVALID_JSON"}')
    }
    const now = new Date().toISOString()
    const transaction = {...body, id: randomUUID(), status: 'INITIATED', amount: String(body.amount), created_at: now, last_status_update: now}
    const text = JSON.stringify(transaction)
    insert.run(transaction.id, text, now)
    answer(response, 200, text)
  })
})
server.keepAliveTimeout = 60_000
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({url: `http://127.0.0.1:${server.address().port}`})))
process.on('SIGTERM', () => {
  server.close(() => db.close())
  server.closeAllConnections()
})
