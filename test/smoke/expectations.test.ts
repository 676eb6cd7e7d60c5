import {describe, expect, it} from 'vitest'

import {checkExpectations, describeExpectation, describeOutcome, formatDifference} from '../../src/smoke/expectations.js'
import type {FlowResult} from '../../src/flow/run-flow.js'

function result(overrides: Partial<FlowResult> = {}): FlowResult {
  return {
    profile: 'local',
    environment: 'local',
    customerId: 'cus_1',
    transactionId: 'tx_1',
    product: 'dummy',
    amount: 100,
    status: 'SETTLEMENT_COMPLETED',
    final: true,
    conclusive: true,
    success: true,
    statusReason: 'settled',
    redirect: {received: true, transactionId: 'tx_1'},
    webhooks: ['INITIATED', 'IN_PROGRESS', 'SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED'].map((status) => ({
      type: 'transaction',
      transactionId: 'tx_1',
      status,
      receivedAt: '2026-11-20T10:00:00.000Z',
      duplicate: false,
    })),
    steps: [],
    durationMs: 1200,
    transaction: {} as FlowResult['transaction'],
    timeline: [],
    ...overrides,
  } as FlowResult
}

describe('expectations', () => {
  it('passes when everything holds, duplicates of a webhook not counted', () => {
    const withDuplicate = result()
    withDuplicate.webhooks.push({...withDuplicate.webhooks[3], duplicate: true})
    expect(
      checkExpectations(
        {
          statuses: ['SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED'],
          final: true,
          success: true,
          statusReason: {pattern: '^settled$', regex: /^settled$/},
          webhooks: {count: 4, min: 1, max: 4, statuses: ['INITIATED', 'IN_PROGRESS', 'SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED'], contains: ['SETTLEMENT_COMPLETED']},
          maxDurationMs: 1200,
        },
        withDuplicate,
      ),
    ).toEqual([])
  })

  it('names every difference with what was expected and what came', () => {
    const differences = checkExpectations(
      {
        statuses: ['DECLINED'],
        final: false,
        success: false,
        statusReason: {pattern: 'declined', regex: /declined/},
        webhooks: {count: 2, statuses: ['DECLINED'], contains: ['DECLINED', 'IN_PROGRESS']},
        maxDurationMs: 1000,
      },
      result(),
    )
    expect(differences.map(formatDifference)).toEqual([
      'status: expected DECLINED, got SETTLEMENT_COMPLETED',
      'final: expected false, got true (SETTLEMENT_COMPLETED)',
      'success: expected false, got true (SETTLEMENT_COMPLETED)',
      'status_reason: expected to match declined, got "settled"',
      'webhooks: expected 2 webhooks, got 4 webhooks [INITIATED, IN_PROGRESS, SETTLEMENT_REQUESTED, SETTLEMENT_COMPLETED]',
      'webhooks: expected [DECLINED] in this order, got [INITIATED, IN_PROGRESS, SETTLEMENT_REQUESTED, SETTLEMENT_COMPLETED]',
      'webhooks: expected to include DECLINED, got [INITIATED, IN_PROGRESS, SETTLEMENT_REQUESTED, SETTLEMENT_COMPLETED]',
      'duration: expected at most 1.0 s, got 1.2 s',
    ])
  })

  it('accepts a not-final UNKNOWN when that is what the case expects', () => {
    const unknown = result({status: 'UNKNOWN', final: false, success: false, webhooks: []})
    expect(checkExpectations({statuses: ['UNKNOWN'], final: false, webhooks: {count: 0}}, unknown)).toEqual([])
  })

  it('describes an expectation and an outcome in a few words', () => {
    expect(describeExpectation({statuses: ['DECLINED', 'FAILED'], success: false, webhooks: {contains: ['DECLINED']}, maxDurationMs: 15_000})).toBe(
      'DECLINED|FAILED, no success, webhooks ⊇ [DECLINED], ≤ 15.0 s',
    )
    expect(describeOutcome(result({status: 'UNKNOWN', final: false, success: false, webhooks: []}), {listened: true})).toBe('UNKNOWN, not final, no success, 0 webhooks')
  })

  it('never counts webhooks paytx did not see: with webhook: <url> the outcome names none, or the delivery log’s count', () => {
    const settled = result({status: 'SETTLEMENT_COMPLETED', final: true, success: true, webhooks: []})
    expect(describeOutcome(settled, {listened: false})).toBe('SETTLEMENT_COMPLETED, success')
    expect(describeOutcome(settled, {listened: false, delivered: '3 webhooks delivered, all answered 2xx'})).toBe(
      'SETTLEMENT_COMPLETED, success, 3 webhooks delivered, all answered 2xx',
    )
  })
})
