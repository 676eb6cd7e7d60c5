/**
 * The service's API routes: customers, the card proxy's tokenization, and transactions (start,
 * read, checkoutsuccess). Each checks its key, reads its JSON body and calls the resources.
 */
import {EMULATOR_DEFAULTS} from '../../test-mode/emulator-defaults.js'
import {type EmulatorKeys, requireApiKey, requireProxyKey} from '../auth.js'
import {ApiError, readJsonRequest, sendJson, sendJsonText} from '../http-exchange.js'
import type {EmulatorResources} from './resources.js'
import type {Route} from '../router.js'

export interface ApiRouteSettings {
  keys: EmulatorKeys
  proxyId: string
  maxBodyBytes: number
}

export function apiRoutes(resources: EmulatorResources, settings: ApiRouteSettings): Route[] {
  const {keys, proxyId, maxBodyBytes} = settings
  const proxyBase = EMULATOR_DEFAULTS.proxyBasePath.split('/').filter(Boolean)
  return [
    {
      method: 'POST',
      pattern: ['v1', 'customer'],
      handler: async (request, response) => {
        requireApiKey(request, keys)
        sendJson(response, 200, resources.createCustomer(await readJsonRequest(request, maxBodyBytes)))
      },
    },
    {
      method: 'POST',
      pattern: [...proxyBase, 'tokenize', 'proxy', ':'],
      handler: async (request, response, [id]) => {
        if (id !== proxyId) throw new ApiError(404, `No card proxy has the id ${JSON.stringify(id)}.`, {'params.proxy_id': 'unknown proxy id'})
        requireProxyKey(request, keys)
        sendJson(response, 200, resources.tokenizeCard(await readJsonRequest(request, maxBodyBytes)))
      },
    },
    {
      method: 'POST',
      pattern: ['v1', 'transaction', 'start'],
      handler: async (request, response) => {
        requireApiKey(request, keys)
        sendJson(response, 200, await resources.startTransaction(await readJsonRequest(request, maxBodyBytes)))
      },
    },
    {
      method: 'GET',
      pattern: ['v1', 'transaction', ':'],
      handler: (request, response, [id]) => {
        requireApiKey(request, keys)
        sendJsonText(response, 200, resources.transactionAnswer(id))
      },
    },
    {
      method: 'GET',
      pattern: ['v1', 'transaction', ':', 'checkoutsuccess'],
      handler: (request, response, [id]) => {
        requireApiKey(request, keys)
        sendJson(response, 200, resources.checkoutSuccess(id))
      },
    },
  ]
}
