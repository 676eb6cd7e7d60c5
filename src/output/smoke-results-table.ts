/**
 * The human rendering of a smoke report: one row per case (case, transaction, expected, got,
 * duration, result with the reason), then a summary line. On a terminal the table is fitted to
 * its width (the long columns wrap, the least needed are dropped; one block per case when even
 * that cannot fit); in a pipe it
 * is tab-separated under a header line. Only draws; the report is the data.
 */
import {formatDuration} from '../duration.js'
import type {CaseVerdict, SmokeReport} from '../smoke/runner.js'
import {type TableColumn, type TableFormat, renderTable} from './table.js'
import {visibleText} from '../terminal/visible-text.js'

export interface ResultsTableStyle {
  /** ANSI colours for the result column (off for NO_COLOR and when stdout is not a terminal). */
  color: boolean
  format: TableFormat
  /** The terminal's width, for the aligned form. */
  width?: number
}

const VERDICT_WORD: Record<CaseVerdict, string> = {passed: 'pass', failed: 'FAIL', error: 'ERROR', skipped: 'skip'}
const VERDICT_COLOR: Record<CaseVerdict, string> = {passed: '\u001B[32m', failed: '\u001B[31m', error: '\u001B[31m', skipped: '\u001B[33m'}
const RESET = '\u001B[0m'

// The transaction id is never cut; EXPECTED, GOT and DURATION go first on a narrow terminal (a
// failure's RESULT names the difference).
const COLUMNS: TableColumn[] = [
  {header: 'CASE', shrink: 'wrap', minWidth: 12},
  {header: 'TRANSACTION', id: true},
  {header: 'EXPECTED', shrink: 'wrap', minWidth: 16, priority: 3},
  {header: 'GOT', shrink: 'wrap', minWidth: 16, priority: 2},
  {header: 'DURATION', priority: 4},
  {header: 'RESULT', shrink: 'wrap', minWidth: 16},
]
const RESULT_COLUMN = COLUMNS.length - 1

export function renderResultsTable(report: SmokeReport, style: ResultsTableStyle = {color: false, format: 'aligned'}): string {
  const rows = report.cases.map((result) => [
    visibleText(result.name),
    result.transactionId ?? '-',
    result.expected,
    visibleText(result.got ?? '-'),
    result.verdict === 'skipped' ? '-' : formatDuration(result.durationMs),
    result.reason ? `${VERDICT_WORD[result.verdict]}: ${visibleText(result.reason)}` : VERDICT_WORD[result.verdict],
  ])
  const paint = (row: number, column: number, text: string) =>
    column === RESULT_COLUMN ? `${VERDICT_COLOR[report.cases[row].verdict]}${text}${RESET}` : text
  return renderTable(COLUMNS, rows, {format: style.format, width: style.width, paint: style.color ? paint : undefined, tooNarrow: 'blocks'})
}

export function renderResultsSummary(report: SmokeReport): string {
  const {summary} = report
  const totals = [
    `${summary.passed} passed`,
    `${summary.failed} failed`,
    ...(summary.errors > 0 ? [`${summary.errors} with errors`] : []),
    ...(summary.skipped > 0 ? [`${summary.skipped} skipped`] : []),
  ]
  const shard = report.shard ? `, shard ${report.shard.index}/${report.shard.total}` : ''
  return `${totals.join(', ')} of ${summary.total} case${summary.total === 1 ? '' : 's'} in ${formatDuration(report.durationMs)} (profile ${report.profile}, concurrency ${report.concurrency}${shard})`
}
