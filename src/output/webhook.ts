/**
 * What `webhook listen` shows for each webhook: one NDJSON object (`--json`) and the one line
 * of text drawn from that same object.
 */
import type {ForwardResult} from '../webhooks/forwarder.js'
import type {WebhookCounts, WebhookReport} from '../webhooks/listener.js'
import {serviceMovedOn} from '../webhooks/event.js'
import {visibleText, visibleTextCut} from '../terminal/visible-text.js'

export interface WebhookLine {
  event: 'webhook'
  seq: number
  received_at: string
  type: string
  transaction_id: string | null
  /** The status the webhook body carried, if any. */
  status: string | null
  duplicate: boolean
  /** With --fetch: the status the service reports (the one to trust). */
  service_status?: string | null
  /** With --fetch: when the service says it reached that status (the transaction's last_status_update). */
  service_updated_at?: string
  /** With --fetch: the service status differs from the body's. */
  status_differs?: boolean
  /**
   * With --fetch: the service had moved on from what the webhook is about when it was read: its
   * status is not the body's, or (a body without one) it was reached after the webhook came.
   */
  moved_on?: boolean
  fetch_error?: string
  forward?: ForwardResult
  body: unknown
}

export interface MalformedLine {
  event: 'malformed'
  seq: number
  received_at: string
  bytes: number
  error: string
  raw: string
}

export interface ReadyLine {
  event: 'ready'
  url: string
  host: string
  port: number
  token_required: boolean
  save?: string
  fetch: boolean
  forward_to?: string
  /** With --tunnel: the public address (path and key included) to give the service, and the program serving it. */
  public_url?: string
  tunnel?: string
}

export interface StoppedLine {
  event: 'stopped'
  received: number
  duplicates: number
  malformed: number
  rejected: number
  rejected_by_status: Record<string, number>
}

export function webhookLine(report: WebhookReport): WebhookLine | MalformedLine {
  if (report.kind === 'malformed') {
    return {event: 'malformed', seq: report.seq, received_at: report.receivedAt, bytes: report.bytes, error: report.error, raw: report.raw}
  }
  const {event, service} = report
  const line: WebhookLine = {
    event: 'webhook',
    seq: report.seq,
    received_at: report.receivedAt,
    type: event.type,
    transaction_id: event.transactionId ?? null,
    status: event.status ?? null,
    duplicate: report.duplicate,
    body: event.body,
  }
  if (service) {
    line.service_status = service.status ?? null
    if (service.updatedAt !== undefined) line.service_updated_at = service.updatedAt
    line.status_differs = service.status !== undefined && event.status !== undefined && service.status !== event.status
    line.moved_on = serviceMovedOn(event, report.receivedAt, service)
    if (service.error) line.fetch_error = service.error
  }
  if (report.forward) line.forward = report.forward
  return line
}

export function stoppedLine(counts: WebhookCounts): StoppedLine {
  return {
    event: 'stopped',
    received: counts.received,
    duplicates: counts.duplicates,
    malformed: counts.malformed,
    rejected: counts.rejected,
    rejected_by_status: counts.rejectedByStatus,
  }
}

/**
 * Control characters, C1, direction marks and line separators made visible, then long bodies cut
 * (never inside an escape), so a bad body cannot garble the terminal.
 */
function preview(raw: string, max = 80): string {
  return visibleTextCut(raw, max)
}

function describeForward(forward: ForwardResult): string {
  if (forward.status !== undefined) return `forwarded: ${forward.status} (${forward.duration_ms} ms)`
  return `forward failed: ${forward.error}`
}

/**
 * The status a webhook line shows: the one the body carried (with --fetch, and whether the
 * service has moved on since), or for a body without one, the status read from the service when
 * it came, said to be read (and that the service had moved on by then, when it had).
 */
function describeStatus(line: WebhookLine): string {
  if (line.service_status === undefined) return line.status ?? '(no status)'
  if (line.service_status === null) return `${line.status ?? '(no status)'}  service: ${line.fetch_error ? `not read (${line.fetch_error})` : 'no status'}`
  if (line.status === null) {
    return line.moved_on
      ? `${line.service_status} (read from the service, which had moved on since the webhook came)`
      : `${line.service_status} (read from the service when it came)`
  }
  return line.moved_on ? `${line.status} (the service has moved on: now ${line.service_status})` : `${line.status} (the service agrees)`
}

/** The time of a line: hours to milliseconds on a terminal, where the date adds nothing; the whole ISO time elsewhere. */
function shownTime(receivedAt: string, short: boolean): string {
  return short && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(receivedAt) ? receivedAt.slice(11, 23) : receivedAt
}

/**
 * `<time>  <type>  <transaction id>  <status>` and, when they apply, what the service said, the
 * duplicate mark and the forward's result. `short`: a terminal's line, with the time of day only.
 */
export function renderWebhookLine(line: WebhookLine | MalformedLine, {short = false}: {short?: boolean} = {}): string {
  if (line.event === 'malformed') {
    return `${visibleText(shownTime(line.received_at, short))}  malformed  answered 400, ${line.bytes} bytes: ${preview(line.raw)}`
  }
  const parts = [shownTime(line.received_at, short), line.type, line.transaction_id ?? '(no id)', describeStatus(line)]
  if (line.duplicate) parts.push('duplicate')
  if (line.forward) parts.push(describeForward(line.forward))
  return parts.map(visibleText).join('  ')
}
