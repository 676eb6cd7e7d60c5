/**
 * Starting the transaction, with its redirect_url (and, with `--webhook local`, its webhook
 * address) on the flow's listener, which from then on accepts only this transaction's redirect.
 */
import {readId} from '../../api/contract.js'
import {ResponseError} from '../../errors.js'
import {type FlowContext, runStep} from '../context.js'
import {startRequest} from '../flow-options.js'
import {confirmReused} from './customer.js'

export interface StartedTransaction {
  transactionId: string
  approvalUrl: string
  merchantReference: string
}

export async function transactionStep(context: FlowContext, ids: {customerId: string; cardId?: string}): Promise<StartedTransaction> {
  const {listener, options, profile} = context
  const webhook = options.webhook
  const webhookUrl = webhook.mode === 'local' ? listener.webhookUrl : webhook.mode === 'url' ? webhook.url : webhook.mode === 'tunnel' ? context.tunnel?.webhookUrl : undefined
  if (webhook.mode === 'local' && profile.profile.env !== 'local') context.emit({kind: 'webhooks-unreachable', webhookUrl: listener.webhookUrl})

  const request = startRequest(profile, options, {customer: ids.customerId, card: ids.cardId, redirectUrl: listener.redirectUrl, webhookUrl})
  const merchantReference = options.merchantReference ?? (await import('../../input/transaction-request.js')).generateMerchantReference()
  request.merchant_reference = merchantReference
  const started = await runStep(context, 'transaction', () => context.service.startTransaction(request))
  const transactionId = readId(started)
  if (!transactionId) throw new ResponseError('The service started a transaction but its answer has no id.')
  context.transactionId = transactionId
  listener.expectTransaction(transactionId)
  // The service started a transaction naming the given customer and card: they exist.
  confirmReused(context, {customer: true, card: true})
  context.emit({kind: 'transaction-started', transactionId, status: started.status})
  const approvalUrl = started.details?.approval_url
  if (typeof approvalUrl !== 'string' || approvalUrl === '') {
    throw new ResponseError(`The service started transaction ${transactionId} without details.approval_url.`)
  }
  return {transactionId, approvalUrl, merchantReference}
}
