/**
 * A tunnel program run in a process group of its own, so that everything it starts goes with it:
 * tools fork helpers (a wrapper script, `npx`, a daemon child), and a helper that outlives its
 * parent keeps a public address pointing at this machine. Its death is noticed when the program
 * itself exits (a child still holding its output pipes would hide it until that child ends),
 * and stopping sends SIGTERM to the whole group, then SIGKILL after a bounded grace, whatever
 * is left. If paytx exits without stopping it (a second Ctrl-C, a crash), the group is killed on
 * the way out. Windows has no process groups: there the program alone is signalled.
 */
import {type ChildProcess, spawn} from 'node:child_process'

/** How long the program has to exit after SIGTERM before its group is killed. */
export const STOP_GRACE_MS = 3_000
/** How long the output may take to be read after the program exits (a child of it may hold the pipes for ever). */
const OUTPUT_DRAIN_MS = 250

const GROUPS = process.platform !== 'win32'

export interface GroupExit {
  code: number | null
  signal: NodeJS.Signals | null
}

export interface ProgramGroup {
  child: ChildProcess
  /** Resolves when the program itself exits, once its output has been read (or OUTPUT_DRAIN_MS later). */
  exited: Promise<GroupExit>
  /** Stops the whole group: SIGTERM, SIGKILL after STOP_GRACE_MS; resolves once the program has exited. The same promise every call. */
  stop(): Promise<void>
}

/** Groups not stopped yet, for the last word on the way out. */
const running = new Set<ChildProcess>()
let killingOnExit = false

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (GROUPS && child.pid !== undefined) process.kill(-child.pid, signal)
    else child.kill(signal)
  } catch {
    // ESRCH: no process of the group is left.
  }
}

function killRunningGroups(): void {
  for (const child of running) signalGroup(child, 'SIGKILL')
}

/** Signals that end paytx when nothing else listens for them. */
const FATAL_SIGNALS = ['SIGHUP', 'SIGINT', 'SIGTERM'] as const

/**
 * A signal that would end paytx with no 'exit' event (nothing else listens for it: a closed
 * terminal's SIGHUP, a Ctrl-C before the command listens): the groups are killed, then the
 * signal is raised again for its default effect. In a group of its own a tunnel no longer gets
 * the terminal's signals itself. When the command listens, it stops the group gently instead.
 */
function killGroupsThenDie(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return
  killRunningGroups()
  for (const name of FATAL_SIGNALS) process.off(name, killGroupsThenDie)
  process.kill(process.pid, signal)
}

/** The last word on the way out, from the first group started on. */
function killGroupsOnTheWayOut(): void {
  if (killingOnExit) return
  killingOnExit = true
  process.on('exit', killRunningGroups)
  if (GROUPS) for (const name of FATAL_SIGNALS) process.on(name, killGroupsThenDie)
}

/** Resolves when the promise does, or after `ms`, whichever comes first; the timer is cleared either way. */
function atMost(promise: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<void>((resolve) => (timer = setTimeout(() => resolve(), ms)))
  return Promise.race([promise, late]).finally(() => clearTimeout(timer))
}

function outputClosed(child: ChildProcess): Promise<void> {
  const streams = [child.stdout, child.stderr].filter((stream) => stream !== null)
  return Promise.all(streams.map((stream) => new Promise<void>((resolve) => (stream.closed ? resolve() : stream.once('close', () => resolve()))))).then(() => undefined)
}

export function spawnGroup(command: string, args: string[]): ProgramGroup {
  killGroupsOnTheWayOut()
  const child = spawn(command, args, {stdio: ['ignore', 'pipe', 'pipe'], detached: GROUPS})
  running.add(child)
  const closed = outputClosed(child)
  // 'exit', not 'close': 'close' waits for every holder of the pipes, the program's children included.
  const exitedItself = new Promise<GroupExit>((resolve) => child.once('exit', (code, signal) => resolve({code, signal})))
  // A program that could not start emits 'error' and never 'exit': it counts as exited, with nothing to stop.
  child.once('error', () => running.delete(child))
  const exited = exitedItself.then(async (exit) => {
    await atMost(closed, OUTPUT_DRAIN_MS)
    return exit
  })
  let stopping: Promise<void> | undefined
  const stop = () => {
    stopping ??= (async () => {
      if (child.pid === undefined) return
      signalGroup(child, 'SIGTERM')
      await atMost(Promise.all([exitedItself, closed]), STOP_GRACE_MS)
      // Whatever of the group is left (a child that ignores SIGTERM, or outlived the program) goes now.
      signalGroup(child, 'SIGKILL')
      await exitedItself
      child.stdout?.destroy()
      child.stderr?.destroy()
      running.delete(child)
    })()
    return stopping
  }
  return {child, exited, stop}
}
