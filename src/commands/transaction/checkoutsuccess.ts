import {Args} from '@oclif/core'

import {type CheckoutSuccess, isFinalStatus, isKnownStatus} from '../../api/contract.js'
import {EXIT} from '../../errors.js'
import {BaseCommand, EXIT_CODES_HELP} from '../../base-command.js'
import {renderCheckoutSuccess} from '../../output/transaction.js'

export default class TransactionCheckoutSuccess extends BaseCommand<typeof TransactionCheckoutSuccess> {
  static override aliases = ['checkoutsuccess']
  static override summary = 'Tell whether a transaction succeeded, by exit code: 0 success, 3 final and not a success, 4 not final yet.'
  static override description = `Reads GET /v1/transaction/{id}/checkoutsuccess, the server-side answer a merchant must trust
(the redirect alone says nothing about the outcome). The answer's success field decides the exit code;
a status paytx does not know is shown as such, with a warning.

${EXIT_CODES_HELP}`

  static override examples = [
    '<%= config.bin %> transaction checkoutsuccess 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c',
    '<%= config.bin %> checkoutsuccess 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c --json && echo paid',
  ]

  static override args = {
    id: Args.string({description: 'Transaction id', required: true}),
  }

  public async run(): Promise<CheckoutSuccess> {
    const service = await this.service()
    const result = await service.checkoutSuccess(this.args.id)
    this.print(renderCheckoutSuccess(this.args.id, result))
    if (!isKnownStatus(result.status)) {
      this.warnUser(
        `the service reported the status "${result.status}", which is none of the ten paytx knows; going by its success field (${result.success ? 'true' : 'false'}).`,
      )
    }
    if (result.success !== true) this.setOutcomeExitCode(isFinalStatus(result.status) ? EXIT.notSuccess : EXIT.notFinal)
    return result
  }
}
