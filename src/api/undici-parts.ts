/**
 * Loads only the two parts of undici the HTTP client uses (Agent and request). The package's
 * entry point also loads fetch, websockets, caches and mocks, which costs paytx status about 75 ms
 * of its start-up (measured with bench/startup.js). Should undici move these files, the whole
 * package is loaded instead, so an upgrade can make paytx slower but never break it.
 */
import type {Dispatcher} from 'undici'

export interface UndiciParts {
  createAgent(options: {connectTimeoutMs: number}): Dispatcher
  request(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>
  /** undici's `request(url, options)` on its global dispatcher, for one-off requests. */
  requestUrl(url: string, options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'>): Promise<Dispatcher.ResponseData>
}

function originAndPath(url: string): {origin: string; path: string} {
  const target = new URL(url)
  return {origin: target.origin, path: `${target.pathname}${target.search}`}
}

let loaded: Promise<UndiciParts> | undefined

async function loadParts(): Promise<UndiciParts> {
  // Specifiers in variables: these files have no type declarations of their own.
  const agentPath = 'undici/lib/dispatcher/agent.js'
  const requestPath = 'undici/lib/api/api-request.js'
  const globalPath = 'undici/lib/global.js'
  try {
    const [agentModule, requestModule, globalModule] = await Promise.all([import(agentPath), import(requestPath), import(globalPath)])
    const getGlobalDispatcher = globalModule.default?.getGlobalDispatcher as () => Dispatcher
    const Agent = agentModule.default as typeof import('undici').Agent
    const request = requestModule.default as (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>
    if (typeof Agent !== 'function' || typeof request !== 'function' || typeof getGlobalDispatcher !== 'function') {
      throw new Error('undici layout changed')
    }
    return {
      createAgent: ({connectTimeoutMs}) => new Agent({connect: {timeout: connectTimeoutMs}, keepAliveTimeout: 4000}),
      request: (dispatcher, options) => request.call(dispatcher, options),
      requestUrl: (url, options) => request.call(getGlobalDispatcher(), {...options, ...originAndPath(url)}),
    }
  } catch {
    const undici = await import('undici')
    return {
      createAgent: ({connectTimeoutMs}) => new undici.Agent({connect: {timeout: connectTimeoutMs}, keepAliveTimeout: 4000}),
      request: (dispatcher, options) => dispatcher.request(options),
      requestUrl: (url, options) => undici.request(url, options),
    }
  }
}

export function loadUndici(): Promise<UndiciParts> {
  loaded ??= loadParts()
  return loaded
}
