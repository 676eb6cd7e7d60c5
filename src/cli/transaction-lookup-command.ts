/**
 * What `status` and `checkoutsuccess` share: ids from arguments, stdin (`-`) or --from-file; one
 * id keeps the command's own view, several are looked up concurrently (at most --concurrency
 * requests in flight; a 429 pauses them all) and shown as one table, TSV, CSV or a JSON array in
 * input order, streamed: ids are read and rows written as the lookups go, so memory stays that of
 * a window of ids whatever the length of the list. `status --wait` with several ids waits for all
 * of them at once.
 */
import * as Flags from '@oclif/core/flags'
import type {Command} from '@oclif/core'

import {BaseCommand} from './base-command.js'
import {EXIT, InputError} from '../errors.js'
import type {CheckoutSuccess, Transaction} from '../api/schemas.js'
import type {LookupResult, LookupsSink} from '../api/lookup-many.js'
import type {PaymentService} from '../api/service.js'
import type {IdTarget} from '../input/transaction-ids.js'
import type {WaitResult, WaitUntil} from '../flow/wait-for-status.js'
import {isContinuousIntegration} from '../terminal/interactive.js'
import {visibleText, visibleTextCut} from '../terminal/visible-text.js'
import {DEFAULT_LOOKUP_CONCURRENCY, type LookupOptions, MAX_LOOKUP_CONCURRENCY, checkLookupFlags, toLookupOptions} from '../input/transaction-ids.js'

/** From this many ids on, a progress line is shown on stderr. */
const PROGRESS_FROM = 10
/** What `status -` says when stdin is the terminal: it waits for typed ids until Ctrl-D. */
export const STDIN_PROMPT = 'Reading transaction ids from the terminal, one per line, until Ctrl-D (Ctrl-C to stop).'
/** Without a live line (a pipe, a file, --json), a plain progress line at most this often. */
const PLAIN_PROGRESS_EVERY_MS = 5000

