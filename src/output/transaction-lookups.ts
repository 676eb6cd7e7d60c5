/**
 * Several lookups as one table, written row by row as the results come (a list of any length is
 * never held): a row per id in input order, with the error in place of a result for the ids that
 * failed. Aligned on a terminal and fitted to its width (ids whole; the least needed columns
 * dropped first; today's times as HH:MM:SS), TSV in a pipe and CSV when asked (times exact, as
 * the service gave them); under --json one array, written element by element.
 */
import {isFinalStatus, isSuccessStatus} from '../api/contract.js'
import type {CheckoutSuccess, Transaction} from '../api/schemas.js'
import type {LookupResult} from '../api/lookup-many.js'
import {shortTime} from './short-time.js'
import {type TableColumn, type TableOptions, type TableWriter, createTableWriter} from './table.js'

const yesNo = (value: boolean) => (value ? 'yes' : 'no')

/** A failed row's status cell: short (the full message goes to stderr). */
function failure(result: {error: NonNullable<LookupResult<unknown>['error']>}): string {
  const {error} = result
  if (error.kind === 'input') return 'error: not an id'
  return `error: ${error.status ?? error.kind}`
}

// An id is never cut short: it is what the reader looks up next. FINAL and SUCCESS follow from
// STATUS, so they go first when the terminal is narrow; then REFERENCE, AMOUNT and UPDATED.
const STATUS_COLUMNS: TableColumn[] = [
  {header: 'ID', id: true},
  {header: 'STATUS'},
  {header: 'FINAL', priority: 6},
  {header: 'SUCCESS', priority: 5},
  {header: 'AMOUNT', priority: 3},
  {header: 'REFERENCE', shrink: 'truncate', priority: 4},
  {header: 'UPDATED', priority: 2},
]

/** A timestamp for the table: short on a terminal (the time alone today), exact in TSV and CSV. */
function updatedCell(timestamp: string | undefined, options: TableOptions, now: number): string {
  if (!timestamp) return ''
  return options.format === 'aligned' ? shortTime(timestamp, now) : timestamp
}

function transactionRow(result: LookupResult<Transaction>, options: TableOptions, now: number): string[] {
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
}

// REASON wraps between words, at least 16 wide (never a word broken); FINAL and SUCCESS, which
// STATUS implies (and the exit code says), go first to make room for it.
const CHECKOUT_COLUMNS: TableColumn[] = [
  {header: 'ID', id: true},
  {header: 'STATUS'},
  {header: 'FINAL', priority: 4},
  {header: 'SUCCESS', priority: 3},
  {header: 'REASON', shrink: 'wrap', minWidth: 16, priority: 2},
]

function checkoutRow(result: LookupResult<CheckoutSuccess>): string[] {
  if (result.error) return [result.id, failure(result), '', '', '']
  const answer = result.value
  return [result.id, answer.status, yesNo(isFinalStatus(answer.status)), yesNo(answer.success === true), answer.status_reason ?? '']
}

/** Where the rows of several lookups go: one `add` per result in input order, then `end`. */
export interface LookupsWriter<T> {
  add(result: LookupResult<T>): void
  end(): void
}

function tableLookupsWriter<T>(table: TableWriter, row: (result: LookupResult<T>) => string[]): LookupsWriter<T> {
  return {add: (result) => table.row(row(result)), end: () => table.end()}
}

/** On a terminal too narrow for an id and its status side by side, each id is a block of its own. */
export function transactionLookupsWriter(options: TableOptions, write: (text: string) => void, now = Date.now()): LookupsWriter<Transaction> {
  return tableLookupsWriter(createTableWriter(STATUS_COLUMNS, {tooNarrow: 'blocks', ...options}, write), (result) => transactionRow(result, options, now))
}

export function checkoutLookupsWriter(options: TableOptions, write: (text: string) => void): LookupsWriter<CheckoutSuccess> {
  return tableLookupsWriter(createTableWriter(CHECKOUT_COLUMNS, {tooNarrow: 'blocks', ...options}, write), checkoutRow)
}

/**
 * The --json array of several lookups, `{id, <key>}` or `{id, error}` per id, written element by
 * element: the same document, byte for byte, as JSON.stringify(array, null, 2) of the whole list.
 */
export function jsonLookupsWriter<T>(key: string, write: (text: string) => void): LookupsWriter<T> {
  let count = 0
  return {
    add: (result) => {
      const element = result.error ? {id: result.id, error: result.error} : {id: result.id, [key]: result.value}
      write(`${count++ === 0 ? '[\n' : ',\n'}${JSON.stringify(element, null, 2).replaceAll(/^/gm, '  ')}`)
    },
    end: () => write(count === 0 ? '[]\n' : '\n]\n'),
  }
}
