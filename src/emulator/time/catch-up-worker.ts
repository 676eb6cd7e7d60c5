/**
 * The catch-up thread, started by catch-up.ts: it applies a store's overdue moves on a connection
 * of its own, in commits of up to CATCH_UP_BATCH transactions, and posts the status events of each
 * commit once it is made. Between any two transactions it looks whether the thread that answers
 * requests waits to write (then it commits at once and lets it), or whether the emulator stops
 * (then it commits what it has and ends): every move is made once, with its webhook queued in
 * the same commit, whenever the emulator is stopped or killed.
 */
import {parentPort, workerData} from 'node:worker_threads'

import {isDiskFull} from '../../storage/disk-full.js'
import type {StatusEvent} from '../events.js'
import {EmulatorStore, WriteTurns} from '../store/index.js'
import type {CatchUpMessage, CatchUpWorkerData} from './catch-up.js'
import {systemClock} from './clock.js'
import {type DueBatchLimits, TransactionLifecycle} from './lifecycle.js'

/**
 * Long commits make a catch-up fast: the pages of indexes keyed by random ids (a status change's
 * transaction) are written once a commit however many of its rows they take. A request that
 * wants to write ends one early.
 */
const CATCH_UP_BATCH = {moves: 2000, ms: 250}
/**
 * The write-ahead log is copied back into the store file after this many moves (some 150 MiB of
 * log), and when the catch-up is done: each copy waits for the disk twice, and meanwhile no move
 * is made (a catch-up of 100,000 spent 0.5 to 1 s copying every 20,000).
 */
const MOVES_PER_LOG_COPY = 100_000

function catchUp(data: CatchUpWorkerData, post: (message: CatchUpMessage) => void): void {
  const turns = new WriteTurns(data.turns)
  const stop = new Int32Array(data.stop)
  const stopping = () => Atomics.load(stop, 0) !== 0
  const store = EmulatorStore.attach(data.location, 'catch-up')
  store.addWriteTurn(turns.worker)
  try {
    let events: StatusEvent[] = []
    let dueAt: number | undefined
    const lifecycle = new TransactionLifecycle(store, systemClock, data.settings, {
      due: (at) => (dueAt = Math.min(at, dueAt ?? at)),
      status: (event) => events.push(event),
    })
    const limits: DueBatchLimits = {...CATCH_UP_BATCH, stopEarly: () => turns.servingWaits || stopping()}
    let more = true
    let sinceLogCopy = 0
    while (more && !stopping()) {
      const batch = lifecycle.applyDueBatch(limits)
      more = batch.more
      post({kind: 'moved', events, ...(dueAt === undefined ? {} : {dueAt})})
      events = []
      dueAt = undefined
      sinceLogCopy += batch.moved
      if (sinceLogCopy >= MOVES_PER_LOG_COPY || !more) {
        store.copyLogBack()
        sinceLogCopy = 0
      }
    }
    post({kind: 'finished'})
  } catch (error) {
    post({kind: 'failed', message: (error as Error).message, diskFull: isDiskFull(error)})
  } finally {
    store.close()
    turns.workerGone()
  }
}

catchUp(workerData as CatchUpWorkerData, (message) => parentPort!.postMessage(message))
