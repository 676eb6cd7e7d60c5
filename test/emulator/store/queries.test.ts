/**
 * Lists and search over the store: an older store is migrated on open (its transactions become
 * searchable), search keeps its meaning (a case-insensitive substring of the id, the merchant
 * reference or the customer's id, name or e-mail address), and pages follow one another by key.
 */
import {mkdtempSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import type {Customer, Transaction} from '../../../src/api/schemas.js'
import {EmulatorStore, SCHEMA_VERSION} from '../../../src/emulator/store/index.js'

type Libsql = typeof import('libsql')
const Database = createRequire(import.meta.url)('libsql') as Libsql

const CUSTOMER = {id: 'c0c0c0c0-0000-4000-8000-00000000cafe', first_name: 'Margriet', last_name: 'Van Dijk', email_address: 'MD@Example.com'}

function transaction(n: number, extra: Partial<Transaction> = {}): Transaction {
  return {
    id: `${String(n).padStart(8, '0')}-0000-4000-8000-00000000beef`,
    status: n % 2 === 0 ? 'INITIATED' : 'DECLINED',
    status_reason: '',
    amount: '1499',
    payment_product: n % 3 === 0 ? 'card' : 'dummy',
    merchant_reference: `order-${n}`,
    customer: n % 4 === 0 ? CUSTOMER.id : undefined,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    last_status_update: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    details: {},
    ...extra,
  } as unknown as Transaction
}

/** A store as paytx wrote it before search had its own index (schema version 2), with rows in it. */
function versionTwoStore(path: string, transactions: Transaction[]): void {
  const db = new Database(path)
  db.exec(`
    CREATE TABLE organisations (id TEXT PRIMARY KEY, created_at TEXT NOT NULL);
    CREATE TABLE payment_profiles (id TEXT PRIMARY KEY, organisation TEXT NOT NULL, name TEXT NOT NULL, webhook_transaction_update TEXT NOT NULL, created_at TEXT NOT NULL);
    CREATE TABLE customers (id TEXT PRIMARY KEY, body TEXT NOT NULL);
    CREATE TABLE cards (id TEXT PRIMARY KEY, body TEXT NOT NULL);
    CREATE TABLE transactions (id TEXT PRIMARY KEY, body TEXT NOT NULL, cvv_given INTEGER NOT NULL, settlement_held INTEGER NOT NULL DEFAULT 0, due_at INTEGER);
    CREATE INDEX transactions_due ON transactions (due_at) WHERE due_at IS NOT NULL;
    CREATE TABLE webhook_deliveries (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, transaction_id TEXT NOT NULL, status TEXT NOT NULL,
      url TEXT NOT NULL, payload TEXT NOT NULL, state TEXT NOT NULL, created_at TEXT NOT NULL, delivered_at TEXT, attempts TEXT NOT NULL DEFAULT '[]',
      next_try_at INTEGER, claimed_until INTEGER);
    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_try_at) WHERE state = 'pending';
    CREATE INDEX webhook_deliveries_by_transaction ON webhook_deliveries (transaction_id, url, state);
    CREATE TABLE status_changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, transaction_id TEXT NOT NULL, from_status TEXT, to_status TEXT NOT NULL,
      reason TEXT NOT NULL, at TEXT NOT NULL, by TEXT NOT NULL);
    CREATE INDEX status_changes_by_transaction ON status_changes (transaction_id, seq);
    PRAGMA application_id = ${0x70617978};
    PRAGMA user_version = 2;
  `)
  db.prepare('INSERT INTO customers (id, body) VALUES (?, ?)').run(CUSTOMER.id, JSON.stringify(CUSTOMER))
  const insert = db.prepare('INSERT INTO transactions (id, body, cvv_given) VALUES (?, ?, 0)')
  for (const tx of transactions) insert.run(tx.id, JSON.stringify(tx))
  db.close()
}

function ids(page: {transactions: {transaction: Transaction}[]}): string[] {
  return page.transactions.map((entry) => entry.transaction.id)
}

/** Every page of a query, following `next`. */
function allPages(store: EmulatorStore, query: Omit<Parameters<EmulatorStore['transactionPage']>[0], 'before'>): string[][] {
  const pages: string[][] = []
  let before: string | undefined
  do {
    const page = store.transactionPage({...query, ...(before ? {before} : {})})
    pages.push(ids(page))
    before = page.next
  } while (before)
  return pages
}

const newestFirst = (list: Transaction[]) => list.map((tx) => tx.id).reverse()

describe('transaction lists and search', () => {
  it('migrates a version 2 store on open: its transactions are listed and found as new ones are', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'paytx-queries-')), 'old.db')
    const old = Array.from({length: 8}, (_, n) => transaction(n + 1))
    versionTwoStore(path, old)
    const store = EmulatorStore.open(path)
    try {
      const added = transaction(9, {customer: CUSTOMER.id, merchant_reference: 'Later-Order'} as Partial<Transaction>)
      store.insertTransaction({transaction: added, cvvGiven: false})
      const all = [...old, added]
      expect(ids(store.transactionPage({limit: 50}))).toEqual(newestFirst(all))
      const found = (search: string) => ids(store.transactionPage({limit: 50, search}))
      // The customer's name, e-mail address and id, any case; the merchant reference; the id.
      const withCustomer = newestFirst(all.filter((tx) => tx.customer === CUSTOMER.id))
      expect(found('GRIET VAN')).toEqual(withCustomer)
      expect(found('md@example')).toEqual(withCustomer)
      expect(found('0000cafe')).toEqual(withCustomer)
      expect(found('ORDER-7')).toEqual([old[6].id])
      expect(found('later-o')).toEqual([added.id])
      expect(found('00000003-0000')).toEqual([old[2].id])
      expect(found('nothing like it')).toEqual([])
      // Shorter than the trigram index serves: the same meaning, found by walking newest first.
      expect(found('9-')).toEqual([added.id])
      expect(found('Md')).toEqual(withCustomer)
      expect(store.transactionPage({limit: 50, status: 'DECLINED', product: 'card'}).transactions.map((entry) => entry.transaction.merchant_reference)).toEqual(['Later-Order', 'order-3'])
    } finally {
      store.close()
    }
    const db = new Database(path)
    expect((db.prepare('PRAGMA user_version').get() as {user_version: number}).user_version).toBe(SCHEMA_VERSION)
    db.close()
  })

  it("migrates a store's status timelines and webhook deliveries: each transaction's found as before, the outbox in order", () => {
    const path = join(mkdtempSync(join(tmpdir(), 'paytx-queries-')), 'old.db')
    const old = Array.from({length: 3}, (_, n) => transaction(n + 1))
    versionTwoStore(path, old)
    const db = new Database(path)
    const change = db.prepare("INSERT INTO status_changes (transaction_id, from_status, to_status, reason, at, by) VALUES (?, ?, ?, '', ?, 'start')")
    const delivery = db.prepare("INSERT INTO webhook_deliveries (id, transaction_id, status, url, payload, state, created_at, next_try_at) VALUES (?, ?, ?, 'http://127.0.0.1:9/hooks', '{}', 'pending', ?, 0)")
    for (const [n, tx] of old.entries()) {
      change.run(tx.id, null, 'INITIATED', tx.created_at)
      change.run(tx.id, 'INITIATED', tx.status, tx.last_status_update)
      delivery.run(`d${n}-initiated`, tx.id, 'INITIATED', tx.created_at)
      delivery.run(`d${n}-${tx.status}`, tx.id, tx.status, tx.created_at)
    }
    db.close()
    const store = EmulatorStore.open(path)
    try {
      for (const [n, tx] of old.entries()) {
        expect(store.statusChanges(tx.id).map((entry) => [entry.from, entry.to])).toEqual([[null, 'INITIATED'], ['INITIATED', tx.status]])
        expect(store.deliveries(tx.id).map((entry) => entry.id)).toEqual([`d${n}-initiated`, `d${n}-${tx.status}`])
      }
      // One transaction's webhooks go out in order: only the first of each is due.
      expect(store.dueDeliveries(Date.now(), 10, new Set()).map((entry) => entry.id)).toEqual(['d0-initiated', 'd1-initiated', 'd2-initiated'])
    } finally {
      store.close()
    }
  })

  it('pages by key: every transaction once, in order, for lists, filters and both kinds of search', () => {
    const store = EmulatorStore.open()
    try {
      store.insertCustomer(CUSTOMER as unknown as Customer)
      // Several created in the same millisecond: stored order breaks the tie.
      const all = Array.from({length: 23}, (_, n) => transaction(n + 1, n >= 10 && n < 15 ? {created_at: '2026-01-01T00:00:10.000Z'} : {}))
      for (const tx of all) store.insertTransaction({transaction: tx, cvvGiven: false})
      const expected = [...all].sort((a, b) => b.created_at.localeCompare(a.created_at) || all.indexOf(b) - all.indexOf(a)).map((tx) => tx.id)
      const pages = allPages(store, {limit: 5})
      expect(pages.map((page) => page.length)).toEqual([5, 5, 5, 5, 3])
      expect(pages.flat()).toEqual(expected)
      expect(allPages(store, {limit: 4, status: 'INITIATED'}).flat()).toEqual(expected.filter((id) => all.find((tx) => tx.id === id)!.status === 'INITIATED'))
      const withCustomer = newestFirst(all.filter((tx) => tx.customer === CUSTOMER.id))
      expect(allPages(store, {limit: 2, search: 'margriet'}).flat()).toEqual(withCustomer)
      expect(allPages(store, {limit: 2, search: 'md'}).flat()).toEqual(withCustomer)
      // A page after a transaction that is not there is empty, not the first page again.
      expect(ids(store.transactionPage({limit: 5, before: 'no-such-id'}))).toEqual([])
      expect(ids(store.transactionPage({limit: 5, search: 'margriet', before: 'no-such-id'}))).toEqual([])
    } finally {
      store.close()
    }
  })

  it("finds a search in a transaction's own fields and in its customer's, newest first, each once, page after page", () => {
    const store = EmulatorStore.open()
    try {
      store.insertCustomer(CUSTOMER as unknown as Customer)
      // Some match by the customer, some by the merchant reference, some by both.
      const all = Array.from({length: 30}, (_, n) =>
        transaction(n + 1, {
          customer: n % 3 === 0 ? CUSTOMER.id : undefined,
          merchant_reference: n % 5 === 0 ? `gift-for-MARGRIET-${n}` : `order-${n}`,
        } as Partial<Transaction>),
      )
      for (const tx of all) store.insertTransaction({transaction: tx, cvvGiven: false})
      const matching = newestFirst(all.filter((tx) => tx.customer === CUSTOMER.id || (tx.merchant_reference ?? '').includes('MARGRIET')))
      expect(matching.length).toBeGreaterThan(10)
      for (const limit of [1, 2, 3, 7, 50]) expect(allPages(store, {limit, search: 'margriet'}).flat()).toEqual(matching)
      expect(allPages(store, {limit: 2, search: 'margriet', status: 'INITIATED'}).flat()).toEqual(
        matching.filter((id) => all.find((tx) => tx.id === id)!.status === 'INITIATED'),
      )
      expect(ids(store.transactionPage({limit: 50, search: 'MD@EXAMPLE.COM'}))).toEqual(newestFirst(all.filter((tx) => tx.customer === CUSTOMER.id)))
    } finally {
      store.close()
    }
  })

  it('finds the transactions of many customers sharing a name, newest first', () => {
    const store = EmulatorStore.open()
    try {
      const customers = Array.from({length: 40}, (_, n) => ({...CUSTOMER, id: `c${String(n).padStart(7, '0')}-0000-4000-8000-000000000000`, last_name: `Jansen ${n}`}))
      for (const customer of customers) store.insertCustomer(customer as unknown as Customer)
      const all = Array.from({length: 90}, (_, n) => transaction(n + 1, {customer: customers[(n * 7) % 45]?.id} as Partial<Transaction>))
      for (const tx of all) store.insertTransaction({transaction: tx, cvvGiven: false})
      const expected = newestFirst(all.filter((tx) => tx.customer !== undefined))
      expect(allPages(store, {limit: 8, search: 'jansen'}).flat()).toEqual(expected)
      expect(allPages(store, {limit: 8, search: 'jansen 3'}).flat()).toEqual(newestFirst(all.filter((tx) => /Jansen 3/.test(customers.find((c) => c.id === tx.customer)?.last_name ?? ''))))
    } finally {
      store.close()
    }
  })
})
