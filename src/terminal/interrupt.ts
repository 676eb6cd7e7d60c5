/**
 * How every long-running command hears that it should stop: Ctrl-C (SIGINT) and SIGTERM (what CI
 * runners, `timeout` and process managers send) alike. The first one aborts a signal, so the
 * command stops what it waits for, cleans up and exits 130 (EXIT.interrupted); a second one
 * exits at once.
 *
 * Ctrl-C at a terminal in its usual mode makes the terminal echo `^C` where the cursor was, so
 * whatever the command writes next would glue to it (`^CStopped.`). Given the command's terminal,
 * the interruption starts the next line paytx writes on a line of its own, for every command
 * that waits, in this one place (see endLineAfterEcho).
 */
import {EXIT, InterruptedError} from '../errors.js'

export type StopSignal = 'SIGHUP' | 'SIGINT' | 'SIGTERM'

export const INTERRUPT_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM']

export interface Interruption {
  /** Aborted (with an InterruptedError) when the first stop signal arrives. */
  readonly signal: AbortSignal
  /** The stop signal that arrived first, once one has. */
  readonly received: StopSignal | undefined
  /** Stops listening; the process's default handling of the signals comes back. */
  dispose(): void
}

/** The part of `process` this needs, so that tests can pass their own. */
export interface SignalSource {
  on(event: StopSignal, listener: () => void): unknown
  off(event: StopSignal, listener: () => void): unknown
  exit(code: number): never
}

/** A stream of the command's terminal, as the command context's io has it. */
interface TerminalStream {
  isTTY?: boolean
  write(chunk: string | Uint8Array, ...rest: never[]): boolean
}

/** The command's streams, to know whether the terminal echoed `^C` and to end its line. */
export interface InterruptedTerminal {
  stdin: {isTTY?: boolean; isRaw?: boolean}
  stdout: TerminalStream
  stderr: TerminalStream
}

export function listenForInterrupt(signals: readonly StopSignal[] = INTERRUPT_SIGNALS, source: SignalSource = process, terminal?: InterruptedTerminal): Interruption {
  const controller = new AbortController()
  let received: StopSignal | undefined
  let endLine: (() => void) | undefined
  const handlers = signals.map((name) => {
    const handler = () => {
      if (controller.signal.aborted) source.exit(EXIT.interrupted)
      received = name
      // Before the command hears of it, so that its first words after the signal start a line.
      if (name === 'SIGINT' && terminal && echoesCtrlC(terminal)) endLine = endLineAfterEcho(terminal)
      controller.abort(new InterruptedError())
    }
    source.on(name, handler)
    return {name, handler}
  })
  return {
    signal: controller.signal,
    get received() {
      return received
    },
    dispose() {
      for (const {name, handler} of handlers) source.off(name, handler)
      endLine?.()
    },
  }
}

/**
 * Whether Ctrl-C left `^C` on the screen: stdout or stderr is a terminal, and the keyboard is not
 * held in raw mode (terminal/quiet-keys.ts holds it so while a spinner or a live view draws: then
 * the terminal echoes nothing, and the drawing clears its own line).
 */
function echoesCtrlC(terminal: InterruptedTerminal): boolean {
  if (terminal.stdin.isTTY && terminal.stdin.isRaw) return false
  return Boolean(terminal.stdout.isTTY || terminal.stderr.isTTY)
}

const CARRIAGE_RETURN = 0x0d
const LINE_FEED = 0x0a

/**
 * Ends the line `^C` was echoed on before the next write to the terminal (stdout or stderr,
 * whichever comes first): a new line goes first, unless that write starts a line itself (a new
 * line) or redraws the line from its start (a carriage return, as a live line's clearing does,
 * which wipes the `^C` with it). The returned function, called when the command ends, writes the
 * new line if nothing came, so that the shell's prompt starts a line of its own.
 */
export function endLineAfterEcho(terminal: Pick<InterruptedTerminal, 'stdout' | 'stderr'>): () => void {
  const streams = [terminal.stderr, terminal.stdout].filter((stream) => stream.isTTY)
  const own = streams.map((stream) => Object.getOwnPropertyDescriptor(stream, 'write'))
  let pending = true
  const settle = () => {
    pending = false
    streams.forEach((stream, index) => {
      const descriptor = own[index]
      if (descriptor) Object.defineProperty(stream, 'write', descriptor)
      else delete (stream as Partial<TerminalStream>).write
    })
  }
  for (const stream of streams) {
    const write = stream.write
    stream.write = (chunk: string | Uint8Array, ...rest: never[]): boolean => {
      const first = typeof chunk === 'string' ? chunk.charCodeAt(0) : chunk[0]
      if (pending && first !== undefined && !Number.isNaN(first)) {
        settle()
        if (first !== LINE_FEED && first !== CARRIAGE_RETURN) write.call(stream, '\n')
      }
      return write.call(stream, chunk, ...rest)
    }
  }
  return () => {
    if (!pending) return
    settle()
    streams[0]?.write('\n')
  }
}