export const LOOKUP_EXIT_CODES_HELP = (command: 'status' | 'checkoutsuccess') => `EXIT CODES WITH SEVERAL IDS
  2    no line is an id, or a flag is wrong: nothing was sent
  1    else: any lookup failed (network, service, 404) or a line was not an id
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
  /** Clears the live progress line while one is drawn (rows and notes are written below it). */
  private clearLive?: () => void
  /** Stops the one exit on Ctrl-C registered last (exitOnInterrupt): reading ids from the terminal, then the lookups. */
  private stopExitOnInterrupt?: () => void

  /** The ids and how to look them up; opens --from-file first, reads stdin and the file as the lookups go. */
  protected async lookupOptions(): Promise<LookupOptions> {
    const flags = this.flags as {'from-file'?: string; concurrency?: number; csv?: boolean}
    const file = flags['from-file']
    const read = {ids: this.argList, 'from-file': file, concurrency: flags.concurrency, csv: flags.csv, json: this.jsonEnabled()}
    checkLookupFlags(read)
    // A person at the terminal would otherwise see nothing happen: say what it waits for and how to end it.
    if ((this.argList.includes('-') || file === '-') && this.ctx.io.stdin.isTTY) {
      this.exitOnInterrupt()
      this.note(STDIN_PROMPT)
    }
    const fromFile = file !== undefined && file !== '-' ? await openIdFile(file) : undefined
    const options = await toLookupOptions(read, {stdin: stdinChunks(() => this.ctx.io.stdin), fromFile})
    // One id: its command listens for Ctrl-C itself (a wait stops with what it saw).
    if (!options.many) this.stopExitOnInterrupt?.()
    return options
  }

  /** Several ids: looked up and written row by row (table, TSV, CSV or the --json array), the exit code set. */
  protected async answerMany(options: LookupOptions, command: 'status' | 'checkoutsuccess'): Promise<undefined> {
    const [{answerLookups, checkoutOutcome}, {preferSmallHeap}] = await Promise.all([import('../api/lookup-many.js'), import('../process/small-heap.js')])
    // A list may run for minutes: memory, not speed, is what V8 must save (see small-heap.ts).
    preferSmallHeap()
    const service = await this.lookupService(options)
    const progress = this.progress(options.total)
    const shared = {concurrency: options.concurrency, onSettled: progress.settled, onFailure: (result: LookupResult<unknown>) => this.noteFailure(result), drained: drainedOf(this.ctx.io.stdout)}
    const {count, failed, exitCode} =
      command === 'status'
        ? await answerLookups(options.targets, (id) => service.getTransaction(id), {...shared, sink: await this.lookupsSink(options, command)})
        : await answerLookups(options.targets, (id) => service.checkoutSuccess(id), {...shared, sink: await this.lookupsSink(options, command), outcome: checkoutOutcome})
    progress.done(count, failed)
    this.setOutcomeExitCode(exitCode)
    return undefined
  }

  /**
   * `status --wait` with several ids: every id is waited for at once (reads spaced with back-off,
   * at most --concurrency requests in flight), each change told on stderr as `<id>: A → B`; then
   * the table, and the exit code of the gravest outcome. Ctrl-C stops the waits and still shows
   * the table, the ids still waited for as interrupted (exit 130). Waiting for all at once, it
   * holds the whole list.
   */
  protected async waitForMany(options: LookupOptions, wait: {timeoutMs: number; until: WaitUntil}): Promise<undefined> {
    const [{answerLookups, lookupsExitCode}, {waitForFinalStatus}, {formatDuration}, {describeStatus}] = await Promise.all([
      import('../api/lookup-many.js'),
      import('../flow/wait-for-status.js'),
      import('../duration.js'),
      import('../output/transaction.js'),
    ])
    const targets: IdTarget[] = []
    for await (const target of options.targets) targets.push(target)
    // From here Ctrl-C stops the waits and still shows the table.
    this.stopExitOnInterrupt?.()
    const signal = this.interruptSignal()
    this.note(`Waiting for ${targets.length} transactions, up to ${formatDuration(wait.timeoutMs)} (Ctrl-C to stop).`)
    const service = await this.lookupService(options)
    const waited: LookupResult<WaitResult<Transaction>>[] = []
    const collect: LookupsSink<WaitResult<Transaction>> = {add: (result) => waited.push(result), end: () => {}}
    await answerLookups(
      listed(targets),
      (id) =>
        waitForFinalStatus<Transaction>(() => service.getTransaction(id), {
          ...wait,
          signal,
          onStatus: (transaction, previous, elapsedMs) =>
            this.note(`${id}: ${previous ? `${visibleText(previous.status)} → ` : ''}${describeStatus(transaction.status)}${previous ? `  (after ${formatDuration(elapsedMs)})` : ''}`),
          onReadError: (error) => this.note(`${id}: reading the status failed (${error.message}); trying again.`),
        }),
      {concurrency: targets.length, sink: collect, onFailure: (result) => this.note(`${result.id}: ${result.error?.message}`)},
    )
    for (const result of waited) {
      if (result.value && !result.value.conclusive) this.warnUser(`transaction ${result.id} is still ${visibleText(result.value.status)} after ${formatDuration(wait.timeoutMs)}; not conclusive.`)
    }
    const sink = await this.lookupsSink(options, 'status')
    for (const result of waited) sink.add(result.error ? result : {id: result.id, value: result.value.reading})
    sink.end()
    this.setOutcomeExitCode(signal.aborted ? EXIT.interrupted : lookupsExitCode<WaitResult<Transaction>>(waited, (each) => each))
    return undefined
  }

  /** One service client for all the lookups: at most --concurrency requests in flight, all paused by a 429. */
  private async lookupService(options: LookupOptions): Promise<PaymentService> {
    const {RequestGate} = await import('../api/request-gate.js')
    return this.service({gate: new RequestGate(options.concurrency)})
  }

  /** Where the rows go: the --json array, or the table (aligned on a terminal, TSV in a pipe, CSV with --csv). */
  private async lookupsSink(options: LookupOptions, command: 'status'): Promise<LookupsSink<Transaction>>
  private async lookupsSink(options: LookupOptions, command: 'checkoutsuccess'): Promise<LookupsSink<CheckoutSuccess>>
  private async lookupsSink(options: LookupOptions, command: 'status' | 'checkoutsuccess'): Promise<LookupsSink<Transaction> | LookupsSink<CheckoutSuccess>> {
    const [output, {tableFormatFor, terminalWidth}] = await Promise.all([import('../output/transaction-lookups.js'), import('../output/table.js')])
    const write = (text: string) => {
      this.clearLive?.()
      this.ctx.io.stdout.write(text)
    }
    if (this.jsonEnabled()) return output.jsonLookupsWriter(command === 'status' ? 'transaction' : 'checkoutsuccess', write)
    const table = {format: tableFormatFor(this.ctx.io.stdout, options.csv), width: terminalWidth(this.ctx.io.stdout)}
    return command === 'status' ? output.transactionLookupsWriter(table, write, this.ctx.clock.now()) : output.checkoutLookupsWriter(table, write)
  }

  /** One failed id on stderr; its remedies in words go into its hint, as a command's own error's do. */
  private noteFailure(result: LookupResult<unknown>): void {
    if (result.error) this.sayRemedies(result.error)
    this.note(`${result.id}: ${result.error?.message}`)
  }

  /**
   * Progress on stderr for PROGRESS_FROM ids or more (from the first when the number is known,
   * else from the PROGRESS_FROM-th: a list read as it comes has no length beforehand). Live (a
   * line rewritten as ids settle) only when stdout and stderr are both terminals that can draw
   * and not under --json; the line is cleared before any row or note is written, so results
   * never glue to it. Otherwise plain lines, at most one every PLAIN_PROGRESS_EVERY_MS by the
   * context's clock, and one at the end. Ctrl-C ends the lookups at once, leaving no live line.
   */
  private progress(total: number | undefined): {settled?: (done: number, failed: number) => void; done: (count: number, failed: number) => void} {
    const failures = (failed: number) => (failed > 0 ? ` (${failed} failed)` : '')
    const counted = (done: number, failed: number) => `Looked up ${done}${total === undefined ? '' : ` of ${total}`}${failures(failed)}`
    if (!this.liveProgressWanted()) {
      const clock = this.ctx.clock
      let last = clock.now()
      const stopListening = this.exitOnInterrupt()
      return {
        settled: (done, failed) => {
          if ((total ?? done) < PROGRESS_FROM || done === total || clock.now() - last < PLAIN_PROGRESS_EVERY_MS) return
          last = clock.now()
          this.note(`${counted(done, failed)}…`)
        },
        done: (count, failed) => {
          stopListening()
          if (count >= PROGRESS_FROM) this.note(`Looked up ${count} transactions${failures(failed)}.`)
        },
      }
    }
    const stderr = this.ctx.io.stderr
    let shown = false
    const clear = () => {
      if (shown) stderr.write('\r\u001B[K')
      shown = false
    }
    this.clearLive = clear
    const stopListening = this.exitOnInterrupt(clear)
    return {
      settled: (done, failed) => {
        if ((total ?? done) < PROGRESS_FROM) return
        shown = true
        stderr.write(`\r\u001B[K${visibleTextCut(`${counted(done, failed)}…`, Math.max(1, terminalColumns(stderr) - 1))}`)
      },
      done: () => {
        stopListening()
        clear()
        this.clearLive = undefined
      },
    }
  }

  /**
   * Ctrl-C or SIGTERM ends the lookups at once (exit 130), after `clear` wipes a live line; the line
   * the terminal echoed `^C` on is ended first (terminal/interrupt.ts). Replaces the one registered
   * before; returns: stop listening.
   */
  private exitOnInterrupt(clear: () => void = () => {}): () => void {
    this.stopExitOnInterrupt?.()
    const interruption = this.interruption()
    const onInterrupt = () => {
      clear()
      interruption.dispose()
      process.exit(EXIT.interrupted)
    }
    interruption.signal.addEventListener('abort', onInterrupt, {once: true})
    this.stopExitOnInterrupt = () => interruption.signal.removeEventListener('abort', onInterrupt)
    return this.stopExitOnInterrupt
  }

  /** A live progress line: stdout and stderr are terminals that can draw, and no --json. */
  private liveProgressWanted(): boolean {
    const {stdout, stderr} = this.ctx.io
    return Boolean(stdout.isTTY && stderr.isTTY) && !this.jsonEnabled() && this.ctx.env.TERM !== 'dumb' && !isContinuousIntegration(this.ctx.env)
  }

  /** A note never glues to the live progress line: the line is cleared first. */
  protected override note(text: string): void {
    this.clearLive?.()
    super.note(text)
  }
}

function terminalColumns(stream: {columns?: number}): number {
  return stream.columns && stream.columns > 0 ? stream.columns : 80
}

/** Resolves at once, or when `stdout` has written what it holds (a slow reader holds the lookups back). */
function drainedOf(stdout: NodeJS.WritableStream & {writableNeedDrain?: boolean}): () => Promise<void> {
  return () => (stdout.writableNeedDrain ? new Promise((resolve) => stdout.once('drain', () => resolve())) : Promise.resolve())
}

/** The command's stdin as it comes; the stream is asked for only once this is read (one id on the command line never does). */
async function* stdinChunks(stdin: () => NodeJS.ReadableStream): AsyncGenerator<Buffer | string> {
  yield* stdin() as AsyncIterable<Buffer | string>
}

async function* listed<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items
}

/**
 * The --from-file list, opened before anything is sent (a missing file, a folder or a device is
 * exit 2), read as the lookups go; a FIFO (`<(command)`) is read as it comes (input-file.ts).
 */
async function openIdFile(file: string): Promise<AsyncIterable<Buffer>> {
  const [{openInputFile}, {fileReadReason}] = await Promise.all([import('../input/input-file.js'), import('../input/file-read-error.js')])
  try {
    return (await openInputFile(file, {fifo: true})).chunks
  } catch (error) {
    throw new InputError(`--from-file ${file} cannot be read: ${fileReadReason(error)}.`, {flag: '--from-file'})
  }
}
