/**
 * Faults on API requests, around the route handler: an error status with the service's error
 * object (and Retry-After), added latency, a connection reset, or a body cut off half-way.
 * The emulator's own routes (/_emulator/) are never faulted. A status or a reset answers before
 * the request is carried out; latency and a cut body carry it out (a start request with a cut
 * body has created its transaction: the case a client must not repeat blindly).
 */
import type {IncomingMessage} from 'node:http'
import {Readable} from 'node:stream'

import type {FaultEvent} from '../events.js'
import {isJsonMediaType, readBody} from '../http-exchange.js'
import type {EmulatorStore} from '../store/index.js'
import {FAULT_KIND_TABLE, type RequestHandler} from './fault-kinds.js'
import type {ActiveFaultRule, FaultRules, RequestFacts, TransactionFacts} from './fault-rules.js'

export interface RequestFaultSettings {
  store: EmulatorStore
  maxBodyBytes: number
  now(): number
  report(event: FaultEvent): void
}

function factsOfTransaction(store: EmulatorStore, id: string): TransactionFacts {
  const stored = store.transaction(id)?.transaction
  if (!stored) return {transaction: id}
  return {transaction: stored.id, product: stored.payment_product, amount: Number(stored.amount), merchant_reference: stored.merchant_reference}
}

function factsOfStartRequest(body: string): TransactionFacts {
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch {
    return {}
  }
  if (!value || typeof value !== 'object') return {}
  const {payment_product: product, amount, merchant_reference: reference} = value as Record<string, unknown>
  return {
    ...(typeof product === 'string' ? {product} : {}),
    ...(typeof amount === 'number' ? {amount} : {}),
    ...(typeof reference === 'string' ? {merchant_reference: reference} : {}),
  }
}

/**
 * The transaction a request is about: the stored one for /v1/transaction/<id>/…, the body's
 * fields for a start request. The body is read for that, so the route gets a request that
 * gives the same bytes again.
 */
async function transactionFacts(request: IncomingMessage, path: string, settings: RequestFaultSettings): Promise<{facts: TransactionFacts; request: IncomingMessage}> {
  const segments = path.split('/').filter(Boolean)
  if (segments[0] !== 'v1' || segments[1] !== 'transaction' || segments.length < 3) return {facts: {}, request}
  if (segments[2] !== 'start') return {facts: factsOfTransaction(settings.store, decodeURIComponent(segments[2])), request}
  if (request.method !== 'POST' || !isJsonMediaType(request)) return {facts: {}, request}
  const body = await readBody(request, settings.maxBodyBytes)
  const again = Object.assign(Readable.from([Buffer.from(body)]), {
    headers: request.headers,
    rawHeaders: request.rawHeaders,
    method: request.method,
    url: request.url,
    socket: request.socket,
  }) as unknown as IncomingMessage
  return {facts: factsOfStartRequest(body), request: again}
}

/** What the rule's fault does to the request, for the fault event. */
function requestEffect({rule}: ActiveFaultRule): string {
  const kind = FAULT_KIND_TABLE[rule.fault]
  // The entry is the rule's own kind's, so the rule has its fields (a link TypeScript cannot follow).
  return kind.on === 'request' ? kind.effect(rule as never) : rule.fault
}

export function withRequestFaults(handle: RequestHandler, faults: FaultRules, settings: RequestFaultSettings): RequestHandler {
  return async (request, response) => {
    const path = (request.url ?? '').split('?')[0]
    if (faults.isEmpty || path === '/_emulator' || path.startsWith('/_emulator/')) return handle(request, response)
    let forwarded = request
    let facts: RequestFacts = {method: request.method ?? '', path}
    if (faults.needsRequestTransactionFacts) {
      const gathered = await transactionFacts(request, path, settings)
      forwarded = gathered.request
      facts = {...facts, ...gathered.facts}
    }
    const active = faults.forRequest(facts)
    if (!active) return handle(forwarded, response)
    const {rule} = active
    settings.report({
      event: 'fault',
      time: new Date(settings.now()).toISOString(),
      rule: active.id,
      ...(rule.name === undefined ? {} : {name: rule.name}),
      fault: rule.fault,
      on: 'request',
      method: facts.method,
      path,
      ...(facts.transaction === undefined ? {} : {transaction: facts.transaction}),
      effect: requestEffect(active),
    })
    const kind = FAULT_KIND_TABLE[rule.fault]
    if (kind.on !== 'request') return handle(forwarded, response)
    return kind.apply(rule as never, {ruleId: active.id, request, forwarded, response, handle})
  }
}
