/**
 * The transactions a store keeps as last read (EmulatorStore.transaction): a read of one of them
 * skips SQLite, yet what it answers is never older than the turn of the event loop it is asked
 * in. Its own changes are seen at once (a change forgets the transaction, a rolled-back one too);
 * another connection's commit (another emulator sharing the file, a worker thread) is seen from
 * the next turn on; a reset forgets them all.
 */
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {setImmediate as nextTurn} from 'node:timers/promises'

import {describe, expect, it} from 'vitest'

import type {Transaction} from '../../../src/api/schemas.js'
import {EmulatorStore, type StoredTransaction} from '../../../src/emulator/store/index.js'

const ID = '00000001-0000-4000-8000-00000000beef'

function transaction(status: string): Transaction {
  return {
    id: ID,
    status,
    status_reason: '',
    amount: '1499',
    payment_product: 'dummy',
    merchant_reference: 'order-1',
    created_at: '2026-01-01T00:00:00.000Z',
    last_status_update: '2026-01-01T00:00:00.000Z',
    details: {},
  } as unknown as Transaction
}

const statusOf = (store: EmulatorStore) => store.transaction(ID)?.transaction.status

const CUSTOMER = {id: 'c0c0c0c0-0000-4000-8000-00000000cafe', first_name: 'Margriet', last_name: 'Van Dijk', email_address: 'md@example.com'} as never
const PROFILE = {id: '7d3c2a10-5b1e-4f6a-8c2d-9e0b4d0000aa', organisation: '0a0f2c55-6c8e-4c51-9b0e-3e7a1d000001', name: 'shop', webhook_transaction_update: 'http://127.0.0.1:9/a', created_at: '2026-01-01T00:00:00.000Z'}

