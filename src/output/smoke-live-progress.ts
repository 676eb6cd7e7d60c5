/**
 * Progress of a smoke run on stderr. On a terminal: a live line per running case (spinner, the
 * flow's current step, elapsed time), redrawn in place, with each finished case printed above
 * for good: one line for a passing case, and under a failed one its details (reason, expected,
 * got, transaction). Elsewhere (CI logs): the same finished lines and the notes a person needs,
 * such as the approval URL of a manual case. The flow's events arrive as data and are worded here.
 * Case names (from the scenario file) and what the service said (statuses, reasons) are made
 * visible before they are drawn or cut: a status cannot act on the terminal or start a line.
 */
import {formatDuration} from '../duration.js'
import type {FlowEvent} from '../flow/events.js'
import type {SmokeCaseResult, SmokeProgress} from '../smoke/runner.js'
import {MANUAL_OUTCOME} from '../smoke/scenario-schema.js'
import type {SmokeCase} from '../smoke/scenario.js'
import {type KeyboardInput, type QuietKeys, quietKeys} from '../terminal/quiet-keys.js'
import {visibleText, visibleTextCut} from '../terminal/visible-text.js'
import {describeFlowEvent, formatCompactLine, stepActivity} from './flow-event-lines.js'
import {wrapHanging} from './wrap.js'

export interface ProgressStream {
  write(text: string): unknown
  /** The terminal's size; 0 or missing (a pseudo-terminal without a size) means 80 × 24. */
  columns?: number
  rows?: number
}

export interface LiveProgressOptions {
  /** Redraw lines in place (stderr is a terminal). */
  interactive: boolean
  color: boolean
  now?: () => number
  /** Redraw interval of the live lines. */
  tickMs?: number
  /** The terminal's keyboard, kept from echoing into the live lines while they are drawn (terminal/quiet-keys.ts). */
  keys?: KeyboardInput
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const MARK = {passed: '✔', failed: '✖', error: '✖', skipped: '○'} as const
const COLOR = {passed: '\u001B[32m', failed: '\u001B[31m', error: '\u001B[31m', skipped: '\u001B[33m', dim: '\u001B[2m'} as const
const RESET = '\u001B[0m'
/** Not on a terminal: at most one "Still running" line this often. */
const PLAIN_EVERY_MS = 10_000
const DETAIL_INDENT = '    '
const DETAIL_LABEL = 13

/** Continuation lines of a detail line up under its value; on a narrow terminal they start near the edge, so that an id fits whole. */
function detailHang(width: number | undefined): number {
  return width !== undefined && width < 60 ? 2 : DETAIL_INDENT.length + DETAIL_LABEL
}

export class LiveProgress implements SmokeProgress {
  private readonly active = new Map<string, {text: string; startedAt: number}>()
  private drawnLines = 0
  private frame = 0
  private timer?: NodeJS.Timeout
  /** Not on a terminal: the cases running (since when), how many finished, and when the last plain progress line was. */
  private readonly running = new Map<string, number>()
  private finished = 0
  private lastPlainAt?: number
  private quiet?: QuietKeys
  private readonly now: () => number

  constructor(
    private readonly stream: ProgressStream,
    private readonly options: LiveProgressOptions,
  ) {
    this.now = options.now ?? Date.now
  }

  caseStarted(smokeCase: SmokeCase): void {
    if (!this.options.interactive) {
      this.lastPlainAt ??= this.now()
      this.running.set(smokeCase.name, this.now())
      this.timer ??= setInterval(() => this.tick(), this.options.tickMs ?? 1000).unref()
      return
    }
    this.quiet ??= this.options.keys && quietKeys(this.options.keys)
    this.active.set(smokeCase.name, {text: 'starting', startedAt: this.now()})
    this.timer ??= setInterval(() => this.redraw([]), this.options.tickMs ?? 100).unref()
    this.redraw([])
  }

  /**
   * Warnings, and what a person completing a manual case needs (the approval page, the wait),
   * stay on screen; everything else only updates the case's live line.
   */
  caseEvent(smokeCase: SmokeCase, event: FlowEvent): void {
    if (event.kind === 'step-started') {
      this.showStep(smokeCase, stepActivity(event.step, event.outcome))
      return
    }
    const forPerson = smokeCase.outcome === MANUAL_OUTCOME && (event.kind.startsWith('approval-') || event.kind === 'waiting')
    for (const line of describeFlowEvent(event)) {
      if (forPerson || line.tone === 'warning') this.print([`  ${visibleText(smokeCase.name)}: ${visibleText(formatCompactLine(line))}`])
      else this.showStep(smokeCase, formatCompactLine(line))
    }
  }

