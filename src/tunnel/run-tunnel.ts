/**
 * Runs a tunnel program for a local port until paytx is done with it: starts it in a process
 * group of its own (process-group.ts), reads its output until it reports its public https
 * address, and stops the whole group (SIGTERM, then SIGKILL) on every way out. A program that is
 * not installed, says no address in time, reports one that cannot be read, or exits early is an
 * EnvironmentError (exit 1) with what to do and the last lines it printed.
 */
import {formatExactDuration} from '../duration.js'
import {EnvironmentError, InterruptedError} from '../errors.js'
import {visibleText} from '../terminal/visible-text.js'
import {type GroupExit, spawnGroup} from './process-group.js'
import type {TunnelProgram} from './tunnel-program.js'

/** Lines of the program's output kept for error messages. */
const KEPT_LINES = 8
/** A line longer than this is cut: only the address and the last words matter. */
const MAX_LINE_CHARS = 400

export interface TunnelExit extends GroupExit {
  lastLines: string[]
}

export interface RunningTunnel {
  name: string
  /** The public https address the program reported (no path). */
  publicUrl: string
  /** Resolves if the program exits before `stop()` (even while a child of it lives on): the tunnel is gone. */
  readonly died: Promise<TunnelExit>
  stop(): Promise<void>
}

export interface StartTunnelOptions {
  /** How long the program has to report its address. */
  timeoutMs: number
  /** Ctrl-C: the program is stopped and the start rejects with InterruptedError. */
  signal?: AbortSignal
  /** Told once as the program starts (startingLine): a start takes seconds, and nothing else shows meanwhile. */
  announce?: (line: string) => void
}

/** What a starting tunnel says: what it waits for, for how long at most, how to stop it. */
export function startingLine(name: string, timeoutMs: number): string {
  return `Starting ${name}: waiting up to ${formatExactDuration(timeoutMs)} for its public https address (Ctrl-C to stop).`
}

/** Splits a stream into lines, each cut at MAX_LINE_CHARS, without holding more than one line. */
function eachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let pending = ''
  stream.setEncoding?.('utf8')
  stream.on('data', (chunk: string) => {
    const parts = (pending + chunk).split(/\r?\n/)
    pending = parts.pop()!.slice(0, MAX_LINE_CHARS * 4)
    for (const part of parts) onLine(part.slice(0, MAX_LINE_CHARS))
  })
  stream.on('end', () => {
    if (pending) onLine(pending.slice(0, MAX_LINE_CHARS))
  })
}

function exitText(exit: TunnelExit): string {
  return exit.signal ? `was stopped by ${exit.signal}` : `exited with code ${exit.code}`
}

/** The program's last words, for a message. */
export function lastLinesText(lines: string[]): string {
  return lines.length === 0 ? '' : ` Its last output:\n  ${lines.map((line) => visibleText(line)).join('\n  ')}`
}

/** The origin of a reported address, or undefined when it is not an https address that parses. */
function publicOrigin(address: string): string | undefined {
  try {
    const url = new URL(address)
    return url.protocol === 'https:' && url.hostname !== '' ? url.origin : undefined
  } catch {
    return undefined
  }
}

function unreadableAddressError(program: TunnelProgram, address: string, lastLines: string[]): EnvironmentError {
  return new EnvironmentError(
    `${program.name} reported a public address paytx cannot read: ${visibleText(address)}. It was stopped.${lastLinesText(lastLines)}`,
    `Check ${program.name}'s output above; a --tunnel-command tool must print its address as https://host (a port may follow).`,
  )
}

export function startTunnel(program: TunnelProgram, options: StartTunnelOptions): Promise<RunningTunnel> {
  const lastLines: string[] = []
  options.announce?.(startingLine(program.name, options.timeoutMs))
  const group = spawnGroup(program.command, program.args)
  let stopping = false
  const exited = group.exited.then((exit): TunnelExit => ({...exit, lastLines}))
  const stop = () => {
    stopping = true
    return group.stop()
  }

  return new Promise<RunningTunnel>((resolve, reject) => {
    let settled = false
    const fail = (error: Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', onAbort)
      void stop().then(() => reject(error))
    }
    const onAbort = () => fail(new InterruptedError(`Interrupted while ${program.name} was starting.`))
    const timer = setTimeout(
      () => fail(new EnvironmentError(`${program.name} reported no public address within ${Math.round(options.timeoutMs / 1000)} s.${lastLinesText(lastLines)}`, `Check that ${program.name} can reach its service from this network (a proxy or firewall may block it), or allow more time with --tunnel-timeout.`)),
      options.timeoutMs,
    )
    options.signal?.addEventListener('abort', onAbort, {once: true})

    const onLine = (line: string) => {
      lastLines.push(line)
      if (lastLines.length > KEPT_LINES) lastLines.shift()
      const address = settled ? undefined : program.readAddress(line)
      if (address === undefined) return
      const publicUrl = publicOrigin(address)
      if (publicUrl === undefined) return fail(unreadableAddressError(program, address, lastLines))
      settled = true
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', onAbort)
      const died = exited.then((exit) => (stopping ? new Promise<TunnelExit>(() => undefined) : exit))
      resolve({name: program.name, publicUrl, died, stop})
    }
    eachLine(group.child.stdout!, onLine)
    eachLine(group.child.stderr!, onLine)
    group.child.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') fail(new EnvironmentError(`${program.name} is not installed: there is no program "${program.command}" on PATH.`, program.install))
      else fail(new EnvironmentError(`Could not start ${program.name}: ${error.message}.`, program.install))
    })
    void exited.then((exit) => {
      fail(new EnvironmentError(`${program.name} ${exitText(exit)} before reporting a public address.${lastLinesText(exit.lastLines)}`, program.install))
    })
  })
}

/** The error for a tunnel that went away while paytx still needed it. */
export function tunnelLostError(name: string, exit: TunnelExit, what: string): EnvironmentError {
  return new EnvironmentError(
    `${name} ${exitText(exit)} while ${what}: the public address no longer reaches this machine.${lastLinesText(exit.lastLines)}`,
    `Start it again; if it keeps stopping, check ${name}'s own output above or try another tunnel (--tunnel, --tunnel-command).`,
  )
}
