/**
 * Catching up on a backlog of due moves (a restart over a store with 100,000 overdue settlements,
 * say) in a worker thread (catch-up-worker.ts) with a connection of its own to the store, so that
 * the thread answering requests stays free: SQLite's WAL lets it read while the worker writes, and
 * its own writes take the lock by turns (WriteTurns) instead of waiting out a long commit. The
 * worker posts each commit's status events; they are reported here, in order.
 */
import {existsSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {Worker} from 'node:worker_threads'

import type {StatusEvent} from '../events.js'
import {type EmulatorStore, IN_MEMORY_STORE, WriteTurns} from '../store/index.js'
import {type Clock, systemClock} from './clock.js'
import type {LifecycleSettings} from './lifecycle.js'

/** What the worker is given. */
export interface CatchUpWorkerData {
  location: string
  settings: LifecycleSettings
  /** WriteTurns' cells. */
  turns: SharedArrayBuffer
  /** One cell, set to 1 when the emulator stops. */
  stop: SharedArrayBuffer
}

/** What the worker posts: a commit's events and the earliest time it made something due; its end. */
export type CatchUpMessage =
  | {kind: 'moved'; events: StatusEvent[]; dueAt?: number}
  | {kind: 'finished'}
  | {kind: 'failed'; message: string; diskFull: boolean}

/** Told what the worker did, on this thread. */
export interface CatchUpListener {
  moved(events: StatusEvent[]): void
  due(at: number): void
  /** The worker ended: every due move made, or failed (then the moves left are this thread's). */
  ended(failure?: {message: string; diskFull: boolean}): void
}

/** Resolved when asked, not at import: a bundle of this module in another format may have no import.meta.url and never start the thread. */
const workerScript = (): URL => new URL('catch-up-worker.js', import.meta.url)

export class CatchUpThread {
  private readonly turns = new WriteTurns()
  private readonly stopBuffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT)
  private readonly stopCell = new Int32Array(this.stopBuffer)
  private exited?: Promise<void>
  private failed = false

  /**
   * Whether a worker can catch up on this store: a file (an in-memory store is this thread's
   * alone), on real time (an injected clock is this thread's), and with the worker's script at
   * hand. Run from the TypeScript sources (the tests do), there is none: due moves are then made
   * on this thread, in short batches, as they are on a store in memory.
   */
  static possible(location: string, clock: Clock): boolean {
    return location !== IN_MEMORY_STORE && clock === systemClock && existsSync(fileURLToPath(workerScript()))
  }

  constructor(
    private readonly store: EmulatorStore,
    private readonly settings: LifecycleSettings,
    private readonly listener: CatchUpListener,
  ) {}

  /** Whether the worker runs now. */
  get running(): boolean {
    return this.exited !== undefined
  }

  /** Whether a backlog may go to a worker: not after one failed (the same failure would follow). */
  get usable(): boolean {
    return !this.failed && Atomics.load(this.stopCell, 0) === 0
  }

  /** Starts the worker over the moves due now; the listener hears of each commit and of its end. */
  start(): void {
    if (this.running || !this.usable) return
    this.store.addWriteTurn(this.turns.serving)
    this.store.copyLogBackOnCommit(false)
    const data: CatchUpWorkerData = {location: this.store.location, settings: this.settings, turns: this.turns.buffer, stop: this.stopBuffer}
    const worker = new Worker(workerScript(), {workerData: data})
    let failure: {message: string; diskFull: boolean} | undefined
    let finished = false
    worker.on('message', (message: CatchUpMessage) => {
      if (message.kind === 'moved') {
        if (message.events.length > 0) this.listener.moved(message.events)
        if (message.dueAt !== undefined) this.listener.due(message.dueAt)
      } else if (message.kind === 'failed') {
        failure = message
      } else {
        finished = true
      }
    })
    worker.on('error', (error) => (failure ??= {message: error.message, diskFull: false}))
    // Its messages all come before its exit: the listener hears of its end once it is gone.
    this.exited = new Promise((resolve) =>
      worker.once('exit', (code) => {
        this.turns.workerGone()
        this.store.removeWriteTurn(this.turns.serving)
        this.store.copyLogBackOnCommit(true)
        this.exited = undefined
        if (!finished) failure ??= {message: `the catch-up thread ended (exit code ${code})`, diskFull: false}
        if (failure) this.failed = true
        this.listener.ended(failure)
        resolve()
      }),
    )
  }

  /** Asks the worker to stop after the commit under way, and waits until it has. */
  async stop(): Promise<void> {
    Atomics.store(this.stopCell, 0, 1)
    await this.exited
  }
}
