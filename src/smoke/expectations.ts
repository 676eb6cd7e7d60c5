/**
 * A case's expectations against what its flow ended with: every difference, each naming what
 * was expected and what came, so a failed case says exactly why.
 */
import type {FlowResult} from '../flow/run-flow.js'
import {formatDuration} from '../duration.js'
import type {CaseExpectation} from './scenario.js'

export interface Difference {
  /** What differs: status, final, success, status_reason, webhooks, duration. */
  field: string
  expected: string
  got: string
}

export function formatDifference(difference: Difference): string {
  return `${difference.field}: expected ${difference.expected}, got ${difference.got}`
}

/** The webhooks the flow's listener received, without re-deliveries of the same status. */
export function distinctWebhookStatuses(result: Pick<FlowResult, 'webhooks'>): string[] {
  return result.webhooks.filter((webhook) => !webhook.duplicate).map((webhook) => webhook.status ?? '(no status)')
}

function listText(statuses: readonly string[]): string {
  return statuses.length === 0 ? 'none' : `[${statuses.join(', ')}]`
}

function countText(count: number): string {
  return `${count} webhook${count === 1 ? '' : 's'}`
}

/** What the expectations read of a case's payment: a flow's result, or what a merchant-started case ended with. */
export type PaymentOutcome = Pick<FlowResult, 'status' | 'final' | 'success' | 'statusReason' | 'webhooks' | 'durationMs'>

export function checkExpectations(expect: CaseExpectation, result: PaymentOutcome): Difference[] {
  const differences: Difference[] = []
  if (expect.statuses && !expect.statuses.includes(result.status)) {
    differences.push({field: 'status', expected: expect.statuses.join(' or '), got: result.status})
  }
  if (expect.final !== undefined && result.final !== expect.final) {
    differences.push({field: 'final', expected: String(expect.final), got: `${result.final} (${result.status})`})
  }
  if (expect.success !== undefined && result.success !== expect.success) {
    differences.push({field: 'success', expected: String(expect.success), got: `${result.success} (${result.status})`})
  }
  if (expect.statusReason && !expect.statusReason.regex.test(result.statusReason)) {
    differences.push({field: 'status_reason', expected: `to match ${expect.statusReason.pattern}`, got: JSON.stringify(result.statusReason)})
  }
  if (expect.webhooks) {
    const received = distinctWebhookStatuses(result)
    const {count, min, max, statuses, contains} = expect.webhooks
    const got = `${countText(received.length)} ${listText(received)}`
    if (count !== undefined && received.length !== count) differences.push({field: 'webhooks', expected: countText(count), got})
    if (min !== undefined && received.length < min) differences.push({field: 'webhooks', expected: `at least ${countText(min)}`, got})
    if (max !== undefined && received.length > max) differences.push({field: 'webhooks', expected: `at most ${countText(max)}`, got})
    if (statuses && (statuses.length !== received.length || statuses.some((status, index) => received[index] !== status))) {
      differences.push({field: 'webhooks', expected: `${listText(statuses)} in this order`, got: listText(received)})
    }
    const absent = contains?.filter((status) => !received.includes(status)) ?? []
    if (absent.length > 0) differences.push({field: 'webhooks', expected: `to include ${absent.join(', ')}`, got: listText(received)})
  }
  if (expect.maxDurationMs !== undefined && result.durationMs > expect.maxDurationMs) {
    differences.push({field: 'duration', expected: `at most ${formatDuration(expect.maxDurationMs)}`, got: formatDuration(result.durationMs)})
  }
  return differences
}

/** The expectation in a few words, for the results table. */
export function describeExpectation(expect: CaseExpectation): string {
  const parts: string[] = []
  if (expect.statuses) parts.push(expect.statuses.join('|'))
  if (expect.final !== undefined) parts.push(expect.final ? 'final' : 'not final')
  if (expect.success !== undefined) parts.push(expect.success ? 'success' : 'no success')
  if (expect.statusReason) parts.push(`reason ~ ${expect.statusReason.pattern}`)
  if (expect.webhooks) {
    const {count, min, max, statuses, contains} = expect.webhooks
    if (count !== undefined) parts.push(countText(count))
    if (min !== undefined) parts.push(`≥${countText(min)}`)
    if (max !== undefined) parts.push(`≤${countText(max)}`)
    if (statuses) parts.push(`webhooks ${listText(statuses)}`)
    if (contains) parts.push(`webhooks ⊇ ${listText(contains)}`)
  }
  if (expect.delivered) parts.push(`webhooks answered 2xx${expect.delivered.min > 1 ? ` (≥${expect.delivered.min})` : ''}`)
  if (expect.maxDurationMs !== undefined) parts.push(`≤ ${formatDuration(expect.maxDurationMs)}`)
  return parts.join(', ')
}

/**
 * What the payment ended with, in the same few words. Webhooks are counted only where paytx saw
 * them: its own listener (`listened`), or the emulator's delivery log (`delivered`, its summary);
 * a case whose webhooks went elsewhere says nothing of them rather than "0 webhooks".
 */
export function describeOutcome(result: PaymentOutcome, seen: {listened: boolean; delivered?: string}): string {
  const parts = [result.status]
  if (!result.final) parts.push('not final')
  parts.push(result.success ? 'success' : 'no success')
  if (seen.listened) parts.push(countText(distinctWebhookStatuses(result).length))
  if (seen.delivered) parts.push(seen.delivered)
  return parts.join(', ')
}
