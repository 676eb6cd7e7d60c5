/**
 * The human summary of a flow, printed on stdout after the step lines (which went to stderr).
 * `--json` prints the FlowResult itself instead.
 */
import type {FlowResult} from '../flow/run-flow.js'
import {formatDuration} from '../duration.js'
import {webhookStatusSource} from './flow-event-lines.js'
import {describeStatus, formatAmount, table} from './transaction.js'

function describeRedirect(redirect: FlowResult['redirect']): string {
  if (!redirect.received) return 'not received'
  if (redirect.error !== undefined) return `received with error: ${redirect.error}`
  return `received (transaction_id=${redirect.transactionId})`
}

function describeWebhooks(result: FlowResult): string | string[] {
  if (result.webhooks.length === 0) return 'none received here'
  return result.webhooks.map(
    (hook) => `${hook.receivedAt.slice(11, 23)}  ${hook.type}  ${hook.status ?? '(no status)'}${webhookStatusSource(hook)}${hook.duplicate ? '  duplicate' : ''}`,
  )
}

/** What each refusal was, by the status it got: a 405 is a wrong method, not a wrong token. */
const REFUSAL_MEANING: Record<string, string> = {
  '400': 'a redirect for another transaction or without one',
  '404': 'an unknown path or token',
  '405': 'a method the address does not take',
  '413': 'a body too large',
}

function describeRefused(result: FlowResult): string | undefined {
  if (result.rejectedRequests === 0) return undefined
  const parts = Object.entries(result.rejectedByStatus).map(([status, count]) => `${count} × ${REFUSAL_MEANING[status] ?? 'refused'} (${status})`)
  return `${result.rejectedRequests} request${result.rejectedRequests === 1 ? '' : 's'} to the listener: ${parts.join(', ')}`
}

/** `width`: the terminal's, so that long values wrap between words (none in a pipe). */
export function renderFlowSummary(result: FlowResult, options: {width?: number} = {}): string {
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
    ['Refused', describeRefused(result)],
    ['Steps', result.steps.map((step) => `${step.name} ${formatDuration(step.durationMs)}`).join(', ')],
    ['Duration', formatDuration(result.durationMs)],
    ['Profile', `${result.profile} (${result.environment})`],
  ], {width: options.width})
}
