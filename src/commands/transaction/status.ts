import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import type {Transaction} from '../../api/schemas.js'
import {isFinalStatus} from '../../api/contract.js'
import {InterruptedError, outcomeExitCode} from '../../errors.js'
import {EXIT_CODES_HELP} from '../../cli/base-command.js'
import {renderTransaction, unlistedStatusWarning} from '../../output/transaction.js'
import {lineWidth} from '../../output/wrap.js'
import {visibleText} from '../../terminal/visible-text.js'
import {LOOKUP_EXIT_CODES_HELP, LOOKUP_FLAGS, TransactionLookupCommand} from '../../cli/transaction-lookup-command.js'

export default class TransactionStatus extends TransactionLookupCommand<typeof TransactionStatus, Transaction | undefined> {
  static override aliases = ['status']
  static override summary = 'Show a transaction, or several: status, whether it is final and a success, amount, timestamps.'
  static override description = `Reads GET /v1/transaction/{id}. With --json, prints the service's object unchanged.
Read-only: never asks for confirmation, also on production.

Several ids (as arguments, one per line on stdin with -, or in a file with --from-file; blank lines and # comments skipped, ids trimmed) are looked up --concurrency at a time, in a table on a terminal (ID, STATUS, FINAL, SUCCESS, AMOUNT in minor units, REFERENCE, UPDATED), tab-separated under a header line in a pipe, CSV with --csv, or with --json an array of {id, transaction} or {id, error} in input order. A line that is not an id (empty, over 200 characters, or with whitespace, a control character, /, ?, # or a backslash inside) is reported with its line number and not sent, and the others are looked up; a line over 1 MiB is reported by its first characters and reading goes on after it. When no line is an id, nothing is sent (exit 2). A 429 pauses every lookup for its Retry-After.

With --wait, reads the status again (with back-off) until it is conclusive, printing each change to stderr, then prints the transaction; the exit code is then the verdict: 0 success, 3 final and not a success, 4 not conclusive within --wait-timeout. UNKNOWN (critical: the service cannot determine the state) is reported loudly and waited through. SETTLEMENT_REQUESTED counts as success unless --until settled, which waits for SETTLEMENT_COMPLETED.
With several ids, --wait waits for all of them at once (at most --concurrency reads in flight), each change on stderr as "<id>: A → B", then prints the table; the exit code is that of the gravest outcome.

${EXIT_CODES_HELP}

${LOOKUP_EXIT_CODES_HELP('status')}`

  static override examples = [
    '<%= config.bin %> transaction status 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c',
    '<%= config.bin %> status 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c --profile production --json',
    '<%= config.bin %> status 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c --wait --until settled --wait-timeout 2m',
    '<%= config.bin %> status 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c 5f0c2d1e-8a7b-4c3d-9e2f-1a0b9c8d7e6f',
    '<%= config.bin %> status --from-file ticket-ids.txt --concurrency 8 --csv > statuses.csv',
    'grep -o "[0-9a-f-]\\{36\\}" tickets.log | <%= config.bin %> status - --json',
  ]

  static override args = {
    id: Args.string({description: 'Transaction id; several may follow, and - reads ids from stdin, one per line'}),
  }

  static override flags = {
    ...LOOKUP_FLAGS,
    wait: Flags.boolean({summary: 'Poll until the status is conclusive; the exit code says how it ended.'}),
    // No defaults here: oclif counts a defaulted flag as given, which would trip dependsOn.
    'wait-timeout': Flags.string({summary: 'With --wait: give up after this long, e.g. 90s, 10m (default 10m).', dependsOn: ['wait']}),
    until: Flags.string({
      summary: 'With --wait: final (default; SETTLEMENT_REQUESTED counts as success) or settled (wait for SETTLEMENT_COMPLETED).',
      options: ['final', 'settled'],
      dependsOn: ['wait'],
    }),
  }

