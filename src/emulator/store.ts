/**
 * The emulator's data: customers, cards, transactions, payment profiles and the webhook
 * delivery log, held in memory and turned into (and read back from) one JSON document for the
 * state file. Cards are stored without their PAN (last four digits and a brand only) and
 * transactions without a CVV (only whether one was given).
 */
import type {Customer, SofortSender, Transaction} from '../api/contract.js'
import type {TestCard} from '../test-mode/outcomes.js'

export interface StoredCard {
  id: string
  customer: string
  organisation: string
  holder_name: string
  expiry_month: string
  expiry_year: string
  last4: string
  brand: string
  created_at: string
  /** What paying with this card leads to (decided by the test card number at tokenization). */
  testOutcome: TestCard['outcome']
}

export interface StoredTransaction {
  /** Exactly what the API returns for the transaction. */
  transaction: Transaction
  /** Whether `details.card_cvv` was given at start; the CVV itself is never kept. */
  cvvGiven: boolean
  /** The payer chose a settlement request that never settles (dummy "Request settlement only"). */
  settlementHeld?: boolean
}

export interface PaymentProfile {
  id: string
  organisation: string
  name: string
  webhook_transaction_update: string
  created_at: string
}

export interface WebhookAttempt {
  attempt: number
  at: string
  duration_ms: number
  http_status?: number
  error?: string
}

export interface WebhookDelivery {
  id: string
  transaction: string
  status: string
  url: string
  state: 'pending' | 'delivered' | 'failed'
  created_at: string
  delivered_at?: string
  attempts: WebhookAttempt[]
}

export const STATE_VERSION = 1

export interface EmulatorStateDocument {
  paytx_emulator_state: typeof STATE_VERSION
  saved_at: string
  payment_profiles: PaymentProfile[]
  customers: Customer[]
  cards: StoredCard[]
  transactions: StoredTransaction[]
  webhook_deliveries: WebhookDelivery[]
}

/** The delivery log keeps the most recent deliveries only, so a long run cannot grow without end. */
export const MAX_LOGGED_DELIVERIES = 1000

export class EmulatorStore {
  readonly paymentProfiles = new Map<string, PaymentProfile>()
  readonly customers = new Map<string, Customer>()
  readonly cards = new Map<string, StoredCard>()
  readonly transactions = new Map<string, StoredTransaction>()
  readonly deliveries: WebhookDelivery[] = []

  addDelivery(delivery: WebhookDelivery): void {
    this.deliveries.push(delivery)
    if (this.deliveries.length > MAX_LOGGED_DELIVERIES) this.deliveries.splice(0, this.deliveries.length - MAX_LOGGED_DELIVERIES)
  }

  toDocument(savedAt: string): EmulatorStateDocument {
    return {
      paytx_emulator_state: STATE_VERSION,
      saved_at: savedAt,
      payment_profiles: [...this.paymentProfiles.values()],
      customers: [...this.customers.values()],
      cards: [...this.cards.values()],
      transactions: [...this.transactions.values()],
      webhook_deliveries: this.deliveries,
    }
  }

  /** Loads a document written by `toDocument`; throws with what is wrong when it is not one. */
  static fromDocument(value: unknown): EmulatorStore {
    const problem = (what: string): never => {
      throw new Error(what)
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) problem('it is not a JSON object')
    const doc = value as Partial<EmulatorStateDocument>
    if (doc.paytx_emulator_state !== STATE_VERSION) {
      problem(`it has no "paytx_emulator_state": ${STATE_VERSION} marker (not an emulator state file of this version)`)
    }
    const list = <T>(key: keyof EmulatorStateDocument, check: (item: T) => boolean): T[] => {
      const items = doc[key]
      if (!Array.isArray(items)) return problem(`"${key}" is not a list`)
      items.forEach((item, index) => {
        if (!item || typeof item !== 'object' || !check(item as T)) problem(`"${key}"[${index}] is not a valid entry`)
      })
      return items as T[]
    }
    const hasId = (item: {id?: unknown}) => typeof item.id === 'string' && item.id.length > 0
    const store = new EmulatorStore()
    for (const profile of list<PaymentProfile>('payment_profiles', hasId)) store.paymentProfiles.set(profile.id, profile)
    for (const customer of list<Customer>('customers', hasId)) store.customers.set(customer.id, customer)
    for (const card of list<StoredCard>('cards', (c) => hasId(c) && typeof c.last4 === 'string')) store.cards.set(card.id, card)
    const transactions = list<StoredTransaction>(
      'transactions',
      (t) => !!t.transaction && hasId(t.transaction) && typeof t.transaction.status === 'string' && !!t.transaction.details,
    )
    for (const entry of transactions) store.transactions.set(entry.transaction.id, entry)
    store.deliveries.push(...list<WebhookDelivery>('webhook_deliveries', (d) => hasId(d) && Array.isArray(d.attempts)))
    return store
  }
}

export const EMPTY_SOFORT_SENDER: SofortSender = {
  country_code: '',
  iban: '',
  bic: '',
  bank_name: '',
  bank_code: '',
  account_number: '',
  holder: '',
}
