/**
 * The writes of one turn of the event loop share one commit (EmulatorStore.writeGrouped, the
 * transaction start's path): none is seen by another connection before the commit, each
 * resolves only once committed, a change that throws before it wrote leaves the others, one that
 * throws after it wrote fails them all (nothing stored, nothing acknowledged), and a read, a
 * write, or another store of the same thread commits the group first.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {EmulatorStore} from '../../../src/emulator/store/index.js'
import {storedTransaction} from '../../helpers/stored-transaction.js'

const transaction = (n: number) => storedTransaction(n)

const opened: EmulatorStore[] = []
const folders: string[] = []
afterEach(() => {
  for (const store of opened.splice(0)) store.close()
  for (const folder of folders.splice(0)) rmSync(folder, {recursive: true, force: true})
})

/** A store file, opened by the store under test and by an observer: another emulator's connection. */
function stores(count = 2): EmulatorStore[] {
  const folder = mkdtempSync(join(tmpdir(), 'paytx-grouped-'))
  folders.push(folder)
  const file = join(folder, 'emulator.db')
  return Array.from({length: count}, () => {
    const store = EmulatorStore.open(file)
    opened.push(store)
    return store
  })
}

function insert(store: EmulatorStore, n: number): () => string {
  return () => {
    store.insertTransaction({transaction: transaction(n), cvvGiven: false})
    return transaction(n).id
  }
}

describe('grouped writes', () => {
  it('commit the writes of one turn together, each resolved only once the commit is on disk', async () => {
    const [store, observer] = stores()
    const written = [1, 2, 3].map((n) => store.writeGrouped(insert(store, n)))
    // Still this turn: the group is open, another connection sees none of it.
    expect([1, 2, 3].map((n) => observer.transaction(transaction(n).id))).toEqual([undefined, undefined, undefined])
    const seenWhenResolved = written.map((promise) => promise.then((id) => observer.transaction(id)?.transaction.id))
    expect(await Promise.all(seenWhenResolved)).toEqual([1, 2, 3].map((n) => transaction(n).id))
  })

  it('keep the group when a change throws before it wrote (its checks failed)', async () => {
    const [store, observer] = stores()
    const first = store.writeGrouped(insert(store, 1))
    const check = () => {
      if (!store.customer('nobody')) throw new Error('no such customer')
    }
    expect(() => store.writeGrouped(check)).toThrow('no such customer')
    const third = store.writeGrouped(insert(store, 3))
    await Promise.all([first, third])
    expect(observer.transaction(transaction(1).id)).toBeDefined()
    expect(observer.transaction(transaction(3).id)).toBeDefined()
  })

  it('fail as a whole when a change throws after it wrote: nothing of the group stored, every write rejected', async () => {
    const [store, observer] = stores()
    const first = store.writeGrouped(insert(store, 1))
    expect(() =>
      store.writeGrouped(() => {
        insert(store, 2)()
        throw new Error('disk trouble half-way')
      }),
    ).toThrow('disk trouble half-way')
    await expect(first).rejects.toThrow('disk trouble half-way')
    expect(observer.transaction(transaction(1).id)).toBeUndefined()
    expect(observer.transaction(transaction(2).id)).toBeUndefined()
    // The next group is a new one.
    await store.writeGrouped(insert(store, 3))
    expect(observer.transaction(transaction(3).id)).toBeDefined()
  })

  it('are committed before a read or a write outside the group, so nothing uncommitted is read outside it', async () => {
    const [store, observer] = stores()
    const first = store.writeGrouped(insert(store, 1))
    expect(store.transaction(transaction(1).id)).toBeDefined()
    expect(observer.transaction(transaction(1).id)).toBeDefined()
    const second = store.writeGrouped(insert(store, 2))
    store.write(insert(store, 3))
    expect(observer.transaction(transaction(2).id)).toBeDefined()
    await Promise.all([first, second])
  })

  it('are committed before another store of the same thread writes to the file (two emulators in one process)', async () => {
    const [one, two, observer] = stores(3)
    const first = one.writeGrouped(insert(one, 1))
    // Without that, two's BEGIN would wait for one's lock with the event loop blocked, and fail busy.
    two.write(insert(two, 2))
    const third = two.writeGrouped(insert(two, 3))
    one.write(insert(one, 4))
    await Promise.all([first, third])
    expect([1, 2, 3, 4].map((n) => observer.transaction(transaction(n).id)?.transaction.id)).toEqual([1, 2, 3, 4].map((n) => transaction(n).id))
  })
})
