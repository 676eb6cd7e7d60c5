/**
 * Turns at the store's write lock between the thread that answers requests and a worker thread of
 * the same emulator that writes in long transactions (a catch-up after a restart). Left to SQLite,
 * a request finding the lock taken sleeps in steps of 1, 2, 5, 10 ms and more until the worker
 * commits, and the event loop sleeps with it. Here the serving thread says it wants the lock; the
 * worker, which looks between any two of its changes, commits what it has and waits until the
 * serving thread's write is done; the serving thread waits (Atomics.wait) only for that commit.
 * Emulators in other processes sharing the store still meet SQLite's busy wait, as before.
 */

/** What a store asks before its BEGIN and tells after its COMMIT or ROLLBACK. */
export interface WriteTurn {
  begin(): void
  end(): void
}

/** How many serving-thread writes wait for or hold the lock. */
const WANTED = 0
/** 1 while the worker holds, or is about to take, the write lock. */
const WORKER_WRITING = 1

/** The serving thread waits no longer than this for the worker (which never holds it that long). */
const MAX_WAIT_MS = 10_000
/** The worker looks again at least this often while it waits for its turn. */
const WORKER_RECHECK_MS = 100

export class WriteTurns {
  private readonly cells: Int32Array

  /** A new pair of turns, or (in the worker) the one the serving thread shared with it. */
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT)) {
    this.cells = new Int32Array(buffer)
  }

  /** The serving thread's turn: it takes the lock as soon as the worker is between transactions. */
  readonly serving: WriteTurn = {
    begin: () => {
      Atomics.add(this.cells, WANTED, 1)
      const deadline = Date.now() + MAX_WAIT_MS
      while (Atomics.load(this.cells, WORKER_WRITING) === 1) {
        const left = deadline - Date.now()
        // Past the deadline SQLite's own busy wait takes over.
        if (left <= 0 || Atomics.wait(this.cells, WORKER_WRITING, 1, left) === 'timed-out') break
      }
    },
    end: () => {
      Atomics.sub(this.cells, WANTED, 1)
      Atomics.notify(this.cells, WANTED)
    },
  }

  /** The worker's turn: it begins only while no serving-thread write waits. */
  readonly worker: WriteTurn = {
    begin: () => {
      for (;;) {
        let wanted: number
        while ((wanted = Atomics.load(this.cells, WANTED)) > 0) Atomics.wait(this.cells, WANTED, wanted, WORKER_RECHECK_MS)
        Atomics.store(this.cells, WORKER_WRITING, 1)
        // Read after saying so: a serving thread that asked meanwhile either sees the flag and waits, or is seen here.
        if (Atomics.load(this.cells, WANTED) === 0) return
        this.worker.end()
      }
    },
    end: () => {
      Atomics.store(this.cells, WORKER_WRITING, 0)
      Atomics.notify(this.cells, WORKER_WRITING)
    },
  }

  /** For the worker, between two changes: a serving-thread write waits, so commit now. */
  get servingWaits(): boolean {
    return Atomics.load(this.cells, WANTED) > 0
  }

  /** When the worker is gone, however it ended: the serving thread never waits for it again. */
  workerGone(): void {
    this.worker.end()
  }
}
