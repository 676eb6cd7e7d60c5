/**
 * What `webhook listen` shows for each webhook: one NDJSON object (`--json`) and the one line
 * of text drawn from that same object.
 */
import type {ForwardResult} from '../webhooks/forwarder.js'
import type {WebhookCounts, WebhookReport} from '../webhooks/listener.js'
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
  /** With --fetch: the service status differs from the body's. */
  status_differs?: boolean
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
    line.status_differs = service.status !== undefined && event.status !== undefined && service.status !== event.status
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
 * `<time>  <type>  <transaction id>  <status>` and, when they apply, the service's status next
 * to the body's, the duplicate mark and the forward's result.
 */
export function renderWebhookLine(line: WebhookLine | MalformedLine): string {
  if (line.event === 'malformed') {
    return `${visibleText(line.received_at)}  malformed  answered 400, ${line.bytes} bytes: ${preview(line.raw)}`
  }
  const parts = [line.received_at, line.type, line.transaction_id ?? '(no id)']
  if (line.service_status !== undefined) {
    if (line.service_status === null) {
      parts.push(line.status ?? '(no status)', `service: ${line.fetch_error ? `not read (${line.fetch_error})` : 'no status'}`)
    } else if (line.status_differs) {
      parts.push(`${line.service_status} (service; the webhook said ${line.status})`)
    } else {
      parts.push(`${line.service_status} (service)`)
    }
  } else {
    parts.push(line.status ?? '(no status)')
  }
  if (line.duplicate) parts.push('duplicate')
  if (line.forward) parts.push(describeForward(line.forward))
  return parts.map(visibleText).join('  ')
}
