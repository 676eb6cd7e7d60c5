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
import {bodyHash} from './seeded-random.js'
import {type RequestTarget, type TargetHandler, isAdminTarget} from '../router.js'
import {type ActiveFaultRule, type FaultRules, type RequestFacts, type TransactionFacts, transactionKey} from './fault-rules.js'

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

/** The request as the route reads it: the same bytes again, once the faults have read them. */
function replay(request: IncomingMessage, body: string): IncomingMessage {
  return Object.assign(Readable.from([Buffer.from(body)]), {
    headers: request.headers,
    rawHeaders: request.rawHeaders,
    method: request.method,
    url: request.url,
    socket: request.socket,
  }) as unknown as IncomingMessage
}

/**
 * What the rules are asked with: the method and path; the transaction a request is about (the
 * stored one for /v1/transaction/<id>/…, the body's fields for a start request) when a rule
 * matches on it; and the request's key (see `RequestFacts.key`). The body is read only when
 * that needs it, and then handed on as a request that gives the same bytes again.
 */
async function requestFacts(request: IncomingMessage, {path, segments}: RequestTarget, faults: FaultRules, settings: RequestFaultSettings): Promise<{facts: RequestFacts; forwarded: IncomingMessage}> {
  const method = request.method ?? ''
  const base: RequestFacts = {method, path, key: `${method} ${path}`}
  const onTransactions = segments[0] === 'v1' && segments[1] === 'transaction' && segments.length >= 3
  if (onTransactions && segments[2] !== 'start') {
    if (!faults.needsRequestTransactionFacts && !faults.needsRequestKeys) return {facts: base, forwarded: request}
    const facts = factsOfTransaction(settings.store, segments[2])
    const route = `${method} /${[...segments.slice(0, 2), '<transaction>', ...segments.slice(3)].join('/')}`
    return {facts: {...base, ...facts, key: `${route} ${transactionKey(facts)}`}, forwarded: request}
  }
  const hasBody = method !== 'GET' && method !== 'HEAD'
  const startFacts = onTransactions && method === 'POST' && isJsonMediaType(request) && faults.needsRequestTransactionFacts
  if (!hasBody || !(startFacts || faults.needsRequestKeys)) return {facts: base, forwarded: request}
  const body = await readBody(request, settings.maxBodyBytes)
  const facts = onTransactions && isJsonMediaType(request) ? factsOfStartRequest(body) : {}
  const named = facts.merchant_reference === undefined ? `body ${bodyHash(body)}` : `merchant_reference ${facts.merchant_reference}`
  return {facts: {...base, ...facts, key: `${base.key} ${named}`}, forwarded: replay(request, body)}
}

/** What the rule's fault does to the request, for the fault event. */
function requestEffect({rule}: ActiveFaultRule): string {
  const kind = FAULT_KIND_TABLE[rule.fault]
  // The entry is the rule's own kind's, so the rule has its fields (a link TypeScript cannot follow).
  return kind.on === 'request' ? kind.effect(rule as never) : rule.fault
}

/** The handler behind the request faults; the path rules match on is the request's normalised target, the one the router routes by. */
export function withRequestFaults(next: TargetHandler, faults: FaultRules, settings: RequestFaultSettings): TargetHandler {
  const faulted = faultedRequest(next, faults, settings)
  // With no rules (most of the time), the request goes on within this call.
  return (request, response, target) => (faults.isEmpty || isAdminTarget(target) ? next(request, response, target) : faulted(request, response, target))
}

/** A request while rules are set: its facts read (its body too, for the rules that match on it), then the first rule that matches applied. */
function faultedRequest(next: TargetHandler, faults: FaultRules, settings: RequestFaultSettings): TargetHandler {
  return async (request, response, target) => {
    const handle: RequestHandler = async (forwardedRequest, forwardedResponse) => next(forwardedRequest, forwardedResponse, target)
    const {path} = target
    const {facts, forwarded} = await requestFacts(request, target, faults, settings)
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
      ...(facts.merchant_reference === undefined ? {} : {merchant_reference: facts.merchant_reference}),
      effect: requestEffect(active),
    })
    const kind = FAULT_KIND_TABLE[rule.fault]
    if (kind.on !== 'request') return handle(forwarded, response)
    return kind.apply(rule as never, {ruleId: active.id, request, forwarded, response, handle})
  }
}
