/**
 * The human rendering of a smoke report: one row per case (case, transaction, expected, got,
 * duration, result with the reason), then a summary line. Only draws; the report is the data.
 */
import {formatDuration} from '../duration.js'
import type {CaseVerdict, SmokeReport} from '../smoke/runner.js'
import {visibleText} from '../terminal/visible-text.js'

export interface TableStyle {
  /** ANSI colours for the result column (off for NO_COLOR and when stdout is not a terminal). */
  color: boolean
}

const VERDICT_WORD: Record<CaseVerdict, string> = {passed: 'pass', failed: 'FAIL', error: 'ERROR', skipped: 'skip'}
const VERDICT_COLOR: Record<CaseVerdict, string> = {passed: '\u001B[32m', failed: '\u001B[31m', error: '\u001B[31m', skipped: '\u001B[33m'}
const RESET = '\u001B[0m'

export function renderResultsTable(report: SmokeReport, style: TableStyle = {color: false}): string {
  const header = ['CASE', 'TRANSACTION', 'EXPECTED', 'GOT', 'DURATION', 'RESULT']
  const rows = report.cases.map((result) => [
    visibleText(result.name),
    result.transactionId ?? '-',
    result.expected,
    visibleText(result.got ?? '-'),
    result.verdict === 'skipped' ? '-' : formatDuration(result.durationMs),
    result.reason ? `${VERDICT_WORD[result.verdict]}: ${visibleText(result.reason)}` : VERDICT_WORD[result.verdict],
  ])
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)))
  const line = (cells: string[], verdict?: CaseVerdict) =>
    cells
      .map((cell, column) => {
        const padded = column === cells.length - 1 ? cell : cell.padEnd(widths[column])
        return column === cells.length - 1 && verdict && style.color ? `${VERDICT_COLOR[verdict]}${padded}${RESET}` : padded
      })
      .join('  ')
  const {summary} = report
  const totals = [
    `${summary.passed} passed`,
    `${summary.failed} failed`,
    ...(summary.errors > 0 ? [`${summary.errors} with errors`] : []),
    ...(summary.skipped > 0 ? [`${summary.skipped} skipped`] : []),
  ]
  return [
    line(header),
    ...rows.map((row, index) => line(row, report.cases[index].verdict)),
    '',
    `${totals.join(', ')} of ${summary.total} case${summary.total === 1 ? '' : 's'} in ${formatDuration(report.durationMs)} (profile ${report.profile}, concurrency ${report.concurrency})`,
  ].join('\n')
}
