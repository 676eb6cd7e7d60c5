/**
 * Pages of transactions (the dashboard's list and search, the admin list) read by a worker thread
 * with a connection of its own (query-worker.ts): a search over 100,000 stored takes a millisecond
 * or two, a short and rare one up to a few hundred, and on the emulator's own thread every request
 * arriving meanwhile would wait for it. SQLite's WAL lets the worker read while this thread writes;
 * it reads what was committed when the query starts, so a page shown after an answer includes
 * what that answer committed.
 */
import {existsSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {Worker} from 'node:worker_threads'

import {IN_MEMORY_STORE} from './database.js'
import type {EmulatorStore, TransactionPage, TransactionQuery} from './store.js'

export interface QueryRequest {
  id: number
  query: TransactionQuery
}

export type QueryAnswer = {id: number; page: TransactionPage} | {id: number; error: string}

/** Where the list routes get their pages. */
export interface TransactionPages {
  page(query: TransactionQuery): Promise<TransactionPage>
  close(): Promise<void>
}

/** Resolved when asked, not at import: a bundle of this module in another format may have no import.meta.url and never start the thread. */
const workerScript = (): URL => new URL('query-worker.js', import.meta.url)

/**
 * The pages of this store: from a query thread for a store file, when its script is at hand. An
 * in-memory store is this thread's alone, and run from the TypeScript sources (the tests do) there
 * is no script: the query then runs here, with the rest of the request on the next turn of the
 * event loop, so that requests that came meanwhile are answered in between.
 */
export function transactionPages(store: EmulatorStore): TransactionPages {
  if (store.location !== IN_MEMORY_STORE && existsSync(fileURLToPath(workerScript()))) return new QueryThread(store.location)
  return {
    page: (query) => {
      const page = store.transactionPage(query)
      return new Promise((resolve) => setImmediate(() => resolve(page)))
    },
    close: async () => {},
  }
}

class QueryThread implements TransactionPages {
  private worker?: Worker
  private readonly waiting = new Map<number, {resolve(page: TransactionPage): void; reject(error: Error): void}>()
  private lastId = 0

  constructor(private readonly location: string) {}

  page(query: TransactionQuery): Promise<TransactionPage> {
    const id = ++this.lastId
    return new Promise((resolve, reject) => {
      this.waiting.set(id, {resolve, reject})
      this.started().postMessage({id, query} satisfies QueryRequest)
    })
  }

  async close(): Promise<void> {
    const worker = this.worker
    this.worker = undefined
    await worker?.terminate()
  }

  /** The worker, started on the first query (and again after one that failed). */
  private started(): Worker {
    if (this.worker) return this.worker
    const worker = new Worker(workerScript(), {workerData: {location: this.location}})
    // An idle query thread does not keep a closing process alive.
    worker.unref()
    worker.on('message', (answer: QueryAnswer) => {
      const waiting = this.waiting.get(answer.id)
      this.waiting.delete(answer.id)
      if ('page' in answer) waiting?.resolve(answer.page)
      else waiting?.reject(new Error(answer.error))
    })
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined
      for (const waiting of this.waiting.values()) waiting.reject(error)
      this.waiting.clear()
    }
    worker.on('error', fail)
    worker.on('exit', (code) => fail(new Error(`the query thread ended (exit code ${code})`)))
    this.worker = worker
    return worker
  }
}
