/**
 * The emulator's own routes under /_emulator/: its health (what a command checks before relying
 * on it), the webhook delivery log, and adding organisations and payment profiles to its store
 * (the API key is required for those, as for the API).
 */
import {EMULATOR_DEFAULTS} from '../../test-mode/emulator-defaults.js'
import {isAbsoluteHttpUrl} from '../../http/url.js'
import {type EmulatorKeys, requireApiKey} from '../api/index.js'
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
}

export function adminRoutes(store: EmulatorStore, settings: AdminRouteSettings): Route[] {
  const {keys} = settings
  const body = async (request: Parameters<Route['handler']>[0]) => {
    requireApiKey(request, keys)
    const value = await readJsonRequest(request, settings.maxBodyBytes)
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ApiError(400, 'The request body must be a JSON object.', {body: 'must be an object'})
    return value as Record<string, unknown>
  }
  const requireUuid = (value: unknown, field: string): string => {
    if (typeof value !== 'string' || !isUuid(value)) throw new ApiError(400, `The request is not valid: ${field}.`, {[`body.${field}`]: 'must be a UUID'})
    return value.toLowerCase()
  }
  return [
    {
      method: 'GET',
      pattern: ['_emulator', 'health'],
      handler: (_request, response) =>
        sendJson(response, 200, {
          status: 'ok',
          emulator: 'paytx',
          url: settings.baseUrl(),
          proxy_url: `${settings.baseUrl()}${EMULATOR_DEFAULTS.proxyBasePath}`,
          proxy_id: settings.proxyId,
          payment_profile: settings.paymentProfileId,
          organisation: settings.organisation,
          api_key_header: keys.apiKeyHeader,
          lifetime: settings.lifetime,
          store: store.location,
        }),
    },
    {
      method: 'GET',
      pattern: ['_emulator', 'webhooks'],
      handler: (request, response) => {
        const wanted = new URLSearchParams(request.url?.split('?')[1] ?? '').get('transaction')
        sendJson(response, 200, {deliveries: store.deliveries(wanted ?? undefined)})
      },
    },
    {
      method: 'POST',
      pattern: ['_emulator', 'organisations'],
      handler: async (request, response) => {
        const id = requireUuid((await body(request)).id, 'id')
        store.write(() => store.addOrganisation(id, new Date(settings.now()).toISOString()))
        sendJson(response, 200, {id})
      },
    },
    {
      method: 'POST',
      pattern: ['_emulator', 'payment-profiles'],
      handler: async (request, response) => {
        const request_ = await body(request)
        const id = requireUuid(request_.id, 'id')
        const organisation = request_.organisation === undefined ? settings.organisation : requireUuid(request_.organisation, 'organisation')
        const webhook = request_.webhook_transaction_update
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
        sendJson(response, 200, store.paymentProfile(id))
      },
    },
  ]
}
