/** `paytx doctor`'s report as lines: symbol, label, what was found, and what to do under it. */
import type {DoctorReport} from '../doctor/report.js'
import {visibleText} from '../terminal/visible-text.js'
import {remedyText} from './remedy.js'

const SYMBOL = {ok: '✔', warn: '⚠', fail: '✖'} as const

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

export function renderDoctorReport(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((check) => check.label.length)) + 2
  const lines: string[] = []
  for (const check of report.checks) {
    lines.push(`${SYMBOL[check.status]} ${check.label.padEnd(width)}${visibleText(check.detail)}`)
    if (check.remedy) lines.push(`  ${' '.repeat(width)}→ ${visibleText(check.remedy)}`)
  }
  const failed = report.checks.filter((check) => check.status === 'fail').length
  const warned = report.checks.filter((check) => check.status === 'warn').length
  lines.push('', failed === 0 && warned === 0 ? 'All checks passed.' : `${failed} failed, ${warned} to look at.`)
  return lines.join('\n')
}
