/**
 * The search index written behind the transaction starts (search-file.ts, search-indexing.ts):
 * a search is exact whatever the index holds yet (it tests the transactions the index lacks
 * itself), newest first, each once, page by page; a reset's new transactions (the seqs start again)
 * never answer for old entries; over a store file the index is a file of its own beside it
 * (0600), read by a query connection, built again when deleted, and a file of that name that is
 * something else is left as it is.
 */
import {mkdtempSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import type {Transaction} from '../../../src/api/schemas.js'
import {EmulatorStore} from '../../../src/emulator/store/index.js'

function transaction(n: number, reference: string): Transaction {
  return {
    id: `${String(n).padStart(8, '0')}-0000-4000-8000-00000000beef`,
    status: n % 2 === 0 ? 'INITIATED' : 'DECLINED',
    status_reason: '',
    amount: '1499',
    payment_product: 'dummy',
    merchant_reference: reference,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    last_status_update: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    details: {},
  } as unknown as Transaction
}

function store(store: EmulatorStore, from: number, to: number, reference = (n: number) => `Order-${n}`): Transaction[] {
  const made: Transaction[] = []
  for (let n = from; n <= to; n++) {
    const tx = transaction(n, reference(n))
    store.insertTransaction({transaction: tx, cvvGiven: false})
    made.push(tx)
  }
  return made
}

/** Every page of a search, following `next`, `limit` a page. */
function found(store: EmulatorStore, search: string, limit = 50, status?: string): string[] {
  const all: string[] = []
  let before: string | undefined
  do {
    const page = store.transactionPage({limit, search, ...(status ? {status} : {}), ...(before ? {before} : {})})
    all.push(...page.transactions.map((entry) => entry.transaction.id))
    before = page.next
  } while (before)
  return all
}

const newestFirst = (list: Transaction[]) => list.map((tx) => tx.id).reverse()

describe('the search index behind the writes', () => {
  it('finds every transaction whether indexed yet or not: newest first, each once, page by page, with filters', () => {
    const memory = EmulatorStore.open()
    expect(memory.attachSearchIndexForWriting()).toBe(true)
    try {
      const first = store(memory, 1, 30)
      expect(memory.searchPending()).toBe(30)
      expect(memory.indexForSearch(12)).toBe(12)
      expect(memory.searchPending()).toBe(18)
      // Half indexed, half not: pages of 7 cross the line between them.
      expect(found(memory, 'order-', 7)).toEqual(newestFirst(first))
      expect(found(memory, 'ORDER-2', 4)).toEqual(newestFirst(first.filter((tx) => tx.merchant_reference!.startsWith('Order-2'))))
      expect(found(memory, '00000005-0000')).toEqual([first[4].id])
      expect(found(memory, '00000025-0000')).toEqual([first[24].id])
      expect(found(memory, 'order-', 5, 'DECLINED')).toEqual(newestFirst(first.filter((tx) => tx.status === 'DECLINED')))
      expect(found(memory, 'no such thing')).toEqual([])
      while (memory.indexForSearch(12) > 0);
      expect(memory.searchPending()).toBe(0)
      expect(found(memory, 'order-', 7)).toEqual(newestFirst(first))
      const later = store(memory, 31, 33, (n) => `later-${n}`)
      expect(found(memory, 'LATER')).toEqual(newestFirst(later))
      expect(found(memory, 'r-3', 3)).toEqual(newestFirst([first[2], ...first.slice(29), ...later]))
    } finally {
      memory.close()
    }
  })

  it("after a reset the seqs start again: the old index's entries never answer for the new transactions", () => {
    const memory = EmulatorStore.open()
    memory.attachSearchIndexForWriting()
    try {
      store(memory, 1, 5, (n) => `alpha-${n}`)
      while (memory.indexForSearch(100) > 0);
      memory.reset()
      const beta = store(memory, 11, 13, (n) => `beta-${n}`)
      expect(found(memory, 'alpha')).toEqual([])
      expect(found(memory, 'beta')).toEqual(newestFirst(beta))
      expect(memory.searchPending()).toBe(3)
      while (memory.indexForSearch(100) > 0);
      expect(found(memory, 'alpha')).toEqual([])
      expect(found(memory, 'beta-1')).toEqual(newestFirst(beta))
      expect(memory.searchPending()).toBe(0)
    } finally {
      memory.close()
    }
  })

  it('over a store file: an index file of its own (0600) that a query connection reads, built again when deleted; a foreign file of its name is left alone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paytx-search-index-'))
    const path = join(dir, 'emulator.db')
    const serving = EmulatorStore.open(path)
    const indexer = EmulatorStore.attach(path, 'search-index')
    const queries = EmulatorStore.attach(path, 'queries')
    try {
      const made = store(serving, 1, 20)
      // No index yet: the query connection reads the store alone, and finds everything.
      expect(found(queries, 'order-1')).toEqual(newestFirst(made.filter((tx) => tx.merchant_reference!.startsWith('Order-1'))))
      expect(indexer.attachSearchIndexForWriting()).toBe(true)
      expect((statSync(`${path}-search`).mode & 0o777).toString(8)).toBe('600')
      expect(indexer.indexForSearch(8)).toBe(8)
      expect(queries.searchPending()).toBe(12)
      expect(found(queries, 'order-', 6)).toEqual(newestFirst(made))
      while (indexer.indexForSearch(8) > 0);
      expect(queries.searchPending()).toBe(0)
      expect(found(queries, 'order-', 6)).toEqual(newestFirst(made))
    } finally {
      for (const connection of [queries, indexer, serving]) connection.close()
    }

    // Deleted: made again by the next indexing, from the first transaction.
    for (const suffix of ['-search', '-search-wal', '-search-shm']) rmSync(`${path}${suffix}`, {force: true})
    const again = EmulatorStore.attach(path, 'search-index')
    try {
      expect(again.attachSearchIndexForWriting()).toBe(true)
      expect(again.searchPending()).toBe(20)
      while (again.indexForSearch(100) > 0);
      expect(again.searchPending()).toBe(0)
    } finally {
      again.close()
    }

    // Something else under its name: neither written nor read, and searches read the store alone.
    for (const suffix of ['-search', '-search-wal', '-search-shm']) rmSync(`${path}${suffix}`, {force: true})
    writeFileSync(`${path}-search`, 'notes of mine\n')
    const other = EmulatorStore.attach(path, 'search-index')
    const reader = EmulatorStore.attach(path, 'queries')
    try {
      expect(other.attachSearchIndexForWriting()).toBe(false)
      expect(other.indexForSearch(100)).toBe(0)
      expect(found(reader, 'order-2')).toEqual([transaction(20, '').id, transaction(2, '').id])
      expect(reader.searchPending()).toBeUndefined()
    } finally {
      other.close()
      reader.close()
    }
    expect(readFileSync(`${path}-search`, 'utf8')).toBe('notes of mine\n')
  })
})
