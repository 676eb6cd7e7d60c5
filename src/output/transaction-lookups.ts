/**
 * Several lookups as one table: a row per id in input order, with the error in place of a
 * result for the ids that failed. Aligned on a terminal (times as "5m ago", like gh), TSV in a
 * pipe and CSV when asked (times exact, as the service gave them).
 */
import {isFinalStatus, isSuccessStatus} from '../api/contract.js'
import type {CheckoutSuccess, Transaction} from '../api/schemas.js'
import type {LookupResult} from '../api/lookup-many.js'
import {formatAge} from '../duration.js'
import {type TableColumn, type TableOptions, renderTable} from './table.js'

const yesNo = (value: boolean) => (value ? 'yes' : 'no')

/** A failed row's status cell: short (the full message goes to stderr). */
function failure(result: {error: NonNullable<LookupResult<unknown>['error']>}): string {
  const {error} = result
  if (error.kind === 'input') return 'error: not an id'
  return `error: ${error.status ?? error.kind}`
}

// Ids are never cut: support staff copy them from here. The other columns give way (a long
// merchant reference is cut, `--json` has it whole), and a terminal too narrow for a whole id
// shows one block per transaction instead.
const STATUS_COLUMNS: TableColumn[] = [
  {header: 'ID'},
  {header: 'STATUS'},
  {header: 'FINAL'},
  {header: 'SUCCESS'},
  {header: 'AMOUNT'},
  {header: 'REFERENCE', shrink: 'truncate'},
  {header: 'UPDATED'},
]

/** A timestamp for the table: its age on a terminal, exact in TSV and CSV. */
function updatedCell(timestamp: string | undefined, options: TableOptions, now: number): string {
  if (!timestamp) return ''
  const time = Date.parse(timestamp)
  return options.format === 'aligned' && !Number.isNaN(time) ? formatAge(now - time) : timestamp
}

export function renderTransactionLookups(results: readonly LookupResult<Transaction>[], options: TableOptions, now = Date.now()): string {
  const rows = results.map((result) => {
    if (result.error) return [result.id, failure(result), '', '', '', '', '']
    const tx = result.value
    return [
      result.id,
      tx.status,
      yesNo(isFinalStatus(tx.status)),
      yesNo(isSuccessStatus(tx.status)),
      tx.amount === undefined ? '' : String(tx.amount),
      tx.merchant_reference ?? '',
      updatedCell(tx.last_status_update, options, now),
    ]
  })
  return renderTable(STATUS_COLUMNS, rows, {...options, tooNarrow: 'blocks'})
}

const CHECKOUT_COLUMNS: TableColumn[] = [
  {header: 'ID'},
  {header: 'STATUS'},
  {header: 'FINAL'},
  {header: 'SUCCESS'},
  {header: 'REASON', shrink: 'wrap'},
]

export function renderCheckoutLookups(results: readonly LookupResult<CheckoutSuccess>[], options: TableOptions): string {
  const rows = results.map((result) => {
    if (result.error) return [result.id, failure(result), '', '', '']
    const answer = result.value
    return [result.id, answer.status, yesNo(isFinalStatus(answer.status)), yesNo(answer.success === true), answer.status_reason ?? '']
  })
  return renderTable(CHECKOUT_COLUMNS, rows, {...options, tooNarrow: 'blocks'})
}
