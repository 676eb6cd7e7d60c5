/**
 * The store's write-ahead log stays bounded while a worker thread copies it back instead of the
 * serving connection's commits (the search indexing, the catch-up): SQLite starts the log again
 * from its first page only when a writer begins after the whole of it was copied, which under a
 * steady stream of requests a copy on another thread never lets happen. Here the thread never
 * copies at all, the worst case: the serving connection's own commits must.
 */
import {mkdtempSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, describe, expect, it} from 'vitest'

import {EmulatorStore} from '../../../src/emulator/store/index.js'
import {storedTransaction} from '../../helpers/stored-transaction.js'

const work = mkdtempSync(join(tmpdir(), 'paytx-log-length-'))
afterAll(() => rmSync(work, {recursive: true, force: true}))

/** A transaction some 16 KB long, so that each commit writes several pages. */
const transaction = (n: number) => storedTransaction(n, {details: {redirect_url: `https://shop.example/back?${'x'.repeat(16_000)}`}} as never)

/** A page and its frame header: what the log holds of one page. */
const FRAME_BYTES = 4096 + 24

describe('the write-ahead log while a worker thread copies it back', () => {
  it('stays within 4096 pages and a commit, however long the stream of commits, and loses none', () => {
    const file = join(work, 'emulator.db')
    const store = EmulatorStore.open(file)
    const commits = 1500
    try {
      store.copyLogBackOnCommit(false)
      for (let n = 0; n < commits; n++) store.write(() => store.insertTransaction({transaction: transaction(n), cvvGiven: false}))
      // At 5 pages and more a commit, a log never started again would hold 7,500 pages and more.
      expect(statSync(`${file}-wal`).size).toBeLessThanOrEqual((4096 + 64) * FRAME_BYTES)
    } finally {
      store.close()
    }
    const reopened = EmulatorStore.open(file)
    try {
      expect(reopened.lastStoredSeq()).toBe(commits)
      expect(reopened.transaction(transaction(commits - 1).id)?.transaction.merchant_reference).toBe(`order-${commits - 1}`)
    } finally {
      reopened.close()
    }
  })
})
