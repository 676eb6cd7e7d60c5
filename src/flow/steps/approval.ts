/**
 * The approval page, one of three ways: completed without a browser (--approve, emulator only),
 * opened in the person's browser, or shown for the person to open (--no-open, or when no browser
 * could be opened). The wait for the outcome counts from here.
 */
import {ResponseError} from '../../errors.js'
import {type FlowContext, abortable, recordStep, runStep} from '../context.js'
import type {StartedTransaction} from './transaction.js'
import {APPROVAL_OUTCOMES} from '../../test-mode/outcomes.js'

export interface ApprovalStarted {
  /** Until when the flow waits for a conclusive status. */
  deadline: number
  /** --approve: the flow's own request of the page's redirect, settled (an Error on failure) later. */
  delivery?: Promise<number | Error>
}

/** The emulator's page can take a moment on a loaded machine; a person's page has the whole wait. */
const APPROVAL_REQUEST_TIMEOUT_MS = 30_000

export async function approvalStep(context: FlowContext, started: StartedTransaction): Promise<ApprovalStarted> {
  const {options, timer} = context
  const began = timer.now()
  const deadline = began + options.waitTimeoutMs
  const url = started.approvalUrl

  if (options.approve !== undefined) {
    const {delivery} = await completeWithoutBrowser(context, url, options.approve)
    return {deadline, delivery}
  }
  if (options.openBrowser) {
    context.emit({kind: 'step-started', step: 'approval'})
    const opened = await abortable(
      context.openUrl(url).catch((error: Error) => ({opened: false as const, reason: error.message})),
      context.signal,
    )
    recordStep(context, 'approval', began)
    const onEmulator = context.profile.profile.env === 'local'
    context.emit(opened.opened ? {kind: 'approval-opened', url} : {kind: 'approval-not-opened', url, reason: opened.reason, ...(onEmulator ? {approveOutcomes: APPROVAL_OUTCOMES[options.product]} : {})})
    return {deadline}
  }
  recordStep(context, 'approval', began)
  context.emit({kind: 'approval-shown', url})
  return {deadline}
}

async function completeWithoutBrowser(context: FlowContext, approvalUrl: string, outcome: string): Promise<{delivery: Promise<number | Error>}> {
  const {listener, options, signal} = context
  const {completeApprovalPage, followRedirect} = await import('../approval-page.js')
  const location = await runStep(
    context,
    'approval',
    () => completeApprovalPage(approvalUrl, options.product, outcome, {cvv: options.cvv, timeoutMs: APPROVAL_REQUEST_TIMEOUT_MS, signal}),
    {outcome},
  )
  context.emit({kind: 'approval-completed', outcome})
  if (!location.startsWith(listener.redirectUrl)) {
    throw new ResponseError(`The approval page redirected to ${location}, not to the flow's redirect address.`)
  }
  // Requested like a browser following the 303, so the listener's own path is exercised.
  const delivery = followRedirect(location, {timeoutMs: APPROVAL_REQUEST_TIMEOUT_MS, signal}).catch((error: Error) => error)
  // The flow delivers this redirect itself: wait for it, so that a slow approval (a loaded
  // machine) that used up the wait time is not reported as having no redirect.
  await abortable(delivery, signal)
  return {delivery}
}
