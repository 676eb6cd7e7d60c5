/** `paytx doctor`'s report as lines: symbol, label, what was found, and what to do under it. */
import type {DoctorReport} from '../doctor/report.js'
import {visibleText} from '../terminal/visible-text.js'

const SYMBOL = {ok: '✔', warn: '⚠', fail: '✖'} as const

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
