/** The many-id tables never cut an id short: other columns give way, or each row becomes a block. */
import {describe, expect, it} from 'vitest'

import {renderCheckoutLookups, renderTransactionLookups} from '../../src/output/transaction-lookups.js'

const ID = '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'
const tx = (id: string) => ({id, value: {id, status: 'SETTLEMENT_COMPLETED', amount: '1499', merchant_reference: 'order-2026-11-25-000000000042-a-long-reference', last_status_update: '2026-11-25T10:00:00.000Z', payment_product: 'dummy'} as never})
const checkout = (id: string) => ({id, value: {status: 'SETTLEMENT_COMPLETED', success: true, status_reason: 'The payer paid with a card that was accepted by the bank after checks'} as never})

describe('transaction lookup tables', () => {
  it.each([40, 60, 80, 120])('at %i columns every id is whole and no line is wider than the terminal', (width) => {
    const now = Date.parse('2026-11-25T10:05:00.000Z')
    for (const text of [renderTransactionLookups([tx(ID), tx(ID.replace('9', '8'))], {format: 'aligned', width}, now), renderCheckoutLookups([checkout(ID)], {format: 'aligned', width})]) {
      expect(text).toContain(ID)
      // No id cut short (a long merchant reference may be).
      expect(text).not.toMatch(/[89]a2e4b7c\S*…/)
      for (const line of text.split('\n')) expect(line.length, line).toBeLessThan(width)
    }
  })
})
