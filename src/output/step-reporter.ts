/**
 * A flow's events as a step list on stderr: one labelled line per event, labels in one column.
 * Interactive (the caller decides): a spinner runs while a step is under way and counts down the
 * time left while the flow waits for the person. Otherwise plain lines only, and while waiting a
 * sparse reminder of the time left. The lines that stay are the same either way. stdout is never
 * touched.
 */
import type {FlowEvent} from '../flow/events.js'
import {scrubSecrets} from '../secrets/redact.js'
import {type KeyboardInput, type QuietKeys, quietKeys} from '../terminal/quiet-keys.js'
import {type EventLine, describeFlowEvent, formatStepLine, formatTimeLeft, stepActivity, stepEndedBy} from './flow-event-lines.js'

export interface StepReporter {
  render(event: FlowEvent): void
  /** A line of the command's own (the emulator it started, a hint), in the same column. */
  note(line: EventLine): void
  /** Stops a spinner or reminder left running (after an error or Ctrl-C). */
  stop(): void
}

export interface StepReporterOptions {
  stream?: NodeJS.WritableStream
  /** Spinners and in-place updates: a person is at the terminal (terminal/interactive.ts). */
  interactive: boolean
  color: boolean
  /** Values never to print (keys, a PAN). */
  secrets?: readonly string[]
  now?: () => number
  /** The terminal's keyboard, kept from echoing while a spinner runs (default: this process's stdin). */
  stdin?: KeyboardInput
  /** Non-interactive: how often to repeat the time left while waiting for the person. */
  reminderEveryMs?: number
}

type Spinner = import('ora').Ora

const DEFAULT_REMINDER_EVERY_MS = 60_000
const COUNTDOWN_TICK_MS = 1_000

/** What both kinds of reporter share: where they write, how a line looks, and the countdown's timer. */
interface ReporterBase {
  stream: NodeJS.WritableStream
  format: (line: EventLine) => string
  clean: (text: string) => string
  now: () => number
  /** Runs `tick` every `everyMs` until `stop` (one countdown at a time). */
  countdown: {start(tick: () => void, everyMs: number): void; stop(): void}
}

export async function createStepReporter(options: StepReporterOptions): Promise<StepReporter> {
  const stream = options.stream ?? process.stderr
  const secrets = options.secrets ?? []
  const clean = (text: string) => scrubSecrets(text, secrets)
  /** While the flow waits for the person: the timer that shows the time left. */
  let timer: NodeJS.Timeout | undefined
  const countdown = {
    start(tick: () => void, everyMs: number) {
      clearInterval(timer)
      timer = setInterval(tick, everyMs).unref()
    },
    stop() {
      clearInterval(timer)
      timer = undefined
    },
  }
  // A terminal's width, so that long values wrap between words; a pipe gets whole lines.
  const columns = (stream as {isTTY?: boolean; columns?: number}).isTTY ? (stream as {columns?: number}).columns : undefined
  const width = columns && columns > 0 ? columns : undefined
  const base: ReporterBase = {stream, clean, format: (line) => clean(formatStepLine(line, options.color, width)), now: options.now ?? Date.now, countdown}
  // ora clears lines by the terminal's width: a terminal that reports none (some pseudo-terminals)
  // would be cleared without end, so it gets the plain lines.
  const canSpin = options.interactive && ((stream as {columns?: number}).columns ?? 0) > 0
  return canSpin ? spinningReporter(base, options) : plainReporter(base, options.reminderEveryMs ?? DEFAULT_REMINDER_EVERY_MS)
}

/** Plain lines (a pipe, CI, --no-input): one per event, and a reminder of the time left while waiting. */
function plainReporter({stream, format, now, countdown}: ReporterBase, everyMs: number): StepReporter {
  const write = (line: EventLine) => stream.write(`${format(line)}\n`)
  return {
    render(event) {
      if (stepEndedBy(event) === 'redirect' || event.kind === 'step-failed' || event.kind === 'verdict') countdown.stop()
      for (const line of describeFlowEvent(event)) write(line)
      if (event.kind === 'waiting') {
        const until = now() + event.remainingMs
        countdown.start(() => {
          const left = until - now()
          if (left > 0) write({tone: 'info', label: 'waiting', value: `for the redirect; ${formatTimeLeft(left)} left`})
        }, everyMs)
      }
    },
    note: write,
    stop: () => countdown.stop(),
  }
}

/** A spinner on the step that runs, the lines of finished steps above it, a live countdown while waiting. */
async function spinningReporter({stream, format, clean, now, countdown}: ReporterBase, options: StepReporterOptions): Promise<StepReporter> {
  const {default: ora} = await import('ora')
  let spinner: Spinner | undefined
  let spinning: string | undefined
  let keys: QuietKeys | undefined
  const stopSpinner = () => {
    countdown.stop()
    spinner?.stop()
    keys?.release()
    keys = undefined
    spinner = undefined
    spinning = undefined
  }
  /** A line above the spinner, which keeps running below it. */
  const writeAbove = (line: EventLine) => {
    spinner?.clear()
    stream.write(`${format(line)}\n`)
    spinner?.render()
  }
  return {
    render(event) {
      if (event.kind === 'step-started') {
        stopSpinner()
        spinning = event.step
        // While a step spins, keys typed at the terminal are neither echoed nor left to draw
        // frozen spinner lines (Enter), and Ctrl-C still stops the flow (terminal/quiet-keys.ts).
        // The flow has read what it needs of stdin (--pan-stdin, prompts) before its first step.
        keys ??= quietKeys(options.stdin)
        spinner = ora({text: clean(stepActivity(event.step, event.outcome)), stream, discardStdin: false, color: options.color ? 'cyan' : false, isEnabled: true}).start()
        return
      }
      if (event.kind === 'waiting') {
        // The line stays (as in a pipe); the spinner below it counts down.
        for (const line of describeFlowEvent(event)) writeAbove(line)
        const until = now() + event.remainingMs
        const show = () => {
          if (spinner) spinner.text = `waiting for the redirect: ${formatTimeLeft(until - now())} left`
        }
        show()
        countdown.start(show, COUNTDOWN_TICK_MS)
        return
      }
      const ended = stepEndedBy(event)
      if (ended !== undefined && ended === spinning) stopSpinner()
      for (const line of describeFlowEvent(event)) writeAbove(line)
    },
    note: writeAbove,
    stop: stopSpinner,
  }
}
