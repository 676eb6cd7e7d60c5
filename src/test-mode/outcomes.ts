/**
 * What the emulator's approval pages offer, defined once for the emulator (which renders and
 * accepts these forms), the flow's `--approve` and the smoke runner (which post them without a
 * browser), the docs (docs/emulator.md) and the tests.
 *
 * An outcome is named by the status the transaction ends in from the payer's side.
 */
import type {Product, TransactionStatus} from '../api/contract.js'

/** dummy: every outcome a tester needs, picked by a button (form field `outcome`). */
export const DUMMY_OUTCOMES = [
  'SETTLEMENT_COMPLETED',
  'SETTLEMENT_REQUESTED',
  'PENDING',
  'DECLINED',
  'CANCELLED',
  'FAILED',
  'ABANDONED',
  'UNKNOWN',
] as const satisfies readonly TransactionStatus[]

export interface TestCard {
  pan: string
  /** What paying with this card leads to. */
  outcome: 'SETTLEMENT_COMPLETED' | 'DECLINED' | 'FAILED' | 'PENDING'
  description: string
}

/**
 * Test card numbers: the number decides the outcome of a card payment in the emulator. Any other
 * valid number approves. The first is the earlier sandbox's approval card (api-notes.md).
 */
export const TEST_CARDS: readonly TestCard[] = [
  {pan: '4024007108173153', outcome: 'SETTLEMENT_COMPLETED', description: 'approves: SETTLEMENT_REQUESTED, then SETTLEMENT_COMPLETED'},
  {pan: '4000000000000002', outcome: 'DECLINED', description: 'is declined by the processor: DECLINED'},
  {pan: '4000000000000119', outcome: 'FAILED', description: 'fails with a processing error: FAILED'},
  {pan: '4000000000000259', outcome: 'PENDING', description: 'goes PENDING first, then settles'},
]
export const TEST_CARD_CVV = '123'
export const DEFAULT_TEST_CARD = TEST_CARDS[0]

/** card: the payer pays (with a CVV when the transaction has none) or cancels. */
export const CARD_OUTCOMES = ['SETTLEMENT_COMPLETED', 'DECLINED', 'FAILED', 'PENDING', 'CANCELLED'] as const

export interface SofortTestBank {
  /** Form value of the `bank` field. */
  id: string
  name: string
  bic: string
  bank_code: string
  country_code: string
  outcome: 'SETTLEMENT_COMPLETED' | 'DECLINED'
}

export const SOFORT_TEST_BANKS: readonly SofortTestBank[] = [
  {id: 'demobank', name: 'Demo Bank', bic: 'DEMODE01XXX', bank_code: '10020030', country_code: 'DE', outcome: 'SETTLEMENT_COMPLETED'},
  {id: 'musterbank', name: 'Musterbank Berlin', bic: 'MUSTDEBBXXX', bank_code: '10070000', country_code: 'DE', outcome: 'SETTLEMENT_COMPLETED'},
  {id: 'declinebank', name: 'Testbank (declines)', bic: 'TESTDEDDXXX', bank_code: '99999999', country_code: 'DE', outcome: 'DECLINED'},
]

/** sofort: the payer picks a bank and confirms, or cancels. */
export const SOFORT_OUTCOMES = ['SETTLEMENT_COMPLETED', 'DECLINED', 'CANCELLED'] as const

export const APPROVAL_OUTCOMES: Record<Product, readonly string[]> = {
  dummy: DUMMY_OUTCOMES,
  card: CARD_OUTCOMES,
  sofort: SOFORT_OUTCOMES,
}

export function testCardFor(outcome: string): TestCard | undefined {
  return TEST_CARDS.find((card) => card.outcome === outcome)
}

export function testCardOutcome(pan: string): TestCard['outcome'] {
  return TEST_CARDS.find((card) => card.pan === pan)?.outcome ?? 'SETTLEMENT_COMPLETED'
}

/**
 * The form fields that complete an approval page with the given outcome, as one POST
 * (application/x-www-form-urlencoded) to the approval URL. For card, the outcome of paying is
 * decided by the test card the transaction uses (see `testCardFor`); the form only pays or
 * cancels. Returns undefined when the product's page does not offer the outcome.
 */
export function approvalFormFields(product: Product, outcome: string, options: {cvv?: string} = {}): Record<string, string> | undefined {
  if (!APPROVAL_OUTCOMES[product].includes(outcome)) return undefined
  switch (product) {
    case 'dummy':
      return {outcome}
    case 'card':
      return outcome === 'CANCELLED' ? {action: 'cancel'} : {action: 'pay', cvv: options.cvv ?? TEST_CARD_CVV}
    case 'sofort': {
      if (outcome === 'CANCELLED') return {action: 'cancel'}
      const bank = SOFORT_TEST_BANKS.find((b) => b.outcome === outcome)!
      return {action: 'confirm', bank: bank.id}
    }
  }
}
