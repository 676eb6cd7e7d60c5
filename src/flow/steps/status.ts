/**
 * The verdict, from the service and never from the redirect: checkoutsuccess read until it is
 * conclusive (each webhook makes it read at once), then the whole transaction, whose status wins
 * when it is further on. The webhook of that last status gets a moment to arrive.
 */
import {isFinalStatus, isSuccessStatus} from '../../api/contract.js'
import type {CheckoutSuccess, Transaction} from '../../api/schemas.js'
import {type FlowContext, abortable, recordStep} from '../context.js'
import {isConclusiveFor, waitForFinalStatus} from '../wait-for-status.js'
import type {RedirectWait} from './redirect.js'

export interface FlowConclusion {
  reading: CheckoutSuccess
  /** The transaction as the service reported it last. */
  transaction: Transaction
  conclusive: boolean
  final: boolean
  success: boolean
  /** The whole flow's duration, up to the verdict. */
  durationMs: number
}

export async function statusStep(context: FlowContext, transactionId: string, waited: RedirectWait, deadline: number): Promise<FlowConclusion> {
  const {options, service, signal, timer, tuning} = context
  const began = timer.now()
  context.emit({kind: 'step-started', step: 'status'})
  const initial = waited.redirect
    ? await abortable(context.readAfterRedirect(), signal)
    : (waited.reading ?? (await abortable(service.checkoutSuccess(transactionId), signal)))
  const polled = await waitForFinalStatus<CheckoutSuccess>(() => service.checkoutSuccess(transactionId), {
    timeoutMs: Math.max(0, deadline - timer.now()),
    until: options.until,
    signal,
    timer,
    initial,
    initialDelayMs: tuning.pollInitialDelayMs,
    maxDelayMs: tuning.pollMaxDelayMs,
    onStatus: (reading, previous) => {
      if (previous) context.emit({kind: 'status-read', status: reading.status})
    },
    onReadError: (error) => context.emit({kind: 'status-read-failed', message: error.message}),
    wake: context.statusWake,
  })
  const transaction: Transaction = await abortable(service.getTransaction(transactionId), signal)
  let reading = polled.reading
  // The transaction read last may be further on (e.g. settled in between): it wins.
  if (transaction.status && transaction.status !== reading.status) {
    reading = {status: transaction.status, status_reason: transaction.status_reason ?? '', success: isSuccessStatus(transaction.status)}
  }
  recordStep(context, 'status', began)

  // The webhook of the last change may still be on its way; give it a moment.
  if (options.webhook.mode === 'local') {
    const status = reading.status
    // A status read after the service had moved on to it is not that status's own webhook.
    await waitForWebhook(context, () => context.listener.webhooks().some((hook) => hook.status === status && !hook.movedOn))
  }

  const conclusion: FlowConclusion = {
    reading,
    transaction,
    conclusive: isConclusiveFor(reading.status, options.until),
    final: isFinalStatus(reading.status),
    success: reading.success === true,
    durationMs: timer.now() - context.startedAt,
  }
  context.emit({
    kind: 'verdict',
    status: reading.status,
    statusReason: typeof reading.status_reason === 'string' ? reading.status_reason : '',
    conclusive: conclusion.conclusive,
    final: conclusion.final,
    success: conclusion.success,
    durationMs: conclusion.durationMs,
    waitTimeoutMs: options.waitTimeoutMs,
  })
  return conclusion
}

/** Resolves once `arrived()` holds (checked on each webhook) or the grace time has passed. */
async function waitForWebhook(context: FlowContext, arrived: () => boolean): Promise<void> {
  const {signal, timer, tuning, webhookWaiters} = context
  if (arrived() || tuning.webhookGraceMs <= 0) return
  const local = new AbortController()
  const combined = signal ? AbortSignal.any([signal, local.signal]) : local.signal
  await new Promise<void>((resolve, reject) => {
    const wake = () => {
      if (arrived()) finish()
    }
    const finish = () => {
      webhookWaiters.delete(wake)
      local.abort()
      resolve()
    }
    webhookWaiters.add(wake)
    timer.sleep(tuning.webhookGraceMs, combined).then(finish, (error) => {
      webhookWaiters.delete(wake)
      if (signal?.aborted) reject(error)
      else resolve()
    })
  })
}