  caseActivity(smokeCase: SmokeCase, activity: string): void {
    this.showStep(smokeCase, activity)
  }

  caseFinished(result: SmokeCaseResult): void {
    this.active.delete(result.name)
    this.running.delete(result.name)
    this.finished++
    const duration = result.verdict === 'skipped' ? '' : ` (${formatDuration(result.durationMs)})`
    const what = result.verdict === 'passed' ? (result.got ?? '') : result.reason
    const mark = this.paint(COLOR[result.verdict], MARK[result.verdict])
    const name = visibleText(result.name)
    this.print([`${mark} ${name}  ${this.fit(`${what}${duration}`, name.length + 4)}`, ...this.details(result)])
  }

  /**
   * What a person needs to look into a failed case, under its line: the whole reason, what was
   * expected and what came, and the transaction. A passing case is its one line. On a terminal
   * (a CI job's too, when its stderr is one) the details wrap between words (an id stays whole);
   * elsewhere (a log file) each stays one line.
   */
  private details(result: SmokeCaseResult): string[] {
    if (result.verdict !== 'failed' && result.verdict !== 'error') return []
    const width = this.options.interactive ? this.stream.columns || 80 : this.stream.columns || undefined
    const rows: [string, string | undefined][] = [
      ['reason', result.reason],
      ['expected', result.expected],
      ['got', result.got],
      ['transaction', result.transactionId],
    ]
    return rows
      .filter((row): row is [string, string] => Boolean(row[1]))
      .flatMap(([label, value]) => wrapHanging(`${DETAIL_INDENT}${label.padEnd(DETAIL_LABEL)}${visibleText(value)}`, width, detailHang(width)))
  }

  /**
   * Not on a terminal (a CI log): while cases run, a plain line at most every PLAIN_EVERY_MS (by
   * the `now` given), saying which cases still run and for how long, so that a long wait shows
   * a sign of life. The timer calls it; a test may too.
   */
  tick(): void {
    if (this.options.interactive || this.running.size === 0 || this.lastPlainAt === undefined) return
    const now = this.now()
    if (now - this.lastPlainAt < PLAIN_EVERY_MS) return
    this.lastPlainAt = now
    const running = [...this.running].map(([name, since]) => `${visibleText(name)} (${formatDuration(now - since)})`)
    this.stream.write(`Still running: ${running.join(', ')}; ${this.finished} finished.\n`)
  }

  /** A line for the person (e.g. "Interrupted"), printed above the live lines so that none is left behind. */
  notice(line: string): void {
    this.print([line])
  }

  /** Clears the live lines and stops redrawing; the stream is left at the start of a line. */
  close(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    this.running.clear()
    this.quiet?.release()
    this.quiet = undefined
    this.active.clear()
    if (this.options.interactive) this.redraw([])
  }

  private showStep(smokeCase: SmokeCase, text: string): void {
    const entry = this.active.get(smokeCase.name)
    if (!entry) return
    entry.text = visibleText(text)
    this.redraw([])
  }

  private print(lines: string[]): void {
    if (this.options.interactive) this.redraw(lines)
    else this.stream.write(`${lines.join('\n')}\n`)
  }

  private paint(color: string, text: string): string {
    return this.options.color ? `${color}${text}${RESET}` : text
  }

  /**
   * Made visible, then cut to the terminal's width so that no line wraps (a wrapped line breaks
   * the redraw); the cut never falls inside an escape.
   */
  private fit(text: string, used = 0): string {
    return visibleTextCut(text, Math.max(1, (this.stream.columns || 80) - 1 - used))
  }

  private redraw(permanent: string[]): void {
    let out = this.drawnLines > 0 ? `\u001B[${this.drawnLines}F\u001B[J` : ''
    for (const line of permanent) out += `${line}\n`
    const room = Math.max(1, (this.stream.rows || 24) - 2)
    const entries = [...this.active.entries()]
    const shown = entries.length > room ? entries.slice(0, room - 1) : entries
    this.frame = (this.frame + 1) % SPINNER.length
    for (const [name, {text, startedAt}] of shown) {
      const elapsed = formatDuration(this.now() - startedAt)
      out += `${this.paint(COLOR.dim, SPINNER[this.frame])} ${this.fit(`${visibleText(name)}  ${text}  ${elapsed}`, 2)}\n`
    }
    if (shown.length < entries.length) out += `  … and ${entries.length - shown.length} more running\n`
    this.drawnLines = shown.length + (shown.length < entries.length ? 1 : 0)
    if (out) this.stream.write(out)
  }
}
