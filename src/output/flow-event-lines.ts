/**
 * The words for a flow's events, shared by the step list (`step-reporter.ts`) and the smoke live
 * view (`smoke-live-progress.ts`): each event becomes labelled lines with a tone. The step list
 * pads the labels into one column; the live view joins label and value on one short line.
 */
import {formatDuration} from '../duration.js'
import type {FlowEvent, FlowStepName} from '../flow/events.js'
import {visibleText} from '../terminal/visible-text.js'
import {fitToWidth} from './table.js'
import {redactUrl} from '../secrets/redact-url.js'

export type LineTone = 'done' | 'failed' | 'info' | 'warning'

export interface EventLine {
  tone: LineTone
  label: string
  value: string
}

export const TONE_SYMBOL: Record<LineTone, string> = {done: '✔', failed: '✖', info: 'ℹ', warning: '⚠'}
const TONE_COLOR: Record<LineTone, string> = {done: '\u001B[32m', failed: '\u001B[31m', info: '\u001B[34m', warning: '\u001B[33m'}
const RESET = '\u001B[0m'

/** A line's mark (✔ ✖ ℹ ⚠), in its colour when `color` (flow's step lines, doctor's checks). */
export function toneMark(tone: LineTone, color: boolean): string {
  return color ? `${TONE_COLOR[tone]}${TONE_SYMBOL[tone]}${RESET}` : TONE_SYMBOL[tone]
}

/** Every label a step line can have; the value column starts two spaces after the longest. */
const LABELS = [
  'emulator started',
  'customer created',
  'customer reused',
  'card tokenized',
  'card reused',
  'transaction started',
  'webhooks',
  'tunnel',
  'approval page completed',
  'approval page opened',
  'approval page',
  'or',
  'no browser',
  'waiting',
  'redirect received',
  'redirect with error',
  'no redirect',
  'redirect delivery',
  'webhook received',
  'listener refused',
  'status',
  'final status',
  'status (not final)',
  'customer',
  'card',
  'transaction',
  'approval',
  'redirect',
] as const

export type StepLabel = (typeof LABELS)[number]

export const LABEL_WIDTH = Math.max(...LABELS.map((label) => label.length)) + 2

/** What a spinner says while a step runs. */
export function stepActivity(step: FlowStepName, outcome?: string): string {
  switch (step) {
    case 'customer':
      return 'creating a customer'
    case 'card':
      return 'tokenizing the card'
    case 'transaction':
      return 'starting the transaction'
    case 'approval':
      return outcome === undefined ? 'opening the approval page' : `completing the approval page (${outcome})`
    case 'redirect':
      return 'waiting for the redirect'
    case 'status':
      return 'reading the status'
  }
}

/** Time left in a wait, counted down in whole seconds: 45s, 9m, 8m59s. */
export function formatTimeLeft(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000))
  if (seconds < 60) return `${seconds}s`
  const rest = seconds % 60
  return `${Math.floor(seconds / 60)}m${rest === 0 ? '' : `${rest}s`}`
}

function waitingText(remainingMs: number): string {
  return `for the redirect: complete the payment in the browser; ${formatTimeLeft(remainingMs)} left (Ctrl-C to stop)`
}

/** Values carry text from outside (a redirect's `error`, a service message): shown, never acted on by the terminal. */
function line(tone: LineTone, label: StepLabel, value: string): EventLine {
  return {tone, label, value: visibleText(value)}
}

function describeVerdict(event: Extract<FlowEvent, {kind: 'verdict'}>): EventLine {
  const meaning = event.final
    ? event.success
      ? 'success'
      : 'not a success'
    : event.conclusive
      ? 'success (settlement still to come)'
      : event.status === 'UNKNOWN'
        ? 'not final; the service could not determine the state (critical)'
        : 'not final'
  const ranOut = event.conclusive ? '' : `; waiting ran out after ${formatDuration(event.waitTimeoutMs)}`
  return line(
    event.conclusive && event.success ? 'done' : 'failed',
    event.conclusive ? 'final status' : 'status (not final)',
    `${event.status}  ${meaning}  (${formatDuration(event.durationMs)})${ranOut}`,
  )
}

/**
 * Where a webhook's status comes from, when not from its body: read from the service when it
 * came, and whether the service had moved on by then (so it is not the status it was sent for).
 */
export function webhookStatusSource(webhook: {statusFrom?: string; movedOn?: boolean}): string {
  if (webhook.statusFrom !== 'service') return ''
  return webhook.movedOn ? '  (read from the service, which had moved on since it came)' : '  (read from the service when it came)'
}

