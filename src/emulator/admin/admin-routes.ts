/**
 * The emulator's own routes under /_emulator/: its health (what a command checks before relying
 * on it), the webhook delivery log, and adding organisations and payment profiles to its store
 * (the API key is required for those, as for the API).
 */
import type {IncomingMessage} from 'node:http'

import {EMULATOR_DEFAULTS} from '../../test-mode/emulator-defaults.js'
import {isAbsoluteHttpUrl} from '../../http/url.js'
import {type EmulatorKeys, hasApiKey, requireApiKey} from '../auth.js'
import {displayWebhookUrl} from '../events.js'
import {ApiError, readJsonRequest, sendJson} from '../http-exchange.js'
import {type EmulatorStore, isUuid} from '../store/index.js'
import type {Route} from '../router.js'

export interface AdminRouteSettings {
  keys: EmulatorKeys
  proxyId: string
  organisation: string
  paymentProfileId: string
  lifetime: 'service' | 'command'
  maxBodyBytes: number
  baseUrl(): string
  now(): number
  /** Transactions the search index does not hold yet (search-indexing.ts); undefined while unknown. */
  searchPending(): number | undefined
}

/** The body of an admin POST: a JSON object, after the API key was checked. */
async function objectBody(request: IncomingMessage, settings: AdminRouteSettings): Promise<Record<string, unknown>> {
  requireApiKey(request, settings.keys)
  const value = await readJsonRequest(request, settings.maxBodyBytes)
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ApiError(400, 'The request body must be a JSON object.', {body: 'must be an object'})
  return value as Record<string, unknown>
}

function requireUuid(value: unknown, field: string): string {
  if (typeof value !== 'string' || !isUuid(value)) throw new ApiError(400, `The request is not valid: ${field}.`, {[`body.${field}`]: 'must be a UUID'})
  return value.toLowerCase()
}

/** What `emulator start` and the CLI read to know who answers at an address. */
function health(store: EmulatorStore, settings: AdminRouteSettings): Record<string, unknown> {
  const pending = settings.searchPending()
  return {
    status: 'ok',
    emulator: 'paytx',
    url: settings.baseUrl(),
    proxy_url: `${settings.baseUrl()}${EMULATOR_DEFAULTS.proxyBasePath}`,
    proxy_id: settings.proxyId,
    payment_profile: settings.paymentProfileId,
    organisation: settings.organisation,
    api_key_header: settings.keys.apiKeyHeader,
    lifetime: settings.lifetime,
    store: store.location,
    // Searches find them all the same; a bench or a script waits for 0 to measure an index at rest.
    ...(pending === undefined ? {} : {search_pending: pending}),
  }
}

/** Adds a payment profile (and its organisation when new); a given webhook address replaces the stored one. */
function addPaymentProfile(store: EmulatorStore, settings: AdminRouteSettings, body: Record<string, unknown>) {
  const id = requireUuid(body.id, 'id')
  const organisation = body.organisation === undefined ? settings.organisation : requireUuid(body.organisation, 'organisation')
  const webhook = body.webhook_transaction_update
  if (webhook !== undefined && (typeof webhook !== 'string' || (webhook !== '' && !isAbsoluteHttpUrl(webhook)))) {
    throw new ApiError(400, 'The request is not valid: webhook_transaction_update.', {'body.webhook_transaction_update': 'must be an absolute http(s) URL'})
  }
  const createdAt = new Date(settings.now()).toISOString()
  store.write(() => {
    store.addOrganisation(organisation, createdAt)
    store.putPaymentProfile(
      {id, organisation, name: id, webhook_transaction_update: (webhook as string | undefined) ?? '', created_at: createdAt},
      {replaceWebhook: webhook !== undefined},
    )
  })
  return store.paymentProfile(id)
}

export function adminRoutes(store: EmulatorStore, settings: AdminRouteSettings): Route[] {
  return [
    {method: 'GET', pattern: ['_emulator', 'health'], handler: (_request, response) => sendJson(response, 200, health(store, settings))},
    {
      method: 'GET',
      pattern: ['_emulator', 'webhooks'],
      handler: (request, response) => {
        const wanted = new URLSearchParams(request.url?.split('?')[1] ?? '').get('transaction')
        const deliveries = store.deliveries(wanted ?? undefined)
        // The log is open to read; an address's secret parts (a ?key= token, say) only to the key's holder.
        const shown = hasApiKey(request, settings.keys) ? deliveries : deliveries.map((delivery) => ({...delivery, url: displayWebhookUrl(delivery.url)}))
        sendJson(response, 200, {deliveries: shown})
      },
    },
    {
      method: 'POST',
      pattern: ['_emulator', 'organisations'],
      handler: async (request, response) => {
        const id = requireUuid((await objectBody(request, settings)).id, 'id')
        store.write(() => store.addOrganisation(id, new Date(settings.now()).toISOString()))
        sendJson(response, 200, {id})
      },
    },
    {
      method: 'POST',
      pattern: ['_emulator', 'payment-profiles'],
      handler: async (request, response) => sendJson(response, 200, addPaymentProfile(store, settings, await objectBody(request, settings))),
    },
  ]
}
