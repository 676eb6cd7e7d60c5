/**
 * The requests `emulator verify` sends, described once and built for each side from that one
 * description: the same fields, in the same order, on both sides. A side's own values (its
 * address, keys, organisation and payment profile ids, ids from its earlier answers) are the only
 * thing that differs; what the profile lacks (a payment profile, a webhook address) is left out on
 * both sides. Later requests use ids from earlier answers, each side its own.
 */
import {API_PATHS, PROXY_KEY_HEADER, readId} from '../api/contract.js'
import type {HttpRequest} from '../api/http-client.js'
import {joinUrl} from '../api/http-client.js'
import {sampleCustomer} from '../flow/sample-customer.js'
import {DEFAULT_TEST_CARD} from '../test-mode/outcomes.js'

/** An id no transaction has. */
const NO_SUCH_TRANSACTION = '00000000-0000-4000-8000-000000000000'
/** The wrong key of the wrong-key request. */
export const WRONG_KEY = 'sk_test_paytx_verify_not_a_key'

/** One side's addresses, keys and ids: the real profile's, or the emulator's. */
export interface SideSettings {
  base_url: string
  h2h_url?: string
  proxy_id?: string
  proxy_key?: string
  api_key_header: string
  api_key: string
  organisation: string
  /** Sent only when the profile has one (then each side sends its own). */
  payment_profile?: string
  /** Where this side's webhooks go; sent only when both sides have one. */
  webhook_url?: string
}

/** What each side's later requests need from its earlier answers. */
export interface ProbeState {
  customerId?: string
  transactionId?: string
}

/** Values both sides send alike, fixed once per run. */
export interface SharedValues {
  merchantReference: string
  expiryYear: string
}

export interface Probe {
  /** Stable name, for --json and the assumption table. */
  name: string
  /** What the request is, as a person reads it. */
  title: string
  /** The request for this side, or why it is not sent (to either side: the reason is the same). */
  request(side: SideSettings, state: ProbeState, shared: SharedValues): HttpRequest | {skipped: string}
  /** Takes what later probes need from a 2xx answer. */
  remember?(body: unknown, state: ProbeState): void
  /** The kind of thing a 2xx answer created on the service (listed in the report). */
  creates?: 'customer' | 'card' | 'transaction'
}

const keyed = (side: SideSettings): Record<string, string> => ({[side.api_key_header]: side.api_key})
const api = (side: SideSettings, path: string) => joinUrl(side.base_url, path)
const needs = (state: ProbeState, key: keyof ProbeState, what: string): string | {skipped: string} => state[key] ?? {skipped: `no ${what} id from the earlier answer`}

/** The optional customer fields sent, to check they come back as sent (assumption customer-optional-fields). */
export const CUSTOMER_EXTRAS = {house_number_suffix: 'A', fax_number: '+31201234567'}

/** A transaction request; only the dummy one carries the webhook address (one transaction's webhooks are watched). */
function transactionBody(side: SideSettings, customer: string, shared: SharedValues, product: 'dummy' | 'sofort', amount = 100): Record<string, unknown> {
  return {
    ...(side.payment_profile ? {payment_profile: side.payment_profile} : {}),
    amount,
    customer,
    customer_ip: '127.0.0.1',
    dynamic_descriptor: 'paytx verify',
    merchant_reference: shared.merchantReference,
    payment_product: product,
    user_agent: 'paytx emulator verify',
    details: {redirect_url: 'https://example.com/paytx-verify'},
    ...(side.webhook_url && product === 'dummy' && amount > 0 ? {webhook_transaction_update: side.webhook_url} : {}),
  }
}

function startProbe(name: string, title: string, product: 'dummy' | 'sofort', remember: boolean): Probe {
  return {
    name,
    title,
    creates: 'transaction',
    request(side, state, shared) {
      const customer = needs(state, 'customerId', 'customer')
      if (typeof customer !== 'string') return customer
      return {method: 'POST', url: api(side, API_PATHS.transactionStart), headers: keyed(side), body: transactionBody(side, customer, shared, product)}
    },
    ...(remember ? {remember: (body: unknown, state: ProbeState) => void (state.transactionId = readId(body))} : {}),
  }
}

function readProbe(name: string, title: string, path: (id: string) => string, headers: (side: SideSettings) => Record<string, string> = keyed): Probe {
  return {
    name,
    title,
    request(side, state) {
      const id = needs(state, 'transactionId', 'transaction')
      return typeof id === 'string' ? {method: 'GET', url: api(side, path(id)), headers: headers(side)} : id
    },
  }
}

const cardProbe: Probe = {
  name: 'card',
  title: 'POST /tokenize/proxy/<id> (the test card)',
  creates: 'card',
  request(side, state, shared) {
    if (!side.h2h_url || !side.proxy_id || !side.proxy_key) return {skipped: 'the profile has no card proxy: add --h2h-url, --proxy-id and --proxy-key-stdin to it'}
    const customer = needs(state, 'customerId', 'customer')
    if (typeof customer !== 'string') return customer
    return {
      method: 'POST',
      url: joinUrl(side.h2h_url, API_PATHS.tokenize(side.proxy_id)),
      headers: {[PROXY_KEY_HEADER]: side.proxy_key},
      body: {customer, pan: DEFAULT_TEST_CARD.pan, expiry_month: '12', expiry_year: shared.expiryYear, holder_name: 'Jane Tester', organisation: side.organisation},
    }
  },
}

export const PROBES: readonly Probe[] = [
  {
    name: 'customer',
    title: 'POST /customer (a sample customer)',
    creates: 'customer',
    request: (side) => ({method: 'POST', url: api(side, API_PATHS.customer), headers: keyed(side), body: {...sampleCustomer(side.organisation), ...CUSTOMER_EXTRAS}}),
    remember: (body, state) => void (state.customerId = readId(body)),
  },
  cardProbe,
  startProbe('transaction-start', 'POST /transaction/start (dummy, 1.00)', 'dummy', true),
  readProbe('transaction', 'GET /transaction/<id>', API_PATHS.transaction),
  readProbe('checkoutsuccess', 'GET /transaction/<id>/checkoutsuccess', API_PATHS.checkoutSuccess),
  startProbe('transaction-start-sofort', 'POST /transaction/start (sofort, 1.00)', 'sofort', false),
  {
    name: 'invalid-amount',
    title: 'POST /transaction/start with amount 0 (refused)',
    request(side, state, shared) {
      const customer = needs(state, 'customerId', 'customer')
      if (typeof customer !== 'string') return customer
      return {method: 'POST', url: api(side, API_PATHS.transactionStart), headers: keyed(side), body: transactionBody(side, customer, shared, 'dummy', 0)}
    },
  },
  {
    name: 'invalid-customer',
    title: 'POST /customer with no fields (refused)',
    request: (side) => ({method: 'POST', url: api(side, API_PATHS.customer), headers: keyed(side), body: {}}),
  },
  {
    name: 'unknown-transaction',
    title: 'GET /transaction/<an id no transaction has>',
    request: (side) => ({method: 'GET', url: api(side, API_PATHS.transaction(NO_SUCH_TRANSACTION)), headers: keyed(side)}),
  },
  readProbe('wrong-key', 'GET /transaction/<id> with a wrong API key', API_PATHS.transaction, (side) => ({[side.api_key_header]: WRONG_KEY})),
]
