/**
 * The small set of requests `emulator verify` sends to both sides, in order: a customer, a card
 * through the card proxy, a dummy transaction, its status and checkoutsuccess, and a few inputs
 * each side must refuse. Later requests use ids from earlier answers, each side its own.
 */
import {API_PATHS, PROXY_KEY_HEADER, readId} from '../api/contract.js'
import type {HttpRequest} from '../api/http-client.js'
import {joinUrl} from '../api/http-client.js'
import {sampleCustomer} from '../flow/sample-customer.js'
import type {Profile} from '../profiles/presets.js'
import {DEFAULT_TEST_CARD} from '../test-mode/outcomes.js'

/** An id no transaction has. */
const NO_SUCH_TRANSACTION = '00000000-0000-4000-8000-000000000000'

/** What each side's later requests need from its earlier answers. */
export interface ProbeState {
  customerId?: string
  transactionId?: string
}

export interface Probe {
  /** Stable name, for --json and the assumption table. */
  name: string
  /** What the request is, as a person reads it. */
  title: string
  /** The request for this side, or a reason it cannot be sent (an earlier answer lacked an id). */
  request(profile: Profile, state: ProbeState): HttpRequest | {skipped: string}
  /** Takes what later probes need from a 2xx answer. */
  remember?(body: unknown, state: ProbeState): void
}

function api(profile: Profile, path: string): string {
  return joinUrl(profile.base_url, path)
}

function keyed(profile: Profile): Record<string, string> {
  return profile.api_key ? {[profile.api_key_header]: profile.api_key} : {}
}

function needs<K extends keyof ProbeState>(state: ProbeState, key: K, what: string): string | {skipped: string} {
  return state[key] ?? {skipped: `no ${what} id from the earlier answer`}
}

export const PROBES: readonly Probe[] = [
  {
    name: 'customer',
    title: 'POST /customer (a sample customer)',
    request: (profile) => ({method: 'POST', url: api(profile, API_PATHS.customer), headers: keyed(profile), body: sampleCustomer(profile.organisation)}),
    remember: (body, state) => void (state.customerId = readId(body)),
  },
  {
    name: 'card',
    title: 'POST /tokenize/proxy/<id> (the test card)',
    request(profile, state) {
      if (!profile.h2h_url || !profile.proxy_id || !profile.proxy_key) return {skipped: 'the profile has no card proxy address, id or key'}
      const customer = needs(state, 'customerId', 'customer')
      if (typeof customer !== 'string') return customer
      return {
        method: 'POST',
        url: joinUrl(profile.h2h_url, API_PATHS.tokenize(profile.proxy_id)),
        headers: {[PROXY_KEY_HEADER]: profile.proxy_key},
        body: {customer, pan: DEFAULT_TEST_CARD.pan, expiry_month: '12', expiry_year: String(new Date().getUTCFullYear() + 3), holder_name: 'Jane Tester', ...(profile.organisation ? {organisation: profile.organisation} : {})},
      }
    },
  },
  {
    name: 'transaction-start',
    title: 'POST /transaction/start (dummy, 1.00)',
    request(profile, state) {
      const customer = needs(state, 'customerId', 'customer')
      if (typeof customer !== 'string') return customer
      return {
        method: 'POST',
        url: api(profile, API_PATHS.transactionStart),
        headers: keyed(profile),
        body: {
          ...(profile.payment_profile ? {payment_profile: profile.payment_profile} : {}),
          amount: 100,
          customer,
          customer_ip: '127.0.0.1',
          merchant_reference: `paytx-verify-${Date.now().toString(36)}`,
          payment_product: 'dummy',
          user_agent: 'paytx emulator verify',
          details: {redirect_url: 'https://example.com/paytx-verify'},
        },
      }
    },
    remember: (body, state) => void (state.transactionId = readId(body)),
  },
  {
    name: 'transaction',
    title: 'GET /transaction/<id>',
    request(profile, state) {
      const id = needs(state, 'transactionId', 'transaction')
      return typeof id === 'string' ? {method: 'GET', url: api(profile, API_PATHS.transaction(id)), headers: keyed(profile)} : id
    },
  },
  {
    name: 'checkoutsuccess',
    title: 'GET /transaction/<id>/checkoutsuccess',
    request(profile, state) {
      const id = needs(state, 'transactionId', 'transaction')
      return typeof id === 'string' ? {method: 'GET', url: api(profile, API_PATHS.checkoutSuccess(id)), headers: keyed(profile)} : id
    },
  },
  {
    name: 'invalid-amount',
    title: 'POST /transaction/start with amount 0 (refused)',
    request(profile, state) {
      const customer = needs(state, 'customerId', 'customer')
      if (typeof customer !== 'string') return customer
      return {method: 'POST', url: api(profile, API_PATHS.transactionStart), headers: keyed(profile), body: {amount: 0, customer, customer_ip: '127.0.0.1', merchant_reference: 'paytx-verify-refused', payment_product: 'dummy', user_agent: 'paytx emulator verify', details: {redirect_url: 'https://example.com/paytx-verify'}}}
    },
  },
  {
    name: 'invalid-customer',
    title: 'POST /customer with no fields (refused)',
    request: (profile) => ({method: 'POST', url: api(profile, API_PATHS.customer), headers: keyed(profile), body: {}}),
  },
  {
    name: 'unknown-transaction',
    title: 'GET /transaction/<an id no transaction has>',
    request: (profile) => ({method: 'GET', url: api(profile, API_PATHS.transaction(NO_SUCH_TRANSACTION)), headers: keyed(profile)}),
  },
  {
    name: 'wrong-key',
    title: 'GET /transaction/<id> with a wrong API key',
    request(profile, state) {
      const id = needs(state, 'transactionId', 'transaction')
      return typeof id === 'string' ? {method: 'GET', url: api(profile, API_PATHS.transaction(id)), headers: {[profile.api_key_header]: 'sk_test_paytx_verify_not_a_key'}} : id
    },
  },
]
