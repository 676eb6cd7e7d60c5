/**
 * The search indexing thread, started by search-indexing.ts: indexes the transactions stored
 * since the last it indexed, SEARCH_INDEX_BATCH a commit, on a connection of its own that reads
 * the store and writes the index's file (search-file.ts). When none waits, it sleeps until a
 * commit that stored one wakes it, or SEARCH_INDEX_POLL_MS at most (for what other emulators
 * sharing the store stored). A write that fails (a full disk) is tried again then.
 */
import {parentPort, workerData} from 'node:worker_threads'

import {LOG_COPY_EVERY_MS, type SearchIndexProgress, type SearchIndexWorkerData, SEARCH_INDEX_BATCH, SEARCH_INDEX_PAUSE_MS, SEARCH_INDEX_POLL_MS, SLEEPING, STOP, STORED} from './search-indexing.js'
import {EmulatorStore} from './store.js'

function indexWhileRunning(data: SearchIndexWorkerData): void {
  const control = new Int32Array(data.control)
  const store = EmulatorStore.attach(data.location, 'search-index')
  // A file of that name that is no search index: searches read the store alone.
  if (!store.attachSearchIndexForWriting()) return store.close()
  let logCopied = Date.now()
  try {
    while (Atomics.load(control, STOP) === 0) {
      // Read before looking: a commit made while this one looks wakes the wait below at once.
      const stored = Atomics.load(control, STORED)
      let indexed = 0
      try {
        indexed = store.indexForSearch(SEARCH_INDEX_BATCH)
        parentPort!.postMessage({upTo: store.searchIndexedUpTo()} satisfies SearchIndexProgress)
        // The serving thread's commits leave the write-ahead log to this thread (SQLite's passive
        // copy: it waits for no reader and no writer).
        if (Date.now() - logCopied >= LOG_COPY_EVERY_MS) {
          store.copyLogBack()
          logCopied = Date.now()
        }
      } catch {
        // Tried again after the wait.
      }
      if (indexed === 0) {
        Atomics.store(control, SLEEPING, 1)
        Atomics.wait(control, STORED, stored, SEARCH_INDEX_POLL_MS)
        Atomics.store(control, SLEEPING, 0)
      } else if (indexed < SEARCH_INDEX_BATCH) {
        // Caught up: the next batch gathers meanwhile (a stop ends the pause).
        Atomics.wait(control, STOP, 0, SEARCH_INDEX_PAUSE_MS)
      }
    }
  } finally {
    store.close()
  }
}

indexWhileRunning(workerData as SearchIndexWorkerData)
