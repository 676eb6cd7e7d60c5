/** A smoke case that passed, as the runner reports it: the base that the reporters' tests vary. */
import type {SmokeCaseResult} from '../../src/smoke/runner.js'

export const PASSED_CASE: SmokeCaseResult = {
  name: 'dummy-paid',
  line: 4,
  product: 'dummy',
  amount: 1499,
  outcome: 'SETTLEMENT_COMPLETED',
  verdict: 'passed',
  reason: '',
  expected: 'SETTLEMENT_COMPLETED, success',
  got: 'SETTLEMENT_COMPLETED, success, 4 webhooks',
  transactionId: '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c',
  customerId: 'cus_1',
  status: 'SETTLEMENT_COMPLETED',
  differences: [],
  durationMs: 1234,
}
