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
}

let loaded: Promise<UndiciParts> | undefined

async function loadParts(): Promise<UndiciParts> {
  // Specifiers in variables: these files have no type declarations of their own.
  const agentPath = 'undici/lib/dispatcher/agent.js'
  const requestPath = 'undici/lib/api/api-request.js'
  try {
    const [agentModule, requestModule] = await Promise.all([import(agentPath), import(requestPath)])
    const Agent = agentModule.default as typeof import('undici').Agent
    const request = requestModule.default as (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>
    if (typeof Agent !== 'function' || typeof request !== 'function') throw new Error('undici layout changed')
    return {
      createAgent: ({connectTimeoutMs}) => new Agent({connect: {timeout: connectTimeoutMs}, keepAliveTimeout: 4000}),
      request: (dispatcher, options) => request.call(dispatcher, options),
    }
  } catch {
    const undici = await import('undici')
    return {
      createAgent: ({connectTimeoutMs}) => new undici.Agent({connect: {timeout: connectTimeoutMs}, keepAliveTimeout: 4000}),
      request: (dispatcher, options) => dispatcher.request(options),
    }
  }
}

export function loadUndici(): Promise<UndiciParts> {
  loaded ??= loadParts()
  return loaded
}
