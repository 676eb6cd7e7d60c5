/**
 * Waiting for the browser's redirect to the listener, watched together with the status: a
 * transaction that ends without a redirect (abandoned, or an approval finished elsewhere) must
 * not leave the flow waiting until the deadline.
 */
import {isConclusiveStatus} from '../../api/contract.js'
import type {CheckoutSuccess} from '../../api/schemas.js'
import {type FlowContext, abortable, recordStep} from '../context.js'
import type {RedirectReceived} from '../redirect-listener.js'
import {isRetriableReadError} from '../wait-for-status.js'

export interface RedirectWait {
  redirect?: RedirectReceived
  /** The status that ended the wait without a redirect. */
  reading?: CheckoutSuccess
}

const WATCH_MAX_DELAY_MS = 5_000

export async function redirectStep(context: FlowContext, transactionId: string, deadline: number): Promise<RedirectWait> {
  const {options, timer} = context
  const began = timer.now()
  context.emit({kind: 'step-started', step: 'redirect'})
  // A person is on the approval page: tell them how long the flow waits.
  if (options.approve === undefined) context.emit({kind: 'waiting', for: 'redirect', remainingMs: Math.max(0, deadline - began)})
  const waited = await watchForRedirect(context, transactionId, deadline)
  recordStep(context, 'redirect', began)
  const redirect = waited.redirect
  if (redirect?.error !== undefined) context.emit({kind: 'redirect-error', error: redirect.error})
  else if (redirect) context.emit({kind: 'redirect-received', ...(redirect.transactionId === undefined ? {} : {transactionId: redirect.transactionId})})
  else context.emit({kind: 'redirect-missing', ...(waited.reading ? {status: waited.reading.status} : {}), waitedMs: timer.now() - began})
  return waited
}

async function watchForRedirect(context: FlowContext, transactionId: string, deadline: number): Promise<RedirectWait> {
  const {listener, service, timer, tuning} = context
  const local = new AbortController()
  const signal = context.signal ? AbortSignal.any([context.signal, local.signal]) : local.signal
  const redirect = listener.waitForRedirect(signal).then((received) => ({kind: 'redirect' as const, received}))
  // When the wait is over before the first race (a slow approval under load), `finally` aborts
  // this wait with no one listening; an unhandled rejection would end the whole process.
  redirect.catch(() => undefined)
  let delay = tuning.redirectWatchDelayMs
  try {
    for (;;) {
      const remaining = deadline - timer.now()
      if (remaining <= 0) {
        // A redirect that came while the time ran out still counts.
        const received = listener.redirect()
        return received ? {redirect: received} : {}
      }
      const tick = timer.sleep(Math.min(delay, remaining), signal).then(() => ({kind: 'tick' as const}))
      const first = await Promise.race([redirect, tick])
      if (first.kind === 'redirect') return {redirect: first.received}
      delay = Math.min(WATCH_MAX_DELAY_MS, Math.round(delay * 1.5))
      let reading: CheckoutSuccess
      try {
        reading = await abortable(service.checkoutSuccess(transactionId), signal)
      } catch (error) {
        if (signal.aborted || !isRetriableReadError(error)) throw error
        continue
      }
      if (isConclusiveStatus(reading.status)) {
        // The browser's redirect usually follows the final status within moments.
        const grace = timer
          .sleep(Math.min(tuning.redirectGraceMs, Math.max(0, deadline - timer.now())), signal)
          .then(() => ({kind: 'grace' as const}))
        const after = await Promise.race([redirect, grace])
        return after.kind === 'redirect' ? {redirect: after.received} : {reading}
      }
    }
  } finally {
    local.abort()
  }
}
