/**
 * What `status` and `checkoutsuccess` share: ids from arguments, stdin (`-`) or --from-file; one
 * id keeps the command's own view, several are looked up concurrently (a 429 pauses them all)
 * and shown as one table, TSV, CSV or a JSON array in input order.
 */
import {type Command, Flags} from '@oclif/core'

import {BaseCommand} from './base-command.js'
import {InputError} from './errors.js'
import type {CheckoutSuccess, Transaction} from './api/contract.js'
import type {LookupResult} from './api/lookup-many.js'
import type {PaymentService} from './api/service.js'
import {DEFAULT_LOOKUP_CONCURRENCY, type LookupOptions, MAX_LOOKUP_CONCURRENCY, readsStdin, toLookupOptions} from './input/transaction-ids.js'

/** From this many ids on, a progress line is shown on stderr. */
const PROGRESS_FROM = 10

export const LOOKUP_EXIT_CODES_HELP = (command: 'status' | 'checkoutsuccess') => `EXIT CODES WITH SEVERAL IDS
  1    any lookup failed (network, service, 404) or a line was not an id
${
  command === 'status'
    ? '  0    every transaction was read'
    : `  3    else: any transaction is final and not a success
  4    else: any transaction is not final yet
  0    else: every transaction succeeded`
}`

export const LOOKUP_FLAGS = {
  'from-file': Flags.string({summary: 'Read ids from this file, one per line (- for stdin); blank lines and # comments are skipped.'}),
  concurrency: Flags.integer({
    summary: `Lookups in flight at once, with several ids (default ${DEFAULT_LOOKUP_CONCURRENCY}, at most ${MAX_LOOKUP_CONCURRENCY}).`,
  }),
  csv: Flags.boolean({summary: 'Print the results as CSV (a header line, then one row per id).'}),
}

export abstract class TransactionLookupCommand<T extends typeof Command> extends BaseCommand<T> {
  static override strict = false

  /** The ids and how to look them up; reads stdin and --from-file first when they are used. */
  protected async lookupOptions(extra: {wait?: boolean} = {}): Promise<LookupOptions> {
    const flags = this.flags as {'from-file'?: string; concurrency?: number; csv?: boolean}
    const file = flags['from-file']
    const read = {ids: this.argList, 'from-file': file}
    const {readStdinText} = await import('./input/stdin.js')
    const stdin = readsStdin(read) ? await readStdinText() : undefined
    const fromFile = file !== undefined && file !== '-' ? await readIdFile(file) : undefined
    return toLookupOptions({...read, concurrency: flags.concurrency, csv: flags.csv, json: this.jsonEnabled(), wait: extra.wait}, {stdin, fromFile})
  }

  /** Several ids: looked up, printed as a table (TSV, CSV), the exit code set; returns the --json array. */
  protected async answerMany(options: LookupOptions, command: 'status'): Promise<LookupsJson<Transaction, 'transaction'>>
  protected async answerMany(options: LookupOptions, command: 'checkoutsuccess'): Promise<LookupsJson<CheckoutSuccess, 'checkoutsuccess'>>
  protected async answerMany(
    options: LookupOptions,
    command: 'status' | 'checkoutsuccess',
  ): Promise<LookupsJson<Transaction, 'transaction'> | LookupsJson<CheckoutSuccess, 'checkoutsuccess'>> {
    const [output, {lookupsExitCode}, {tableFormatFor, terminalWidth}] = await Promise.all([
      import('./output/transaction-lookups.js'),
      import('./api/lookup-many.js'),
      import('./output/table.js'),
    ])
    const table = {format: tableFormatFor(process.stdout, options.csv), width: terminalWidth(process.stdout)}
    if (command === 'status') {
      const results = await this.lookUpAll(options, (service, id) => service.getTransaction(id))
      this.print(output.renderTransactionLookups(results, table))
      this.setOutcomeExitCode(lookupsExitCode(results, command))
      return lookupsJson(results, 'transaction')
    }
    const results = await this.lookUpAll(options, (service, id) => service.checkoutSuccess(id))
    this.print(output.renderCheckoutLookups(results, table))
    this.setOutcomeExitCode(lookupsExitCode(results, command))
    return lookupsJson(results, 'checkoutsuccess')
  }

  /**
   * Runs `lookup` for every id, at most --concurrency at once over one service client whose 429
   * pauses every lookup; failures are told on stderr, one line each, in input order.
   */
  private async lookUpAll<R>(options: LookupOptions, lookup: (service: PaymentService, id: string) => Promise<R>): Promise<LookupResult<R>[]> {
    const [{SharedPause}, {lookUpMany}] = await Promise.all([import('./api/request-pacer.js'), import('./api/lookup-many.js')])
    const service = await this.service({pause: new SharedPause()})
    const total = options.targets.length
    const live = total >= PROGRESS_FROM && Boolean(process.stderr.isTTY)
    if (total >= PROGRESS_FROM && !live) this.note(`Looking up ${total} transactions, ${options.concurrency} at a time.`)
    const results = await lookUpMany(options.targets, (id) => lookup(service, id), {
      concurrency: options.concurrency,
      onSettled: live
        ? (done, all, failed) => process.stderr.write(`\r\u001B[KLooked up ${done} of ${all}${failed > 0 ? ` (${failed} failed)` : ''}…`)
        : undefined,
    })
    if (live) process.stderr.write('\r\u001B[K')
    for (const result of results) if (result.error) this.note(`${result.id}: ${result.error.message}`)
    return results
  }

}

async function readIdFile(file: string): Promise<string> {
  const {readFile} = await import('node:fs/promises')
  try {
    return await readFile(file, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'it does not exist' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message
    throw new InputError(`--from-file ${file} cannot be read: ${why}.`, {flag: '--from-file'})
  }
}

/** The JSON of several lookups: `{id, <key>}` or `{id, error}` per id, in input order. */
export type LookupsJson<R, K extends string> = ({id: string} & ({[P in K]: R} | {error: unknown}))[]

function lookupsJson<R, K extends string>(results: readonly LookupResult<R>[], key: K): LookupsJson<R, K> {
  return results.map((result) => (result.error ? {id: result.id, error: result.error} : ({id: result.id, [key]: result.value} as {id: string} & {[P in K]: R})))
}
