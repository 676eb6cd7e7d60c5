/** `paytx doctor`'s report as lines: mark, label, what was found, and what to do under it. */
import type {CheckStatus, DoctorReport} from '../doctor/report.js'
import {visibleText} from '../terminal/visible-text.js'
import {type LineTone, toneMark} from './flow-event-lines.js'
import {remedyText} from './remedy.js'
import {wrapHanging} from './wrap.js'

/** Doctor's marks are flow's: ✔ green, ⚠ yellow, ✖ red. */
const TONE: Record<CheckStatus, LineTone> = {ok: 'done', warn: 'warning', fail: 'failed'}

/** Below this many columns for the values, continuation lines start near the left edge instead of under the value. */
const MIN_VALUE_COLUMNS = 30
const NARROW_HANG = 2
/** Held together while lines are broken (`12 ms`, `pid 4242`), then a plain space again. */
const GLUE = '\u00A0'

/** Each line of `text` broken between words, a number kept with its unit and a pid with its number; no trailing spaces. */
function wrapGlued(text: string, width: number | undefined, hang: number): string[] {
  const glued = text.replaceAll(/(\d) (ms|s|bytes|KB|MB)\b/g, `$1${GLUE}$2`).replaceAll(/\bpid (\d)/g, `pid${GLUE}$1`)
  return wrapHanging(glued, width, hang).map((line) => line.replaceAll(GLUE, ' ').trimEnd())
}

/** `paytx …` at the start of a quoted command, or after a pipe in it, as the user ran paytx. */
function commandsAsRun(text: string, invokedAs: string): string {
  return text.replaceAll(/`[^`]*`/g, (code) => code.replaceAll(/(^`|[|;&]\s*)paytx /g, (_, before: string) => `${before}${invokedAs} `))
}

/**
 * The report as the user sees it, on a terminal or under --json: the commands in each remedy named
 * as paytx was run (\`./bin/run.js profile show\` in a clone), and remedies held as data put in words.
 */
export function withCommandsAsRun(report: DoctorReport, invokedAs: string): DoctorReport {
  const checks = report.checks.map(({remedies, ...check}) => {
    const parts = [check.remedy && commandsAsRun(check.remedy, invokedAs), ...(remedies ?? []).map((remedy) => remedyText(remedy, invokedAs))]
    const remedy = parts.filter(Boolean).join(' ')
    return remedy ? {...check, remedy} : check
  })
  return {...report, checks}
}

export interface DoctorRenderOptions {
  /** The terminal's width: lines break between words under their value; undefined (a pipe): lines stay whole. */
  width?: number
  /** Colour the marks, as flow does: a terminal without NO_COLOR. */
  color?: boolean
}

export function renderDoctorReport(report: DoctorReport, {width, color = false}: DoctorRenderOptions = {}): string {
  const labelWidth = Math.max(...report.checks.map((check) => check.label.length)) + 2
  const column = 2 + labelWidth
  const hang = width !== undefined && width - column < MIN_VALUE_COLUMNS ? NARROW_HANG : column
  const lines: string[] = []
  for (const check of report.checks) {
    const text = `${check.label.padEnd(labelWidth)}${visibleText(check.detail)}`
    const [first, ...rest] = wrapGlued(`  ${text}`, width, hang)
    lines.push(`${toneMark(TONE[check.status], color)} ${first.slice(2)}`, ...rest)
    if (check.remedy) lines.push(...wrapGlued(`${' '.repeat(hang)}→ ${visibleText(check.remedy)}`, width, hang + 2))
  }
  const failed = report.checks.filter((check) => check.status === 'fail').length
  const warned = report.checks.filter((check) => check.status === 'warn').length
  lines.push('', failed === 0 && warned === 0 ? 'All checks passed.' : `${failed} failed, ${warned} to look at.`)
  return lines.join('\n')
}