  public async run(): Promise<Transaction | undefined> {
    const options = await this.lookupOptions()
    const {timeoutMs, until} = await toStatusWaitOptions(this.flags)
    // Several ids are written as they come (the --json array too): nothing is left to return.
    if (options.many) return this.flags.wait ? this.waitForMany(options, {timeoutMs, until}) : this.answerMany(options, 'status')
    const {id} = options.first
    const service = await this.service()
    if (!this.flags.wait) {
      const transaction = await service.getTransaction(id)
      this.print(renderTransaction(transaction, this.profileUnderResult(), {width: lineWidth(this.ctx.io.stdout)}))
      const warning = unlistedStatusWarning(transaction.status)
      if (warning) this.warnUser(warning)
      await this.noteDeadApprovalUrl(transaction)
      return transaction
    }

    const {waitForFinalStatus} = await import('../../flow/wait-for-status.js')
    const {formatDuration} = await import('../../duration.js')
    const {describeStatus} = await import('../../output/transaction.js')
    const signal = this.interruptSignal()
    this.note(`Waiting for transaction ${id} to ${until === 'settled' ? 'settle (SETTLEMENT_COMPLETED)' : 'reach a final status'}, up to ${formatDuration(timeoutMs)} (Ctrl-C to stop).`)
    let result
    try {
      result = await waitForFinalStatus<Transaction>(() => service.getTransaction(id), {
        timeoutMs,
        until,
        signal,
        onStatus: (transaction, previous, elapsedMs) => {
          const when = previous ? `after ${formatDuration(elapsedMs)}` : 'now'
          this.note(`${previous ? `${visibleText(previous.status)} → ` : ''}${describeStatus(transaction.status)}  (${when})`)
          if (transaction.status === 'UNKNOWN') {
            this.warnUser(`transaction ${id} is UNKNOWN: the service cannot determine its state at present (critical). Still waiting, up to ${formatDuration(timeoutMs)}.`)
          }
        },
        onReadError: (error) => this.note(`Reading the status failed (${error.message}); trying again.`),
      })
    } catch (error) {
      if (signal.aborted) {
        throw new InterruptedError(`Interrupted while waiting for transaction ${id}.`, `Look again with \`${this.commandLine(`status ${id} --wait`)}\`.`)
      }
      throw error
    }

    this.print(renderTransaction(result.reading, this.profileUnderResult(), {width: lineWidth(this.ctx.io.stdout)}))
    if (!result.conclusive) {
      const loud = result.status === 'UNKNOWN' ? ' It stayed UNKNOWN (critical): ask the service’s support about it.' : ''
      this.warnUser(`transaction ${id} is still ${visibleText(result.status)} after ${formatDuration(timeoutMs)}; not conclusive.${loud}`)
    }
    this.setOutcomeExitCode(outcomeExitCode(result))
    return result.reading
  }

  /** Says so when the approval URL shown is served by an emulator that ran only for this command. */
  private async noteDeadApprovalUrl(transaction: Transaction): Promise<void> {
    // The emulator this command runs, if any: asked again, it is the one the service uses (and stays up for it).
    const emulator = await this.ctx.emulator(await this.profileWithKeys())
    await emulator.stop()
    const note = await deadApprovalUrlNote({profileBaseUrl: this.profile().profile.base_url, emulatorUrl: emulator.url, start: this.commandLine('emulator start')}, transaction)
    if (note) this.note(note)
  }
}

/** Non-final, with an approval URL served by an emulator that ran inside this command: that page dies with it. */
async function deadApprovalUrlNote(command: {profileBaseUrl: string; emulatorUrl: string | undefined; start: string}, transaction: Transaction): Promise<string | undefined> {
  const url = transaction.details?.approval_url
  if (command.emulatorUrl === undefined || typeof url !== 'string' || isFinalStatus(transaction.status)) return undefined
  const {commandEmulatorNote, servedByCommandEmulator} = await import('../../output/command-emulator.js')
  const emulator = {emulatorUrl: command.emulatorUrl, profileBaseUrl: command.profileBaseUrl}
  return servedByCommandEmulator(url, emulator) ? commandEmulatorNote(emulator, 'the approval URL', command.start) : undefined
}

export type TransactionStatusFlags = Interfaces.InferredFlags<typeof TransactionStatus.flags>

export interface StatusWaitOptions {
  timeoutMs: number
  until: 'final' | 'settled'
}

/** How `status --wait` waits: --wait-timeout (default 10m) and --until (default final); a bad duration is exit 2. */
export async function toStatusWaitOptions(flags: TransactionStatusFlags): Promise<StatusWaitOptions> {
  const {parseDuration} = await import('../../duration.js')
  return {
    timeoutMs: parseDuration(flags['wait-timeout'] ?? '10m', '--wait-timeout'),
    until: flags.until === 'settled' ? 'settled' : 'final',
  }
}
