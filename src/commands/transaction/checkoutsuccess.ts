import * as Args from '@oclif/core/args'

import {isFinalStatus, isKnownStatus} from '../../api/contract.js'
import type {CheckoutSuccess} from '../../api/schemas.js'
import {outcomeExitCode} from '../../errors.js'
import {EXIT_CODES_HELP} from '../../cli/base-command.js'
import {renderCheckoutSuccess} from '../../output/transaction.js'
import {lineWidth} from '../../output/wrap.js'
import {visibleText} from '../../terminal/visible-text.js'
import {LOOKUP_EXIT_CODES_HELP, LOOKUP_FLAGS, TransactionLookupCommand} from '../../cli/transaction-lookup-command.js'

/** The service's answer with the id asked about, so that a loop over ids can tell results apart. */
export type CheckoutSuccessResult = {id: string} & CheckoutSuccess

export default class TransactionCheckoutSuccess extends TransactionLookupCommand<typeof TransactionCheckoutSuccess, CheckoutSuccessResult | undefined> {
  static override aliases = ['checkoutsuccess']
  static override summary = 'Tell whether a transaction succeeded, by exit code: 0 success, 3 final and not a success, 4 not final yet.'
  static override description = `Reads GET /v1/transaction/{id}/checkoutsuccess, the server-side answer a merchant must trust
(the redirect alone says nothing about the outcome). The answer's success field decides the exit code;
a status paytx does not know is shown as such, with a warning. --json prints the service's answer
with the transaction id added as "id".

Several ids (as arguments, one per line on stdin with -, or in a file with --from-file; blank lines and # comments skipped, ids trimmed) are looked up --concurrency at a time, in a table on a terminal (ID, STATUS, FINAL, SUCCESS, REASON), tab-separated under a header line in a pipe, CSV with --csv, or with --json an array of {id, checkoutsuccess} or {id, error} in input order. A line that is not an id is reported with its line number and not sent, and the others are looked up; when no line is an id, nothing is sent (exit 2). A 429 pauses every lookup for its Retry-After.

${EXIT_CODES_HELP}

${LOOKUP_EXIT_CODES_HELP('checkoutsuccess')}`

  static override examples = [
    '<%= config.bin %> transaction checkoutsuccess 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c',
    '<%= config.bin %> checkoutsuccess 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c --json && echo paid',
    '<%= config.bin %> checkoutsuccess --from-file ticket-ids.txt --json',
  ]

  static override args = {
    id: Args.string({description: 'Transaction id; several may follow, and - reads ids from stdin, one per line'}),
  }

  static override flags = LOOKUP_FLAGS

  public async run(): Promise<CheckoutSuccessResult | undefined> {
    const options = await this.lookupOptions()
    // Several ids are written as they come (the --json array too): nothing is left to return.
    if (options.many) return this.answerMany(options, 'checkoutsuccess')
    const {id} = options.first
    const service = await this.service()
    const result = await service.checkoutSuccess(id)
    this.print(renderCheckoutSuccess(id, result, this.profileUnderResult(), {width: lineWidth(this.ctx.io.stdout)}))
    if (!isKnownStatus(result.status)) {
      this.warnUser(
        `the service reported the status "${visibleText(result.status)}", which is none of the ten paytx knows; going by its success field (${result.success ? 'true' : 'false'}).`,
      )
    }
    this.setOutcomeExitCode(outcomeExitCode({conclusive: result.success === true || isFinalStatus(result.status), success: result.success === true}))
    return {id, ...result}
  }
}

/** The ids and how to look them up: the lookup parser status shares, under this command's name. */
export {toLookupOptions as toCheckoutSuccessOptions} from '../../input/transaction-ids.js'
