/**
 * A whole payment flow, start to verdict: customer, card (for `card`), transaction start, the
 * approval page, the redirect back to a one-shot local listener (which also takes the
 * transaction's webhooks), then the status read from the service until it is conclusive.
 *
 * The final word always comes from the service (checkoutsuccess and the transaction), never from
 * the redirect: success and failure reach the same address (spec). Knows nothing of oclif or
 * terminals: progress leaves as typed events (`events.ts`); the `flow` command and the smoke
 * runner both call `runFlow` and render them.
 */
import type {Product} from '../api/contract.js'
import type {Transaction} from '../api/schemas.js'
import type {PaymentService} from '../api/service.js'
import {EXIT, InterruptedError, PaytxError} from '../errors.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import {type FlowContext, type FlowDeps, type FlowStepTiming, openFlowContext} from './context.js'
import type {FlowEvent} from './events.js'
import {type FlowOptions, validateFlowOptions} from './flow-options.js'
import type {RedirectReceived} from './redirect-listener.js'
import {approvalStep} from './steps/approval.js'
import {cardStep} from './steps/card.js'
import {customerStep} from './steps/customer.js'
import {redirectStep} from './steps/redirect.js'
import {type FlowConclusion, statusStep} from './steps/status.js'
import {type StartedTransaction, transactionStep} from './steps/transaction.js'

export interface FlowWebhook {
  type: string
  transactionId?: string
  status?: string
  /** `service` when the body carried no status and the flow read it from the service when it came. */
  statusFrom?: 'webhook' | 'service'
  /** The status read from the service was reached after the webhook came: not the one it was sent for. */
  movedOn?: boolean
  receivedAt: string
  /** The same delivery came before (the same transaction id and status in the body). */
  duplicate: boolean
}

export interface FlowResult {
  profile: string
  environment: string
  customerId: string
  cardId?: string
  cardLast4?: string
  transactionId: string
  product: Product
  amount: number
  merchantReference: string
  approvalUrl: string
  status: string
  final: boolean
  /** Final, or SETTLEMENT_REQUESTED when waiting `until` final: the flow's exit code follows from it. */
  conclusive: boolean
  success: boolean
  statusReason: string
  redirect: {received: boolean; transactionId?: string; error?: string}
  webhooks: FlowWebhook[]
  /** Requests the listener refused (wrong path, token, method or transaction id). */
  rejectedRequests: number
  /** The same, counted by the status they were answered: 404 unknown path or token, 405 wrong method, 400 another transaction's redirect. */
  rejectedByStatus: Record<string, number>
  steps: FlowStepTiming[]
  durationMs: number
  /** The transaction as the service reported it last. */
  transaction: Transaction
  /** Everything the flow reported, in order. */
  timeline: FlowEvent[]
}

export async function runFlow(service: PaymentService, profile: ResolvedProfile, options: FlowOptions, deps: FlowDeps = {}): Promise<FlowResult> {
  await validateFlowOptions(profile, options)
  let context: FlowContext | undefined
  try {
    context = await openFlowContext(service, profile, options, deps)
    const customerId = await customerStep(context)
    const card = await cardStep(context, customerId)
    const started = await transactionStep(context, {customerId, cardId: card.cardId})
    const approval = await approvalStep(context, started)
    const waited = await redirectStep(context, started.transactionId, approval.deadline)
    const conclusion = await statusStep(context, started.transactionId, waited, approval.deadline)
    if (approval.delivery) {
      const delivered = await approval.delivery
      if (delivered instanceof Error) context.emit({kind: 'redirect-delivery-failed', message: delivered.message})
    }
    return flowResult(context, {customerId, ...card}, started, {...conclusion, redirect: waited.redirect})
  } catch (error) {
    throw explainFailure(error, options.signal, context?.transactionId)
  } finally {
    await Promise.all([context?.listener.close(), context?.tunnel?.running.stop()])
  }
}

function flowResult(
  context: FlowContext,
  ids: {customerId: string; cardId?: string; cardLast4?: string},
  started: StartedTransaction,
  conclusion: FlowConclusion & {redirect?: RedirectReceived},
): FlowResult {
  const {listener, options, profile} = context
  const {reading, redirect} = conclusion
  return {
    profile: profile.name,
    environment: profile.profile.env,
    customerId: ids.customerId,
    ...(ids.cardId === undefined ? {} : {cardId: ids.cardId}),
    ...(ids.cardLast4 === undefined ? {} : {cardLast4: ids.cardLast4}),
    transactionId: started.transactionId,
    product: options.product,
    amount: options.amount,
    merchantReference: started.merchantReference,
    approvalUrl: started.approvalUrl,
    status: reading.status,
    final: conclusion.final,
    conclusive: conclusion.conclusive,
    success: conclusion.success,
    statusReason: typeof reading.status_reason === 'string' ? reading.status_reason : '',
    redirect: {
      received: Boolean(redirect),
      ...(redirect?.transactionId === undefined ? {} : {transactionId: redirect.transactionId}),
      ...(redirect?.error === undefined ? {} : {error: redirect.error}),
    },
    webhooks: listener.webhooks().map((hook) => ({
      type: hook.type,
      ...(hook.transactionId === undefined ? {} : {transactionId: hook.transactionId}),
      ...(hook.status === undefined ? {} : {status: hook.status}),
      ...(hook.statusFrom === undefined ? {} : {statusFrom: hook.statusFrom}),
      ...(hook.movedOn === undefined ? {} : {movedOn: hook.movedOn}),
      receivedAt: hook.receivedAt,
      duplicate: hook.duplicate,
    })),
    rejectedRequests: listener.rejected().length,
    rejectedByStatus: countByStatus(listener.rejected()),
    steps: context.steps,
    durationMs: conclusion.durationMs,
    transaction: conclusion.transaction,
    timeline: context.timeline,
  }
}

function countByStatus(requests: readonly {status: number}[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const {status} of requests) counts[status] = (counts[status] ?? 0) + 1
  return counts
}

/** An interruption names the transaction left behind; any other failure after the start says how to look it up. */
function explainFailure(error: unknown, signal: AbortSignal | undefined, transactionId: string | undefined): unknown {
  if (signal?.aborted) {
    return transactionId
      ? new InterruptedError(
          `Interrupted; transaction ${transactionId} was left as it is.`,
          undefined,
          {kind: 'look-up-transaction', situation: 'interrupted', transactionId},
        )
      : new InterruptedError(signal.reason instanceof InterruptedError ? signal.reason.message : 'Interrupted before a transaction was started.')
  }
  if (transactionId && error instanceof PaytxError && error.exitCode !== EXIT.input) {
    error.withRemedy({kind: 'look-up-transaction', situation: 'started', transactionId})
  }
  return error
}
