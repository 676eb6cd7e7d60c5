/**
 * Transactions indexed for search behind their writes. The trigram index cost a transaction start
 * more than its row, its other indexes and its commit together (issue 41's profile: some 70 µs of
 * CPU and a third of the commit, under the one write lock), so a start stores its row only, and
 * this indexes what was stored since, many rows a commit, into the index's own file
 * (search-file.ts), whose write lock is its own. Searches stay exact meanwhile: they test the
 * transactions the index does not hold yet themselves (EmulatorStore.searchPage).
 *
 * Over a store file a thread of its own does it (search-index-worker.ts), woken after each
 * commit that stored a transaction, and once a second for those that other emulators sharing
 * the store stored. An in-memory store is indexed on this thread, after the turn of the event
 * loop that stored them (as is a store file when run from the sources, without the thread's script).
 */
import {existsSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {Worker} from 'node:worker_threads'

import {IN_MEMORY_STORE} from './database.js'
import {EmulatorStore} from './store.js'

/** Transactions indexed a commit at most: some 50 ms on the thread; on this one, a quarter of that between turns. */
export const SEARCH_INDEX_BATCH = 1000
const BATCH_HERE = 250
/** The thread looks for transactions other emulators stored this often, when nothing woke it. */
export const SEARCH_INDEX_POLL_MS = 1000
/** The thread copies the store's write-ahead log back into its file at most this often, while transactions are stored. */
export const LOG_COPY_EVERY_MS = 250

/**
 * The control cells shared with the thread: stop (1 once asked to stop), a count of commits that
 * stored transactions, and whether the thread sleeps until one comes (only then is it woken:
 * waking a thread costs the serving thread a system call, as much as a tenth of a start).
 */
export const STOP = 0
export const STORED = 1
export const SLEEPING = 2
/** Between two commits of its own, the thread lets this much time pass (while transactions come, a batch gathers). */
export const SEARCH_INDEX_PAUSE_MS = 50

export interface SearchIndexWorkerData {
  location: string
  control: SharedArrayBuffer
}

export interface SearchIndexing {
  /** How many stored transactions the index does not hold yet (searches find them all the same); undefined while unknown. */
  pending(): number | undefined
  /** Stops indexing (the thread after the commit under way); what is left is indexed by the next emulator. */
  close(): Promise<void>
}

/** What the thread posts after each commit (and once it has looked): up to which seq the index holds every transaction. */
export interface SearchIndexProgress {
  upTo: number
}

/** Resolved when asked, not at import: a bundle of this module in another format may have no import.meta.url. */
const workerScript = (): URL => new URL('search-index-worker.js', import.meta.url)

/** Indexing for this store: on a thread of its own for a store file when its script is at hand (the build), else here. */
export function searchIndexing(store: EmulatorStore): SearchIndexing {
  if (store.location !== IN_MEMORY_STORE && existsSync(fileURLToPath(workerScript()))) return new SearchIndexThread(store)
  return new SearchIndexingHere(store)
}

class SearchIndexingHere implements SearchIndexing {
  private next?: NodeJS.Immediate
  private closed = false
  /** The store itself when in memory; a connection of its own to a store file (the store's writes would lock the index too). */
  private readonly indexer: EmulatorStore

  constructor(private readonly store: EmulatorStore) {
    this.indexer = store.location === IN_MEMORY_STORE ? store : EmulatorStore.attach(store.location, 'search-index')
    if (!this.indexer.attachSearchIndexForWriting()) {
      this.closeIndexer()
      return
    }
    store.onTransactionsStored = () => this.soon()
    // What the store holds unindexed (stored before this emulator started) is indexed too.
    this.soon()
  }

  private soon(): void {
    if (this.next || this.closed) return
    this.next = setImmediate(() => {
      this.next = undefined
      let indexed = 0
      try {
        indexed = this.indexer.indexForSearch(BATCH_HERE)
      } catch {
        // A full disk or a busy index: the next stored transaction tries again; searches find them all meanwhile.
      }
      if (indexed > 0) this.soon()
    })
    this.next.unref()
  }

  pending(): number | undefined {
    return this.closed ? undefined : this.indexer.searchPending()
  }

  private closeIndexer(): void {
    this.closed = true
    if (this.indexer !== this.store) this.indexer.close()
  }

  async close(): Promise<void> {
    if (this.closed) return
    if (this.next) clearImmediate(this.next)
    this.next = undefined
    this.store.onTransactionsStored = undefined
    this.closeIndexer()
  }
}

class SearchIndexThread implements SearchIndexing {
  private readonly control = new Int32Array(new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT))
  private readonly exited: Promise<void>
  private upTo?: number
  private here?: SearchIndexing
  private readonly worker: Worker

  constructor(private readonly store: EmulatorStore) {
    // The thread copies the write-ahead log back, between its own commits, not a request's commit.
    store.copyLogBackOnCommit(false)
    store.onTransactionsStored = () => {
      // Told after the count: a thread about to sleep sees the count changed and does not.
      Atomics.add(this.control, STORED, 1)
      if (Atomics.load(this.control, SLEEPING) === 1) Atomics.notify(this.control, STORED)
    }
    const data: SearchIndexWorkerData = {location: store.location, control: this.control.buffer as SharedArrayBuffer}
    const worker = new Worker(workerScript(), {workerData: data, resourceLimits: {maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 12, stackSizeMb: 1}})
    this.worker = worker
    // An idle indexing thread does not keep a process alive; one asked to stop does, until it has.
    worker.unref()
    worker.on('message', (progress: SearchIndexProgress) => (this.upTo = progress.upTo))
    this.exited = new Promise((resolve) => {
      // However it ended (a crash too), the store is indexed on this thread from then on.
      worker.once('exit', () => {
        store.onTransactionsStored = undefined
        store.copyLogBackOnCommit(true)
        if (Atomics.load(this.control, STOP) === 0) this.here = new SearchIndexingHere(store)
        resolve()
      })
    })
    worker.on('error', () => {
      // Told by its exit, which follows.
    })
  }

  pending(): number | undefined {
    if (this.here) return this.here.pending()
    return this.upTo === undefined ? undefined : Math.max(0, this.store.lastStoredSeq() - this.upTo)
  }

  async close(): Promise<void> {
    Atomics.store(this.control, STOP, 1)
    Atomics.notify(this.control, STORED)
    Atomics.notify(this.control, STOP)
    this.worker.ref()
    await this.exited
    await this.here?.close()
  }
}
