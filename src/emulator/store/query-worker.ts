/**
 * The query thread, started by query-thread.ts: answers list and search queries over a read-only
 * connection of its own to the store, one at a time, so that a search that reads many rows (a
 * short one matching few transactions walks them all) never holds up the requests the emulator's
 * own thread answers meanwhile.
 */
import {parentPort, workerData} from 'node:worker_threads'

import type {QueryAnswer, QueryRequest} from './query-thread.js'
import {EmulatorStore} from './store.js'

const port = parentPort!
const store = EmulatorStore.attach((workerData as {location: string}).location, 'queries')
port.on('message', ({id, query}: QueryRequest) => {
  let answer: QueryAnswer
  try {
    answer = {id, page: store.transactionPage(query)}
  } catch (error) {
    answer = {id, error: (error as Error).message}
  }
  port.postMessage(answer)
})
