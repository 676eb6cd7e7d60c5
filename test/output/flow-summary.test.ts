/** The flow summary's line on refused requests says what each was, by its status. */
import {describe, expect, it} from 'vitest'

import type {FlowResult} from '../../src/flow/run-flow.js'
import {renderFlowSummary} from '../../src/output/flow-summary.js'

const base = {profile: 'local', environment: 'local', customerId: 'c', transactionId: 't', product: 'dummy', amount: 100, merchantReference: 'r', approvalUrl: 'u', status: 'SETTLEMENT_COMPLETED', final: true, conclusive: true, success: true, statusReason: '', redirect: {received: true, transactionId: 't'}, webhooks: [], steps: [], durationMs: 10, transaction: {} as never, timeline: []}

describe('renderFlowSummary', () => {
  it.each([
    [{'405': 1}, 1, 'Refused      1 request to the listener: 1 × a method the address does not take (405)'],
    [{'404': 2, '400': 1}, 3, 'Refused      3 requests to the listener: 1 × a redirect for another transaction or without one (400), 2 × an unknown path or token (404)'],
  ])('%o', (rejectedByStatus, rejectedRequests, line) => {
    expect(renderFlowSummary({...base, rejectedRequests, rejectedByStatus} as FlowResult)).toContain(line)
  })

  it('no line when nothing was refused', () => {
    expect(renderFlowSummary({...base, rejectedRequests: 0, rejectedByStatus: {}} as FlowResult)).not.toContain('Refused')
  })

  it('lists each webhook with the status its body carried, or the one read when it came and whether the service had moved on', () => {
    const webhooks = [
      {type: 'transaction', status: 'SETTLEMENT_COMPLETED', statusFrom: 'service', movedOn: true, receivedAt: '2026-11-20T10:00:00.100Z', duplicate: false},
      {type: 'transaction', status: 'SETTLEMENT_COMPLETED', statusFrom: 'service', movedOn: false, receivedAt: '2026-11-20T10:00:00.200Z', duplicate: false},
      {type: 'transaction', status: 'PENDING', statusFrom: 'webhook', receivedAt: '2026-11-20T10:00:00.300Z', duplicate: false},
      {type: 'transaction', status: 'PENDING', statusFrom: 'webhook', receivedAt: '2026-11-20T10:00:00.400Z', duplicate: true},
    ]
    const summary = renderFlowSummary({...base, rejectedRequests: 0, rejectedByStatus: {}, webhooks} as FlowResult)
    expect(summary).toContain(
      [
        'Webhooks     10:00:00.100  transaction  SETTLEMENT_COMPLETED  (read from the service, which had moved on since it came)',
        '             10:00:00.200  transaction  SETTLEMENT_COMPLETED  (read from the service when it came)',
        '             10:00:00.300  transaction  PENDING',
        '             10:00:00.400  transaction  PENDING  duplicate',
      ].join('\n'),
    )
  })
})
