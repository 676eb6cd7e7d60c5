/**
 * The human summary of a flow, printed on stdout after the step lines (which went to stderr).
 * `--json` prints the FlowResult itself instead.
 */
import type {FlowResult} from '../flow/run-flow.js'
import {formatDuration} from '../duration.js'
import {describeStatus, formatAmount, table} from './transaction.js'

function describeRedirect(redirect: FlowResult['redirect']): string {
  if (!redirect.received) return 'not received'
  if (redirect.error !== undefined) return `received with error: ${redirect.error}`
  return `received (transaction_id=${redirect.transactionId})`
}

function describeWebhooks(result: FlowResult): string | string[] {
  if (result.webhooks.length === 0) return 'none received here'
  return result.webhooks.map((hook) => `${hook.receivedAt.slice(11, 23)}  ${hook.type}  ${hook.status ?? '(no status)'}${hook.duplicate ? '  duplicate' : ''}`)
}

export function renderFlowSummary(result: FlowResult): string {
  const conclusion = !result.conclusive ? 'not final in time' : result.success ? 'success' : 'final, not a success'
  return table([
    ['Result', conclusion],
    ['Transaction', result.transactionId],
    ['Status', describeStatus(result.status)],
    ['Reason', result.statusReason],
    ['Product', result.product],
    ['Amount', formatAmount(result.amount)],
    ['Customer', result.customerId],
    ['Card', result.cardId === undefined ? undefined : `${result.cardId}${result.cardLast4 ? `  •••• ${result.cardLast4}` : ''}`],
    ['Reference', result.merchantReference],
    ['Redirect', describeRedirect(result.redirect)],
    ['Webhooks', describeWebhooks(result)],
    ['Refused', result.rejectedRequests > 0 ? `${result.rejectedRequests} request(s) to the listener (wrong path, token or transaction)` : undefined],
    ['Steps', result.steps.map((step) => `${step.name} ${formatDuration(step.durationMs)}`).join(', ')],
    ['Duration', formatDuration(result.durationMs)],
    ['Profile', `${result.profile} (${result.environment})`],
  ])
}
