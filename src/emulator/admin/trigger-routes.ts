/**
 * The admin routes that drive and show transactions, for scripts in any language (with the API
 * key, as for the API): trigger a status, resend webhooks, read a transaction's timeline and
 * deliveries, list recent transactions.
 */
import type {IncomingMessage} from 'node:http'

import type {AssumptionSettings} from '../assumptions.js'
import {type EmulatorKeys, requireApiKey} from '../auth.js'
import type {Clock, TransactionLifecycle} from '../time/index.js'
import {ApiError, queryInteger, queryText, readJsonRequest, sendJson} from '../http-exchange.js'
import type {Route} from '../router.js'
import type {EmulatorStore, TransactionPages, TransactionQuery} from '../store/index.js'
import {parseResendRequest, parseTriggerRequest, resendWebhooks, triggerStatus} from './trigger.js'

export interface TriggerRouteSettings {
  /** Where lists and searches are read. */
  pages: TransactionPages
  keys: EmulatorKeys
  maxBodyBytes: number
  assumptions: AssumptionSettings
  clock: Clock
  /** Wakes the scheduler for the deliveries queued now. */
  due(at: number): void
}

/** How many transactions a list shows at most. */
export const MAX_LISTED_TRANSACTIONS = 200

/** A list's query string: `limit`, `search`, `status`, `product`, `customer`, and `before` (the previous page's `next`). */
function listQuery(query: URLSearchParams): TransactionQuery {
  const [search, status, product, customer, before] = ['search', 'status', 'product', 'customer', 'before'].map((name) => queryText(query, name))
  return {
    limit: queryInteger(query, 'limit', {min: 1, max: MAX_LISTED_TRANSACTIONS, fallback: 50}),
    ...(search ? {search} : {}),
    ...(status ? {status} : {}),
    ...(product ? {product} : {}),
    ...(customer ? {customer} : {}),
    ...(before ? {before} : {}),
  }
}

/** A transaction with its status timeline and webhook deliveries, as the admin API and the dashboard show it. */
export function transactionRecord(store: EmulatorStore, lifecycle: TransactionLifecycle, id: string) {
  lifecycle.catchUp(id)
  const entry = store.transaction(id)
  if (!entry) throw new ApiError(404, `No transaction has the id ${JSON.stringify(id)}.`, {'params.transaction_id': 'unknown transaction'})
  return {transaction: entry.transaction, status_changes: store.statusChanges(id), deliveries: store.deliveries(id)}
}

export function triggerRoutes(store: EmulatorStore, lifecycle: TransactionLifecycle, settings: TriggerRouteSettings): Route[] {
  const objectBody = async (request: IncomingMessage) => {
    requireApiKey(request, settings.keys)
    const value = await readJsonRequest(request, settings.maxBodyBytes)
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ApiError(400, 'The request body must be a JSON object.', {body: 'must be an object'})
    return value as Record<string, unknown>
  }
  return [
    {
      method: 'GET',
      pattern: ['_emulator', 'transactions'],
      handler: async (request, response) => {
        requireApiKey(request, settings.keys)
        const page = await settings.pages.page(listQuery(new URLSearchParams(request.url?.split('?')[1] ?? '')))
        sendJson(response, 200, {transactions: page.transactions.map((entry) => entry.transaction), ...(page.next ? {next: page.next} : {})})
      },
    },
    {
      method: 'GET',
      pattern: ['_emulator', 'transactions', ':'],
      handler: (request, response, [id]) => {
        requireApiKey(request, settings.keys)
        sendJson(response, 200, transactionRecord(store, lifecycle, id))
      },
    },
    {
      method: 'POST',
      pattern: ['_emulator', 'transactions', ':', 'trigger'],
      handler: async (request, response, [id]) => {
        const result = triggerStatus(store, lifecycle, id, parseTriggerRequest(await objectBody(request)))
        sendJson(response, 200, {...result, transaction: store.transaction(id)!.transaction})
      },
    },
    {
      method: 'POST',
      pattern: ['_emulator', 'transactions', ':', 'resend'],
      handler: async (request, response, [id]) => {
        const deliveries = resendWebhooks(store, settings.clock, settings.assumptions, id, parseResendRequest(await objectBody(request)))
        settings.due(settings.clock.now())
        sendJson(response, 200, {transaction: id, deliveries})
      },
    },
  ]
}
