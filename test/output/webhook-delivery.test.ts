/** The emulator's delivery lines (`emulator trigger`, `emulator resend`) with text read back from the emulator. */
import {describe, expect, it} from 'vitest'

import type {WebhookDelivery} from '../../src/emulator/store/index.js'
import {renderDeliveryLine} from '../../src/output/webhook-delivery.js'

describe('renderDeliveryLine', () => {
  it('shows a status and an attempt error holding escapes and line breaks as escapes, on one line', () => {
    const delivery = {
      id: 'd1',
      transaction: 'tx-1',
      status: 'DECLINED\u001b[2J',
      url: 'http://127.0.0.1:4020/webhooks?key=t0ken',
      state: 'pending',
      created_at: '2026-11-20T10:00:00.000Z',
      attempts: [{attempt: 1, error: 'socket hang up\nwebhook SETTLEMENT_COMPLETED → forged', duration_ms: 3}],
    } as unknown as WebhookDelivery
    expect(renderDeliveryLine(delivery)).toBe(
      'webhook DECLINED\\x1b[2J → http://127.0.0.1:4020/webhooks?key=…  attempt 1: socket hang up\\nwebhook SETTLEMENT_COMPLETED → forged, will retry (3 ms)',
    )
  })
})
