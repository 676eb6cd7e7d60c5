import type {Transaction} from '../../src/api/schemas.js'

/**
 * The store tests' transaction number n: a dummy payment of 14.99, INITIATED, its merchant
 * reference `order-<n>`; `extra` replaces fields.
 */
export function storedTransaction(n: number, extra: Partial<Transaction> = {}): Transaction {
  return {
    id: `00000001-0000-4000-8000-${String(n).padStart(12, '0')}`,
    status: 'INITIATED',
    status_reason: '',
    amount: '1499',
    payment_product: 'dummy',
    merchant_reference: `order-${n}`,
    created_at: '2026-01-01T00:00:00.000Z',
    last_status_update: '2026-01-01T00:00:00.000Z',
    details: {},
    ...extra,
  } as unknown as Transaction
}
