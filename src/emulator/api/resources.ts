/**
 * The service's operations on the emulator's store: create a customer, tokenize a card, start,
 * read and check a transaction. Requests are validated with the shared schemas, then against the
 * store (known organisation, customer, a card of that customer, a known payment profile); every
 * problem is reported at once, keyed like the service does (`body.customer`). Each change is
 * committed before it is returned, so an answer never reports what a crash could take back.
 */
import {randomUUID} from 'node:crypto'

import {API_PATHS, CUSTOMER_EMPTY_FIELDS, CUSTOMER_OPTIONAL_FIELDS, CUSTOMER_INITIAL_STATUS, CUSTOMER_REQUEST_FIELDS, type Product, cardBrand, isSuccessStatus, lastFour, sofortDescriptorProblem, transliterateDescriptor} from '../../api/contract.js'
import {type CheckoutSuccess, type Customer, type SofortSender, type Transaction, type TransactionStartRequest, type ValidationIssue, validateCardRequest, validateCustomerRequest, validateTransactionStartRequest} from '../../api/schemas.js'
import type {Clock, TransactionLifecycle} from '../time/index.js'
import {ApiError, validationError} from '../http-exchange.js'
import {SOFORT_TEST_BANKS, testCardOutcome} from '../../test-mode/outcomes.js'
import type {AssumptionSettings} from '../assumptions.js'
import {type EmulatorStore, type StoredCard, type TransactionRenderer, approvalUrl, cardRecord, sofortSender} from '../store/index.js'

/** The issuer BIC the dummy product reports (a test code, not a real bank). */
export const DUMMY_ISSUER_BIC = 'DUMMNL2AXXX'

export interface ResourceSettings {
  /** The organisation of a card tokenized without one. */
  organisation: string
  defaultPaymentProfile: string
  /** The API base, for `details.approval_url`. */
  baseUrl: string
  /** The readings of what the spec leaves open (the card record's shape). */
  assumptions: AssumptionSettings
}

export class EmulatorResources {
  constructor(
    private readonly store: EmulatorStore,
    private readonly clock: Clock,
    private readonly lifecycle: TransactionLifecycle,
    private readonly settings: ResourceSettings,
  ) {}

  createCustomer(body: unknown): Customer {
    const issues = validateCustomerRequest(body)
    const request = (body ?? {}) as Record<string, unknown>
    this.checkOrganisation(request.organisation, issues)
    if (issues.length > 0) throw validationError(issues)
    const now = this.isoNow()
    const customer = {id: randomUUID()} as Customer
    for (const field of CUSTOMER_REQUEST_FIELDS) customer[field] = typeof request[field] === 'string' ? (request[field] as string) : ''
    // Optional fields the request may carry: kept as sent, "" only when not set (spec: Customer response).
    for (const field of CUSTOMER_EMPTY_FIELDS) customer[field] = ''
    for (const field of CUSTOMER_OPTIONAL_FIELDS) if (typeof request[field] === 'string') customer[field] = request[field] as string
    customer.status = CUSTOMER_INITIAL_STATUS
    customer.created_at = now
    customer.last_status_update = now
    this.store.write(() => this.store.insertCustomer(customer))
    return customer
  }

  /** Tokenizes a card: the PAN is reduced to its last four digits and a brand before storing. */
  tokenizeCard(body: unknown): Record<string, string> {
    const issues = validateCardRequest(body, {now: new Date(this.clock.now())})
    const request = (body ?? {}) as Record<string, unknown>
    this.checkCustomer(request.customer, issues)
    if (request.organisation !== undefined) this.checkOrganisation(request.organisation, issues)
    if (issues.length > 0) throw validationError(issues)
    const pan = request.pan as string
    const card: StoredCard = {
      id: randomUUID(),
      customer: request.customer as string,
      organisation: typeof request.organisation === 'string' ? request.organisation : this.settings.organisation,
      holder_name: request.holder_name as string,
      expiry_month: (request.expiry_month as string).padStart(2, '0'),
      expiry_year: request.expiry_year as string,
      last4: lastFour(pan),
      brand: cardBrand(pan),
      created_at: this.isoNow(),
      testOutcome: testCardOutcome(pan),
    }
    this.store.write(() => this.store.insertCard(card))
    return cardRecord(card, this.settings.assumptions)
  }

  /**
   * Checks and stores a new transaction; resolves with it once committed, in one commit with the
   * other starts of this turn of the event loop (the checks run inside that write).
   */
  async startTransaction(body: unknown): Promise<Transaction> {
    // No copy: the transaction was made for this request, and the store and its webhook keep only its JSON.
    return this.lifecycle.created(() => this.newTransaction(body))
  }

