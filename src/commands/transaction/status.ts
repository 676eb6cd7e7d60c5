import {Args, Flags} from '@oclif/core'

import {type Transaction, isKnownStatus} from '../../api/contract.js'
import {EXIT, InterruptedError} from '../../errors.js'
import {BaseCommand, EXIT_CODES_HELP} from '../../base-command.js'
import {renderTransaction} from '../../output/transaction.js'

export default class TransactionStatus extends BaseCommand<typeof TransactionStatus> {
  static override aliases = ['status']
  static override summary = 'Show a transaction: status, whether it is final and a success, amount, timestamps.'
  static override description = `Reads GET /v1/transaction/{id}. With --json, prints the service's object unchanged.
Read-only: never asks for confirmation, also on production.

With --wait, reads the status again (with back-off) until it is conclusive, printing each change to stderr, then prints the transaction; the exit code is then the verdict: 0 success, 3 final and not a success, 4 not conclusive within --wait-timeout. UNKNOWN (critical: the service cannot determine the state) is reported loudly and waited through. SETTLEMENT_REQUESTED counts as success unless --until settled, which waits for SETTLEMENT_COMPLETED.

${EXIT_CODES_HELP}`

  static override examples = [
    '<%= config.bin %> transaction status 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c',
    '<%= config.bin %> status 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c --profile production --json',
    '<%= config.bin %> status 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c --wait --until settled --wait-timeout 2m',
  ]

  static override args = {
    id: Args.string({description: 'Transaction id', required: true}),
  }

  static override flags = {
    wait: Flags.boolean({summary: 'Poll until the status is conclusive; the exit code says how it ended.'}),
    // No defaults here: oclif counts a defaulted flag as given, which would trip dependsOn.
    'wait-timeout': Flags.string({summary: 'With --wait: give up after this long, e.g. 90s, 10m (default 10m).', dependsOn: ['wait']}),
    until: Flags.string({
      summary: 'With --wait: final (default; SETTLEMENT_REQUESTED counts as success) or settled (wait for SETTLEMENT_COMPLETED).',
      options: ['final', 'settled'],
      dependsOn: ['wait'],
    }),
  }

  public async run(): Promise<Transaction> {
    const service = await this.service()
    if (!this.flags.wait) {
      const transaction = await service.getTransaction(this.args.id)
      this.print(renderTransaction(transaction))
      if (!isKnownStatus(transaction.status)) {
        this.warnUser(`the service reported the status "${transaction.status}", which is none of the ten paytx knows; it is neither a success nor a failure to paytx.`)
      }
      return transaction
    }

    const {parseDuration} = await import('../../duration.js')
    const timeoutMs = parseDuration(this.flags['wait-timeout'] ?? '10m', '--wait-timeout')
    const {waitForFinalStatus} = await import('../../flow/wait-for-status.js')
    const {formatDuration} = await import('../../duration.js')
    const {describeStatus} = await import('../../output/transaction.js')
    const signal = this.interruptSignal()
    const id = this.args.id
    let result
    try {
      result = await waitForFinalStatus<Transaction>(() => service.getTransaction(id), {
        timeoutMs,
        until: this.flags.until === 'settled' ? 'settled' : 'final',
        signal,
        onStatus: (transaction, previous, elapsedMs) => {
          const when = previous ? `after ${formatDuration(elapsedMs)}` : 'now'
          this.note(`${previous ? `${previous.status} → ` : ''}${describeStatus(transaction.status)}  (${when})`)
          if (transaction.status === 'UNKNOWN') {
            this.warnUser(`transaction ${id} is UNKNOWN: the service cannot determine its state at present (critical). Still waiting, up to ${formatDuration(timeoutMs)}.`)
          }
        },
        onReadError: (error) => this.note(`Reading the status failed (${error.message}); trying again.`),
      })
    } catch (error) {
      if (signal.aborted) {
        throw new InterruptedError(`Interrupted while waiting for transaction ${id}.`, `Look again with \`paytx status ${id} --wait\`.`)
      }
      throw error
    }

    this.print(renderTransaction(result.reading))
    if (!result.conclusive) {
      const loud = result.status === 'UNKNOWN' ? ' It stayed UNKNOWN (critical): ask the service’s support about it.' : ''
      this.warnUser(`transaction ${id} is still ${result.status} after ${formatDuration(timeoutMs)}; not conclusive.${loud}`)
      this.setOutcomeExitCode(EXIT.notFinal)
    } else if (!result.success) {
      this.setOutcomeExitCode(EXIT.notSuccess)
    }
    return result.reading
  }
}