describe('the transactions a store keeps as last read', () => {
  it("sees its own changes at once, a rolled-back change's transaction as committed, and forgets them all at a reset", () => {
    const store = EmulatorStore.open()
    try {
      store.write(() => store.insertTransaction({transaction: transaction('INITIATED'), cvvGiven: false}))
      expect(statusOf(store)).toBe('INITIATED')
      const entry = store.transaction(ID)!
      entry.transaction.status = 'IN_PROGRESS'
      store.write(() => store.updateTransaction(entry))
      expect(statusOf(store)).toBe('IN_PROGRESS')
      // A copy each time: changing what a read gave changes nothing kept.
      store.transaction(ID)!.transaction.status = 'CANCELLED'
      expect(statusOf(store)).toBe('IN_PROGRESS')
      expect(() =>
        store.write(() => {
          entry.transaction.status = 'DECLINED'
          store.updateTransaction(entry)
          throw new Error('the change fails after its update')
        }),
      ).toThrow('the change fails')
      expect(statusOf(store)).toBe('IN_PROGRESS')
      store.reset()
      expect(store.transaction(ID)).toBeUndefined()
    } finally {
      store.close()
    }
  })

  it('reads a started transaction as committed: never one of a group that failed, one changed later in its group as changed', async () => {
    const store = EmulatorStore.open()
    try {
      const failed = store.writeGrouped(() => store.insertTransaction({transaction: transaction('INITIATED'), cvvGiven: false}))
      expect(() =>
        store.writeGrouped(() => {
          store.insertTransaction({transaction: {...transaction('INITIATED'), id: ID.replace('00000001', '00000002')}, cvvGiven: false})
          throw new Error('the disk filled half-way')
        }),
      ).toThrow('the disk filled')
      await expect(failed).rejects.toThrow('the disk filled')
      expect(store.transaction(ID)).toBeUndefined()

      await store.writeGrouped(() => {
        const entry = {transaction: transaction('INITIATED'), cvvGiven: false}
        store.insertTransaction(entry)
        entry.transaction.status = 'IN_PROGRESS'
        store.updateTransaction(entry)
      })
      expect(statusOf(store)).toBe('IN_PROGRESS')
    } finally {
      store.close()
    }
  })

  it("sees another connection's commit from the next turn of the event loop on", async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'paytx-recent-reads-')), 'emulator.db')
    const serving = EmulatorStore.open(path)
    const other = EmulatorStore.attach(path, 'catch-up')
    try {
      serving.write(() => serving.insertTransaction({transaction: transaction('INITIATED'), cvvGiven: false}))
      expect(statusOf(serving)).toBe('INITIATED')
      await nextTurn()
      expect(statusOf(serving)).toBe('INITIATED')
      const entry = other.transaction(ID)!
      entry.transaction.status = 'SETTLEMENT_COMPLETED'
      other.write(() => other.updateTransaction(entry))
      await nextTurn()
      expect(statusOf(serving)).toBe('SETTLEMENT_COMPLETED')
      // Another transaction read first in the turn: the check it made forgets this one too.
      const second = {...transaction('INITIATED'), id: ID.replace('00000001', '00000002')}
      serving.write(() => serving.insertTransaction({transaction: second, cvvGiven: false}))
      await nextTurn()
      expect(statusOf(serving)).toBe('SETTLEMENT_COMPLETED')
      expect(serving.transaction(second.id)?.transaction.status).toBe('INITIATED')
      entry.transaction.status = 'CANCELLED'
      other.write(() => other.updateTransaction(entry))
      await nextTurn()
      expect(serving.transaction(second.id)?.transaction.status).toBe('INITIATED')
      expect(statusOf(serving)).toBe('CANCELLED')
    } finally {
      other.close()
      serving.close()
    }
  })

  it("knows a customer and a payment profile until another connection's reset or change, seen by the next write at once", async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'paytx-recent-reads-')), 'emulator.db')
    const serving = EmulatorStore.open(path)
    const other = EmulatorStore.attach(path, 'catch-up')
    try {
      serving.write(() => {
        serving.insertCustomer(CUSTOMER)
        serving.putPaymentProfile(PROFILE, {replaceWebhook: true})
      })
      await nextTurn()
      expect(serving.hasCustomer((CUSTOMER as {id: string}).id)).toBe(true)
      expect(serving.paymentProfile(PROFILE.id)?.webhook_transaction_update).toBe('http://127.0.0.1:9/a')
      other.write(() => other.putPaymentProfile({...PROFILE, webhook_transaction_update: 'http://127.0.0.1:9/b'}, {replaceWebhook: true}))
      other.reset()
      // In the same turn, a write of the serving store (a start's, grouped) holds the lock: it sees the reset.
      expect(await serving.writeGrouped(() => serving.hasCustomer((CUSTOMER as {id: string}).id))).toBe(false)
      other.write(() => other.putPaymentProfile({...PROFILE, webhook_transaction_update: 'http://127.0.0.1:9/c'}, {replaceWebhook: true}))
      await nextTurn()
      expect(serving.paymentProfile(PROFILE.id)?.webhook_transaction_update).toBe('http://127.0.0.1:9/c')
      expect(serving.hasCustomer((CUSTOMER as {id: string}).id)).toBe(false)
    } finally {
      other.close()
      serving.close()
    }
  })

  it("keeps a transaction's rendering with it: written again only once it changed (its own change, another connection's commit), or for another renderer", async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'paytx-recent-reads-')), 'emulator.db')
    const serving = EmulatorStore.open(path)
    const other = EmulatorStore.attach(path, 'catch-up')
    const rendered: string[] = []
    const render = (entry: StoredTransaction) => (rendered.push(entry.transaction.status), `status ${entry.transaction.status}`)
    const shout = (entry: StoredTransaction) => entry.transaction.status.toUpperCase() + '!'
    try {
      serving.write(() => serving.insertTransaction({transaction: transaction('INITIATED'), cvvGiven: false, dueAt: 5000}))
      expect(serving.renderedTransaction(ID, render)).toEqual({text: 'status INITIATED', dueAt: 5000})
      expect(serving.renderedTransaction(ID, render)).toEqual({text: 'status INITIATED', dueAt: 5000})
      expect(rendered).toEqual(['INITIATED'])
      expect(serving.renderedTransaction(ID, shout)?.text).toBe('INITIATED!')
      expect(serving.renderedTransaction(ID.replace('00000001', '00000009'), render)).toBeUndefined()

      // What is kept of it is its rendering now: its body is read again, whole.
      const entry = serving.transaction(ID)!
      expect(entry).toMatchObject({transaction: {status: 'INITIATED', merchant_reference: 'order-1'}, dueAt: 5000})
      entry.transaction.status = 'IN_PROGRESS'
      serving.write(() => serving.updateTransaction(entry))
      expect(serving.renderedTransaction(ID, render)?.text).toBe('status IN_PROGRESS')
      // Inside a write of its own (which may roll back), a rendering is never kept.
      serving.write(() => {
        expect(serving.renderedTransaction(ID, render)?.text).toBe('status IN_PROGRESS')
        expect(serving.renderedTransaction(ID, render)?.text).toBe('status IN_PROGRESS')
      })
      expect(rendered).toEqual(['INITIATED', 'IN_PROGRESS', 'IN_PROGRESS', 'IN_PROGRESS'])

      await nextTurn()
      entry.transaction.status = 'CANCELLED'
      other.write(() => other.updateTransaction(entry))
      await nextTurn()
      expect(serving.renderedTransaction(ID, render)?.text).toBe('status CANCELLED')
      expect(serving.renderedTransaction(ID, render)?.text).toBe('status CANCELLED')
      expect(rendered.at(-1)).toBe('CANCELLED')
      expect(rendered).toHaveLength(5)
    } finally {
      other.close()
      serving.close()
    }
  })
})
