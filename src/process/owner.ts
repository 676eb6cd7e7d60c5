/**
 * When the program that started a long-running paytx (an emulator a test harness runs) is gone,
 * so that paytx does not outlive it. Two signs, each waited for without a busy loop:
 * - the parent exited: the process was handed to another parent (init, or a subreaper), which
 *   `process.ppid` shows on every system Node runs on. This covers a harness killed outright
 *   (SIGKILL, a CI timeout) and wrappers that die on SIGTERM without passing it on.
 * - stdin reached its end, when asked: a harness that spawns paytx with a pipe on stdin holds its
 *   other end, and the pipe closes when the harness dies however it dies, also through
 *   wrappers such as `npx` that stay alive themselves.
 */

export type OwnerGone = 'parent-exited' | 'stdin-closed'

/** How often the parent is looked at: a look is one system call, and a harness is gone for good. */
export const PARENT_CHECK_MS = 500

export interface OwnerWatch {
  /** Settles with the first sign that the owner is gone; never settles while it is there. */
  readonly gone: Promise<OwnerGone>
  /** Stops watching (the timer and the stdin listeners are removed). */
  dispose(): void
}

export interface OwnerWatchOptions {
  /** Watch the parent (default true). A process whose parent is already init (pid 1) has no owner to lose. */
  parent?: boolean
  /** Stdin to read to its end, when its end means the owner is gone. */
  stdin?: NodeJS.ReadableStream
  /** The parent's pid now (process.ppid); tests pass their own. */
  ppid?: () => number
  /** Calls `check` every `ms` until the returned function is called; tests pass a manual ticker. */
  every?: (ms: number, check: () => void) => () => void
}

function everyUnref(ms: number, check: () => void): () => void {
  const timer = setInterval(check, ms)
  // Watching must never keep the process alive by itself.
  timer.unref()
  return () => clearInterval(timer)
}

export function watchOwner(options: OwnerWatchOptions = {}): OwnerWatch {
  const ppid = options.ppid ?? (() => process.ppid)
  const cleanups: (() => void)[] = []
  let settle!: (reason: OwnerGone) => void
  const gone = new Promise<OwnerGone>((resolve) => {
    settle = resolve
  })
  const first = ppid()
  if (options.parent !== false && first > 1) {
    cleanups.push(
      (options.every ?? everyUnref)(PARENT_CHECK_MS, () => {
        if (ppid() !== first) settle('parent-exited')
      }),
    )
  }
  const {stdin} = options
  if (stdin) {
    const ended = () => settle('stdin-closed')
    // What comes in is not for paytx: read and dropped, so that the pipe's end can be seen.
    const drop = () => undefined
    stdin.on('data', drop).once('end', ended).once('close', ended).once('error', ended)
    stdin.resume()
    cleanups.push(() => {
      stdin.off('data', drop).off('end', ended).off('close', ended).off('error', ended)
      stdin.pause()
    })
  }
  return {
    gone,
    dispose() {
      for (const cleanup of cleanups.splice(0)) cleanup()
    },
  }
}