/** The lines an event shows; none for a step's start (a spinner's cue only). */
export function describeFlowEvent(event: FlowEvent): EventLine[] {
  switch (event.kind) {
    case 'step-started':
      return []
    case 'step-failed':
      // Marks which step failed; the error itself, with what to do, is reported once, after the steps.
      return [line('failed', event.step, `${stepActivity(event.step)} failed`)]
    case 'customer-created':
      return [line('done', 'customer created', `${event.customerId}  (${event.profile})`)]
    case 'customer-reused':
      return [line('done', 'customer reused', event.customerId)]
    case 'card-tokenized':
      return [line('done', 'card tokenized', `${event.cardId}  •••• ${event.last4}${event.testCard ? '  (test card)' : ''}`)]
    case 'card-reused':
      return [line('done', 'card reused', event.cardId)]
    case 'transaction-started':
      return [line('done', 'transaction started', `${event.transactionId}  ${event.status}`)]
    case 'webhooks-unreachable':
      return [line('warning', 'webhooks', `go to ${redactUrl(event.webhookUrl)}, which a remote service cannot reach; use --webhook-url with a tunnel of your own`)]
    case 'tunnel-started':
      return [line('done', 'tunnel', `${event.program}  ${event.webhookUrl}  (stopped when the flow ends)`)]
    case 'approval-completed':
      return [line('done', 'approval page completed', event.outcome)]
    case 'approval-opened':
      return [line('done', 'approval page opened', event.url)]
    case 'approval-not-opened':
      return [
        line('failed', 'no browser', `could not open one: ${event.reason}`),
        line('info', 'approval page', `${event.url}  (open it by hand)`),
        ...(event.approveOutcomes ? [line('info', 'or', `run the flow again with --approve <STATUS> to finish without a browser (${event.approveOutcomes.join(', ')})`)] : []),
      ]
    case 'approval-shown':
      return [line('info', 'approval page', `${event.url}  (open it in a browser)`)]
    case 'waiting':
      return [line('info', 'waiting', waitingText(event.remainingMs))]
    case 'redirect-received':
      return [line('done', 'redirect received', `transaction_id=${event.transactionId ?? ''}`)]
    case 'redirect-error':
      return [line('failed', 'redirect with error', event.error)]
    case 'redirect-missing':
      // A conclusive status without a redirect: another client (a second browser, curl) completed the page, and its redirect went there.
      return event.status === undefined
        ? [line('failed', 'no redirect', `none within ${formatDuration(event.waitedMs)}`)]
        : [line('info', 'redirect', `not back here: the approval page was completed elsewhere (another browser or client), and the transaction is ${event.status}`)]
    case 'redirect-delivery-failed':
      return [line('warning', 'redirect delivery', `the flow's own request of the redirect failed: ${event.message}`)]
    case 'webhook-received':
      return [line('done', 'webhook received', `${event.status ?? event.type}${webhookStatusSource(event)}${event.duplicate ? '  (duplicate)' : ''}`)]
    case 'request-refused':
      return [line('warning', 'listener refused', `${event.method} ${event.path}: ${event.status} (${event.reason})`)]
    case 'status-read':
      return event.status === 'UNKNOWN'
        ? [line('warning', 'status', 'UNKNOWN  the service cannot determine the state at present (critical, not final); still waiting')]
        : [line('info', 'status', event.status)]
    case 'status-read-failed':
      return [line('warning', 'status', `reading it failed (${event.message}); trying again`)]
    case 'verdict':
      return [describeVerdict(event)]
  }
}

/** The step whose spinner an event ends, if any. */
export function stepEndedBy(event: FlowEvent): FlowStepName | undefined {
  switch (event.kind) {
    case 'step-failed':
      return event.step
    case 'customer-created':
    case 'customer-reused':
      return 'customer'
    case 'card-tokenized':
    case 'card-reused':
      return 'card'
    case 'transaction-started':
      return 'transaction'
    case 'approval-completed':
    case 'approval-opened':
    case 'approval-not-opened':
    case 'approval-shown':
      return 'approval'
    case 'redirect-received':
    case 'redirect-error':
    case 'redirect-missing':
      return 'redirect'
    case 'verdict':
      return 'status'
    default:
      return undefined
  }
}

/**
 * A step-list line: symbol, label padded to the column, value; with the terminal's `width`, a long
 * value goes on under itself, broken between words, never mid-word.
 */
export function formatStepLine(eventLine: EventLine, color: boolean, width?: number): string {
  const symbol = toneMark(eventLine.tone, color)
  const column = 2 + LABEL_WIDTH
  const [first, ...rest] = fitToWidth(eventLine.value, column, width)
  if (width !== undefined && [first, ...rest].some((line) => column + line.length >= width)) {
    // A word too long for the value column (an id at 40 columns): the value goes under the label, indented by 4, its words whole.
    const under = fitToWidth(eventLine.value, 4, width).map((line) => `    ${line}`)
    return [`${symbol} ${eventLine.label.trimEnd()}`, ...under].join('\n')
  }
  return [`${symbol} ${eventLine.label.padEnd(LABEL_WIDTH)}${first}`, ...rest.map((line) => `${' '.repeat(column)}${line}`)].join('\n')
}

/** A line of the smoke live view: label and value, no column (a live line has no room). */
export function formatCompactLine(eventLine: EventLine): string {
  return `${eventLine.label}  ${eventLine.value}`
}
