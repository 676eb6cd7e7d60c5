/**
 * The emulator's authentication: the API key in its header for the API, the proxy key (in its
 * header, or as Basic auth) for the card proxy. Both answer 401 with what to send. Beside the
 * router, below every room with routes (api, faults, admin), which all check the same key.
 */
import type {IncomingMessage} from 'node:http'

import {PROXY_BASIC_USER, PROXY_KEY_HEADER} from '../api/contract.js'
import {ApiError} from './http-exchange.js'

export interface EmulatorKeys {
  apiKey: string
  apiKeyHeader: string
  proxyKey: string
}

export function requireApiKey(request: IncomingMessage, keys: EmulatorKeys): void {
  const given = request.headers[keys.apiKeyHeader.toLowerCase()]
  if (given === undefined || given === '') throw new ApiError(401, `The API key is missing: send it in the ${keys.apiKeyHeader} header.`)
  if (given !== keys.apiKey) throw new ApiError(401, `The API key in the ${keys.apiKeyHeader} header is not valid for this emulator.`)
}

/** Whether the request carries this emulator's API key (for routes open to all that show more to its holder). */
export function hasApiKey(request: IncomingMessage, keys: EmulatorKeys): boolean {
  return request.headers[keys.apiKeyHeader.toLowerCase()] === keys.apiKey
}

export function requireProxyKey(request: IncomingMessage, keys: EmulatorKeys): void {
  const header = request.headers[PROXY_KEY_HEADER.toLowerCase()]
  let given = typeof header === 'string' && header !== '' ? header : undefined
  const authorization = request.headers.authorization
  if (given === undefined && authorization?.startsWith('Basic ')) {
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon !== -1 && decoded.slice(0, colon) === PROXY_BASIC_USER) given = decoded.slice(colon + 1)
  }
  if (given === undefined) {
    throw new ApiError(401, `The proxy key is missing: send it in the ${PROXY_KEY_HEADER} header (or as Basic auth with user ${PROXY_BASIC_USER}).`)
  }
  if (given !== keys.proxyKey) throw new ApiError(401, 'The proxy key is not valid for this card proxy.')
}
