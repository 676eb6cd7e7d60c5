import {Args} from '@oclif/core'

import type {Transaction} from '../../api/contract.js'
import {BaseCommand, EXIT_CODES_HELP} from '../../base-command.js'
import {renderTransaction} from '../../output/transaction.js'

export default class TransactionStatus extends BaseCommand<typeof TransactionStatus> {
  static override aliases = ['status']
  static override summary = 'Show a transaction: status, whether it is final and a success, amount, timestamps.'
  static override description = `Reads GET /v1/transaction/{id}. With --json, prints the service's object unchanged.
Read-only: never asks for confirmation, also on production.

${EXIT_CODES_HELP}`

  static override examples = [
    '<%= config.bin %> transaction status 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c',
    '<%= config.bin %> status 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c --profile production --json',
  ]

  static override args = {
    id: Args.string({description: 'Transaction id', required: true}),
  }

  public async run(): Promise<Transaction> {
    const service = await this.service()
    const transaction = await service.getTransaction(this.args.id)
    this.print(renderTransaction(transaction))
    return transaction
  }
}
