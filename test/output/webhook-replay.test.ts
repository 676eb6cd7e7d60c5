/** webhook replay's line per delivery: broken between words on a terminal, the transaction id whole; one line in a pipe. */
import {describe, expect, it} from 'vitest'

import {renderReplayedDelivery} from '../../src/output/webhook-replay.js'
import type {ReplayedDelivery} from '../../src/webhooks/replay.js'

const ID = '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'
const delivery: ReplayedDelivery = {
  event: 'delivery',
  seq: 12,
  line: 12,
  received_at: '2026-11-28T14:02:09.123Z',
  type: 'transaction',
  transaction_id: ID,
  status: 'SETTLEMENT_REQUESTED',
  url: 'http://127.0.0.1:3000/webhooks',
  http_status: 200,
  ok: true,
  duration_ms: 14,
}

describe('renderReplayedDelivery', () => {
  it('in a pipe: one line with every part', () => {
    expect(renderReplayedDelivery(delivery)).toBe(`seq 12  SETTLEMENT_REQUESTED  ${ID}  → HTTP 200  14ms`)
  })

  it.each([40, 60, 80])('at %i columns: every line leaves the last column free, the id whole on a line', (width) => {
    const lines = renderReplayedDelivery(delivery, width).split('\n')
    expect(lines.length).toBeGreaterThan(1)
    for (const line of lines) expect(line.length, line).toBeLessThan(width)
    expect(lines.some((line) => line.split(/\s+/).includes(ID))).toBe(true)
    expect(lines.slice(1).every((line) => line.startsWith('  '))).toBe(true)
  })
})
