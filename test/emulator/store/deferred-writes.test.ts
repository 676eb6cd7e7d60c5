/**
 * A batch of status moves writes its rows many per statement (EmulatorStore.deferringWrites):
 * what it holds back is written before the store reads anything, in the order it was made, in
 * statements of at most 64 rows, and not at all when the write fails.
 */
import {describe, expect, it} from 'vitest'

import type {Transaction} from '../../../src/api/schemas.js'
import {EmulatorStore} from '../../../src/emulator/store/index.js'

const TRANSACTION = {
  id: '00000001-0000-4000-8000-00000000beef',
  status: 'INITIATED',
  status_reason: '',
  amount: '1499',
  payment_product: 'dummy',
  created_at: '2026-01-01T00:00:00.000Z',
  last_status_update: '2026-01-01T00:00:00.000Z',
  details: {},
} as unknown as Transaction

function change(n: number) {
  return {from: `S${n}`, to: `S${n + 1}`, reason: '', at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(), by: 'timer'}
}

function delivery(n: number) {
  return {id: `d${String(n).padStart(3, '0')}`, transaction: TRANSACTION.id, status: `S${n}`, url: 'http://127.0.0.1:9/hooks', state: 'pending' as const, created_at: change(n).at, attempts: [], payload: '{}'}
}

describe('writes held back in a batch', () => {
  it('are read back in order, 130 of one kind at once, with the update that came after them', () => {
    const store = EmulatorStore.open()
    try {
      store.insertTransaction({transaction: TRANSACTION, cvvGiven: false})
      const entry = store.transaction(TRANSACTION.id)!
      const seen = store.write(() =>
        store.deferringWrites(() => {
          for (let n = 0; n < 130; n++) store.recordStatusChange(TRANSACTION.id, change(n), entry.seq)
          for (let n = 0; n < 70; n++) store.enqueueDelivery(delivery(n), 0, entry.seq)
          store.updateTransaction({...entry, transaction: {...TRANSACTION, status: 'S130'}})
          // A read inside the batch sees what it wrote.
          return store.statusChanges(TRANSACTION.id).length
        }),
      )
      expect(seen).toBe(130)
      expect(store.statusChanges(TRANSACTION.id)).toEqual(Array.from({length: 130}, (_, n) => change(n)))
      expect(store.deliveries(TRANSACTION.id).map((entry) => entry.id)).toEqual(Array.from({length: 70}, (_, n) => delivery(n).id))
      expect(store.transaction(TRANSACTION.id)!.transaction.status).toBe('S130')
    } finally {
      store.close()
    }
  })

  it('are not written when the write fails', () => {
    const store = EmulatorStore.open()
    try {
      store.insertTransaction({transaction: TRANSACTION, cvvGiven: false})
      const {seq} = store.transaction(TRANSACTION.id)!
      expect(() =>
        store.write(() =>
          store.deferringWrites(() => {
            store.recordStatusChange(TRANSACTION.id, change(0), seq)
            throw new Error('refused')
          }),
        ),
      ).toThrow('refused')
      store.write(() => store.deferringWrites(() => store.recordStatusChange(TRANSACTION.id, change(1), seq)))
      expect(store.statusChanges(TRANSACTION.id)).toEqual([change(1)])
    } finally {
      store.close()
    }
  })
})
