/**
 * What `status` and `checkoutsuccess` share: ids from arguments, stdin (`-`) or --from-file; one
 * id keeps the command's own view, several are looked up concurrently (at most --concurrency
 * requests in flight; a 429 pauses them all) and shown as one table, TSV, CSV or a JSON array in
 * input order. `status --wait` with several ids waits for all of them at once.
 */
import * as Flags from '@oclif/core/flags'
import type {Command} from '@oclif/core'

import {BaseCommand} from './base-command.js'
import {EXIT, InputError} from './errors.js'
import type {CheckoutSuccess, Transaction} from './api/schemas.js'
import type {LookupResult} from './api/lookup-many.js'
import type {PaymentService} from './api/service.js'
import type {WaitResult, WaitUntil} from './flow/wait-for-status.js'
import {DEFAULT_LOOKUP_CONCURRENCY, type LookupOptions, MAX_LOOKUP_CONCURRENCY, readsStdin, toLookupOptions} from './input/transaction-ids.js'

/** From this many ids on, a progress line is shown on stderr. */
const PROGRESS_FROM = 10

export const LOOKUP_EXIT_CODES_HELP = (command: 'status' | 'checkoutsuccess') => `EXIT CODES WITH SEVERAL IDS
  1    any lookup failed (network, service, 404) or a line was not an id
${
  command === 'status'
    ? `  0    else: every transaction was read
  with --wait:
  3    else: any transaction is final and not a success
  4    else: any transaction is not conclusive within --wait-timeout
  0    else: every transaction succeeded
  130  interrupted (Ctrl-C); the ids still waited for show as interrupted`
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

export abstract class TransactionLookupCommand<T extends typeof Command, R = unknown> extends BaseCommand<T, R> {
  static override strict = false

  /** The ids and how to look them up; reads stdin and --from-file first when they are used. */
  protected async lookupOptions(): Promise<LookupOptions> {
    const flags = this.flags as {'from-file'?: string; concurrency?: number; csv?: boolean}
    const file = flags['from-file']
    const read = {ids: this.argList, 'from-file': file}
    const {readStdinText} = await import('./input/stdin.js')
    const stdin = readsStdin(read) ? await readStdinText(this.ctx.io.stdin) : undefined
    const fromFile = file !== undefined && file !== '-' ? await readIdFile(file) : undefined
    return toLookupOptions({...read, concurrency: flags.concurrency, csv: flags.csv, json: this.jsonEnabled()}, {stdin, fromFile})
  }

  /** Several ids: looked up, printed as a table (TSV, CSV), the exit code set; returns the --json array. */
  protected async answerMany(options: LookupOptions, command: 'status'): Promise<LookupsJson<Transaction, 'transaction'>>
  protected async answerMany(options: LookupOptions, command: 'checkoutsuccess'): Promise<LookupsJson<CheckoutSuccess, 'checkoutsuccess'>>
  protected async answerMany(
    options: LookupOptions,
    command: 'status' | 'checkoutsuccess',
  ): Promise<LookupsJson<Transaction, 'transaction'> | LookupsJson<CheckoutSuccess, 'checkoutsuccess'>> {
    const [output, {checkoutOutcome, lookupsExitCode}] = await Promise.all([import('./output/transaction-lookups.js'), import('./api/lookup-many.js')])
    const table = await this.tableOptions(options)
    if (command === 'status') {
      const results = await this.lookUpAll(options, (service, id) => service.getTransaction(id))
      this.print(output.renderTransactionLookups(results, table))
      this.setOutcomeExitCode(lookupsExitCode(results))
      return lookupsJson(results, 'transaction')
    }
    const results = await this.lookUpAll(options, (service, id) => service.checkoutSuccess(id))
    this.print(output.renderCheckoutLookups(results, table))
    this.setOutcomeExitCode(lookupsExitCode(results, checkoutOutcome))
    return lookupsJson(results, 'checkoutsuccess')
  }

  /**
   * `status --wait` with several ids: every id is waited for at once (reads spaced with back-off,
   * at most --concurrency requests in flight), each change told on stderr as `<id>: A → B`; then
   * the table, and the exit code of the gravest outcome. Ctrl-C stops the waits and still shows
   * the table, the ids still waited for as interrupted (exit 130).
   */
  protected async waitForMany(options: LookupOptions, wait: {timeoutMs: number; until: WaitUntil}): Promise<LookupsJson<Transaction, 'transaction'>> {
    const [output, {lookupsExitCode}, {waitForFinalStatus}, {formatDuration}, {describeStatus}] = await Promise.all([
      import('./output/transaction-lookups.js'),
      import('./api/lookup-many.js'),
      import('./flow/wait-for-status.js'),
      import('./duration.js'),
      import('./output/transaction.js'),
    ])
    const signal = this.interruptSignal()
    this.note(`Waiting for ${options.targets.length} transactions, up to ${formatDuration(wait.timeoutMs)} (Ctrl-C to stop).`)
    const waited = await this.lookUpAll(
      options,
      (service, id) =>
        waitForFinalStatus<Transaction>(() => service.getTransaction(id), {
          ...wait,
          signal,
          onStatus: (transaction, previous, elapsedMs) =>
            this.note(`${id}: ${previous ? `${previous.status} → ` : ''}${describeStatus(transaction.status)}${previous ? `  (after ${formatDuration(elapsedMs)})` : ''}`),
          onReadError: (error) => this.note(`${id}: reading the status failed (${error.message}); trying again.`),
        }),
      {allAtOnce: true},
    )
    for (const result of waited) {
      if (result.value && !result.value.conclusive) this.warnUser(`transaction ${result.id} is still ${result.value.status} after ${formatDuration(wait.timeoutMs)}; not conclusive.`)
    }
    const results = waited.map((result): LookupResult<Transaction> => (result.error ? result : {id: result.id, value: result.value.reading}))
    this.print(output.renderTransactionLookups(results, await this.tableOptions(options)))
    this.setOutcomeExitCode(signal.aborted ? EXIT.interrupted : lookupsExitCode<WaitResult<Transaction>>(waited, (each) => each))
    return lookupsJson(results, 'transaction')
  }

  /**
   * Runs `lookup` for every id over one service client that keeps at most --concurrency requests
   * in flight and pauses them all on a 429; `allAtOnce` starts every lookup together (waits that
   * spend most of their time between reads). Failures are told on stderr, one line each, in order.
   */
  private async lookUpAll<R>(options: LookupOptions, lookup: (service: PaymentService, id: string) => Promise<R>, mode: {allAtOnce?: boolean} = {}): Promise<LookupResult<R>[]> {
    const [{RequestGate}, {lookUpMany}] = await Promise.all([import('./api/request-gate.js'), import('./api/lookup-many.js')])
    const service = await this.service({gate: new RequestGate(options.concurrency)})
    const total = options.targets.length
    const live = !mode.allAtOnce && total >= PROGRESS_FROM && Boolean(this.ctx.io.stderr.isTTY)
    if (!mode.allAtOnce && total >= PROGRESS_FROM && !live) this.note(`Looking up ${total} transactions, ${options.concurrency} at a time.`)
    const clearProgress = () => this.ctx.io.stderr.write('\r\u001B[K')
    // Ctrl-C ends the lookups at once (nothing to clean up but the progress line).
    const onInterrupt = () => {
      clearProgress()
      process.exit(EXIT.interrupted)
    }
    if (live) process.once('SIGINT', onInterrupt)
    const results = await lookUpMany(options.targets, (id) => lookup(service, id), {
      concurrency: mode.allAtOnce ? total : options.concurrency,
      onSettled: live
        ? (done, all, failed) => this.ctx.io.stderr.write(`\r\u001B[KLooked up ${done} of ${all}${failed > 0 ? ` (${failed} failed)` : ''}…`)
        : undefined,
    })
    if (live) {
      process.off('SIGINT', onInterrupt)
      clearProgress()
    }
    for (const result of results) if (result.error) this.sayRemedies(result.error)
    for (const result of results) if (result.error) this.note(`${result.id}: ${result.error.message}`)
    return results
  }

  /** Aligned and fitted to a terminal, TSV in a pipe, CSV with --csv. */
  private async tableOptions(options: LookupOptions) {
    const {tableFormatFor, terminalWidth} = await import('./output/table.js')
    return {format: tableFormatFor(this.ctx.io.stdout, options.csv), width: terminalWidth(this.ctx.io.stdout)}
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