  private newTransaction(body: unknown): {transaction: Transaction; cvvGiven: boolean} {
    const issues = validateTransactionStartRequest(body)
    const request = (body ?? {}) as Partial<TransactionStartRequest> & Record<string, unknown>
    this.checkCustomer(request.customer, issues)
    if (request.payment_profile !== undefined && typeof request.payment_profile === 'string' && !this.store.paymentProfile(request.payment_profile)) {
      issues.push({path: 'payment_profile', message: 'no payment profile has this id'})
    }
    this.checkProductRules(request, issues)
    if (request.payment_product === 'card' && typeof request.card === 'string' && request.card !== '') {
      const card = this.store.card(request.card)
      if (!card) issues.push({path: 'card', message: 'no card has this id; tokenize the card first'})
      else if (typeof request.customer === 'string' && card.customer !== request.customer) {
        issues.push({path: 'card', message: 'belongs to another customer'})
      }
    }
    if (issues.length > 0) throw validationError(issues)

    const product = request.payment_product as Product
    const id = randomUUID()
    const now = this.isoNow()
    const {card_cvv: cvv, ...details} = request.details as TransactionStartRequest['details']
    const descriptor = request.dynamic_descriptor ?? ''
    const transaction: Transaction = {
      id,
      payment_profile: request.payment_profile ?? this.settings.defaultPaymentProfile,
      customer: request.customer as string,
      customer_ip: request.customer_ip ?? '',
      dynamic_descriptor: product === 'sofort' ? transliterateDescriptor(descriptor) : descriptor,
      merchant_reference: request.merchant_reference ?? '',
      user_agent: request.user_agent ?? '',
      payment_product: product,
      payment_product_type: product,
      processor: product,
      amount: String(request.amount),
      ...(product === 'card' ? {card: request.card} : {}),
      details: {
        ...details,
        approval_url: approvalUrl(this.settings.baseUrl, id),
        ...(product === 'sofort' ? {sender: this.unconfirmedSender(id, request.customer as string)} : {}),
        ...(product === 'dummy' ? {issuer: DUMMY_ISSUER_BIC} : {}),
      },
      status: 'INITIATED',
      status_reason: '',
      ...(request.webhook_transaction_update ? {webhook_transaction_update: request.webhook_transaction_update} : {}),
      created_at: now,
      last_status_update: now,
    }
    return {transaction, cvvGiven: typeof cvv === 'string' && cvv !== ''}
  }

  /**
   * The paying account before the payer picks a bank: every field filled but `bank_name`, the one
   * the spec allows to be empty; the bank page replaces it with the chosen bank's account.
   */
  private unconfirmedSender(transactionId: string, customerId: string): SofortSender {
    const customer = this.store.customer(customerId)
    const name = customer ? `${customer.first_name} ${customer.last_name}`.trim() : ''
    const sender = sofortSender({id: transactionId, details: {}} as Transaction, SOFORT_TEST_BANKS[0])
    return {...sender, bank_name: '', ...(name ? {holder: name} : {})}
  }

  /**
   * GET /v1/transaction/{id}'s answer, as JSON text: the transaction with any move due by now
   * applied first, approved where this emulator listens; a status polled again and unchanged is
   * answered as written the last time.
   */
  transactionAnswer(id: string): string {
    const text = this.lifecycle.caughtUpRendering(id, this.answerRenderer())
    if (text === undefined) throw unknownTransaction(id)
    return text
  }

  /** The renderer of answers at the emulator's address (one function per address: a rendering kept is known by it). */
  private answerRenderer(): TransactionRenderer {
    const {baseUrl} = this.settings
    if (this.renderer?.baseUrl !== baseUrl) this.renderer = {baseUrl, render: (entry) => JSON.stringify(withApprovalUrl(entry.transaction, baseUrl))}
    return this.renderer.render
  }

  private renderer?: {baseUrl: string; render: TransactionRenderer}

  checkoutSuccess(id: string): CheckoutSuccess {
    const {status, status_reason: reason} = this.requireTransaction(id)
    return {status, status_reason: reason ?? '', success: isSuccessStatus(status)}
  }

  /** The transaction as it is now: any move due by now applied first, approved where this emulator listens. */
  private requireTransaction(id: string): Transaction {
    // The transaction as the catch-up left it: read once when nothing was due (the read path under load).
    const entry = this.lifecycle.catchUp(id)
    if (!entry) throw unknownTransaction(id)
    return withApprovalUrl(entry.transaction, this.settings.baseUrl)
  }

  /**
   * The schema checks the product's own rules only once the rest of the body is valid; report
   * them together with the other problems, so that one answer lists everything to fix.
   */
  private checkProductRules(request: Record<string, unknown>, issues: ValidationIssue[]): void {
    const reported = (path: string) => issues.some((issue) => issue.path === path)
    if (request.payment_product === 'card' && (request.card === undefined || request.card === '') && !reported('card')) {
      issues.push({path: 'card', message: 'is required for the card product (id of a tokenized card)'})
    }
    if (request.payment_product === 'sofort' && typeof request.dynamic_descriptor === 'string' && !reported('dynamic_descriptor')) {
      const problem = sofortDescriptorProblem(request.dynamic_descriptor)
      if (problem) issues.push({path: 'dynamic_descriptor', message: problem})
    }
  }

  private checkCustomer(customer: unknown, issues: ValidationIssue[]): void {
    if (typeof customer === 'string' && customer !== '' && !this.store.hasCustomer(customer)) {
      issues.push({path: 'customer', message: 'no customer has this id; create the customer first'})
    }
  }

  private checkOrganisation(organisation: unknown, issues: ValidationIssue[]): void {
    if (typeof organisation === 'string' && organisation !== '' && !this.store.hasOrganisation(organisation)) {
      issues.push({
        path: 'organisation',
        message: `is not an organisation of this emulator (add it with paytx emulator add-organisation, or use ${this.settings.organisation})`,
      })
    }
  }

  private isoNow(): string {
    return new Date(this.clock.now()).toISOString()
  }
}

/** The service's 404 for an id no transaction has. */
function unknownTransaction(id: string): ApiError {
  return new ApiError(404, `No transaction has the id ${JSON.stringify(id)}.`, {'params.transaction_id': 'unknown transaction'})
}

/**
 * A transaction is approved where the emulator answering listens (several may share the store).
 * Set in place, where the key already is: the transaction was just read from its row, for this answer alone.
 */
function withApprovalUrl(transaction: Transaction, baseUrl: string): Transaction {
  transaction.details ??= {} as Transaction['details']
  transaction.details.approval_url = approvalUrl(baseUrl, transaction.id)
  return transaction
}
