/**
 * What a case checks of the merchant's service once its payment is over: that the merchant's
 * webhook endpoint was sent every webhook of the transaction and answered each 2xx (read from
 * the emulator's delivery log, which records every attempt's address, answer and time), and what
 * the merchant's own endpoint reports (read until it answers as expected: the merchant handles
 * webhooks asynchronously, or until the check's timeout, reporting the last answer).
 */
import {isDeepStrictEqual} from 'node:util'

import {NetworkError} from '../errors.js'
import {type Timer, systemTimer} from '../flow/timer.js'
import {redactUrl} from '../secrets/redact-url.js'
import {formatDuration} from '../duration.js'
import type {Difference} from './expectations.js'
import {readJsonPath} from './json-path.js'
import {type MerchantAnswer, describeAnswer, merchantRequest} from './merchant-http.js'
import type {CheckStep, DeliveredExpectation} from './merchant-scenario.js'
import {type Reference, resolveReferences} from './references.js'

/** One delivery of the emulator's log (GET /_emulator/webhooks?transaction=<id>), as far as a case reads it. */
export interface LoggedDelivery {
  id: string
  status: string
  url: string
  state: string
  attempts: {attempt: number; at: string; http_status?: number; error?: string; fault?: string}[]
}

/** A delivery as a case's result shows it: its address redacted, each attempt's answer and time. */
export interface DeliveryRecord {
  status: string
  url: string
  state: string
  attempts: {at: string; httpStatus?: number; error?: string}[]
}

export interface DeliveryCheck {
  deliveries: DeliveryRecord[]
  /** In a few words, for the results table and JUnit: "3 webhooks delivered, all answered 2xx". */
  summary: string
  differences: Difference[]
}

/** How long the log is read, after the verdict, for the first attempt of each delivery. */
export const DELIVERY_WAIT_MS = 15_000

export interface DeliveryDeps {
  deliveries(transactionId: string): Promise<LoggedDelivery[]>
  timer?: Timer
  signal?: AbortSignal
  /** Pause between reads of the log. */
  pollMs?: number
  waitMs?: number
}

const answered2xx = (attempt: LoggedDelivery['attempts'][number]) => attempt.http_status !== undefined && attempt.http_status >= 200 && attempt.http_status <= 299

/**
 * Every delivery has had its first attempt, or one was not answered 2xx: the verdict cannot change,
 * and the emulator may hold the transaction's later webhooks back behind its retries.
 */
function settled(deliveries: readonly LoggedDelivery[]): boolean {
  if (deliveries.some((delivery) => delivery.attempts.some((attempt) => !answered2xx(attempt)))) return true
  return deliveries.every((delivery) => delivery.attempts.length > 0 || delivery.state === 'dropped' || delivery.state === 'failed')
}

/** The log once it is settled, or as it was when the wait ran out (`waitedOut`). */
async function readSettledLog(deps: DeliveryDeps, transactionId: string): Promise<{log: LoggedDelivery[]; waitedOut: boolean}> {
  const timer = deps.timer ?? systemTimer
  const deadline = timer.now() + (deps.waitMs ?? DELIVERY_WAIT_MS)
  for (;;) {
    const deliveries = await deps.deliveries(transactionId)
    // Deliveries are queued with the status change itself: none now means none will come.
    if (deliveries.length === 0 || settled(deliveries)) return {log: deliveries, waitedOut: false}
    if (timer.now() >= deadline) return {log: deliveries, waitedOut: true}
    await timer.sleep(Math.min(deps.pollMs ?? 100, Math.max(0, deadline - timer.now())), deps.signal)
  }
}

/** What went wrong with one delivery, or undefined when its first attempt was answered 2xx (at `to`, when given). */
function deliveryProblem(delivery: LoggedDelivery, to: string | undefined, waited: string): string | undefined {
  const first = delivery.attempts[0]
  const where = redactUrl(delivery.url)
  if (to !== undefined && delivery.url !== to) return `${delivery.status} went to ${where}, not ${redactUrl(to)}`
  if (!first) {
    if (delivery.state === 'dropped') return `${delivery.status} was dropped by a fault rule and never sent to ${where}`
    return `${delivery.status} was not sent to ${where} ${waited} (${delivery.state})`
  }
  if (answered2xx(first)) return undefined
  const answer = first.http_status === undefined ? `failed (${first.error ?? 'no answer'})` : `answered HTTP ${first.http_status}`
  const later = delivery.attempts.findIndex(answered2xx)
  const retried = later > 0 ? `; attempt ${later + 1} was answered ${delivery.attempts[later].http_status}` : ''
  return `${delivery.status} ${answer} at ${where} (${first.at}${first.fault ? `, fault ${first.fault}` : ''}${retried})`
}

const plural = (count: number) => `${count} webhook${count === 1 ? '' : 's'}`

export async function checkDeliveries(expectation: DeliveredExpectation, transactionId: string, deps: DeliveryDeps): Promise<DeliveryCheck> {
  const {log, waitedOut} = await readSettledLog(deps, transactionId)
  const waited = waitedOut ? `within ${formatDuration(deps.waitMs ?? DELIVERY_WAIT_MS)}` : 'when the log was read'
  const deliveries: DeliveryRecord[] = log.map((delivery) => ({
    status: delivery.status,
    url: redactUrl(delivery.url),
    state: delivery.state,
    attempts: delivery.attempts.map((attempt) => ({
      at: attempt.at,
      ...(attempt.http_status === undefined ? {} : {httpStatus: attempt.http_status}),
      ...(attempt.error === undefined ? {} : {error: attempt.error}),
    })),
  }))
  const problems = log.map((delivery) => deliveryProblem(delivery, expectation.to, waited)).filter((problem) => problem !== undefined)
  const expected = `every webhook answered 2xx${expectation.to ? ` at ${redactUrl(expectation.to)}` : ''}`
  const differences: Difference[] = []
  if (log.length === 0) {
    differences.push({field: 'delivered', expected, got: 'no webhook was sent (the transaction and its payment profile have no webhook_transaction_update)'})
  } else if (problems.length > 0) {
    differences.push({field: 'delivered', expected, got: `${problems.length} of ${plural(log.length)} not: ${problems.join('; ')}`})
  }
  if (log.length > 0 && log.length < expectation.min) {
    differences.push({field: 'delivered', expected: `at least ${plural(expectation.min)}`, got: `${plural(log.length)} [${log.map((delivery) => delivery.status).join(', ')}]`})
  }
  const summary =
    log.length === 0
      ? 'no webhook sent'
      : problems.length === 0
        ? `${plural(log.length)} delivered, all answered 2xx`
        : `${plural(log.length)} sent, ${problems.length} not answered 2xx`
  return {deliveries, summary, differences}
}

export interface EndpointCheck {
  /** The last answer, or why there was none. */
  last?: {status: number; body: string}
  reads: number
  difference?: Difference
}

export interface EndpointDeps {
  timer?: Timer
  signal?: AbortSignal
  /** First pause between reads; each later one is 1.5 times longer, up to a second. */
  pollMs?: number
}

/** What is wrong with an answer, or undefined when it is the one expected. */
function answerProblem(step: CheckStep, answer: MerchantAnswer): string | undefined {
  if (step.status === undefined ? answer.status < 200 || answer.status > 299 : answer.status !== step.status) return `HTTP ${answer.status}`
  if (step.json.length === 0) return undefined
  if (!answer.isJson) return 'not JSON'
  for (const {path, steps, value} of step.json) {
    const found = readJsonPath(answer.json, steps)
    if (!found.found) return `no ${path}`
    if (!isDeepStrictEqual(found.value, value)) return `${path} = ${JSON.stringify(found.value)}`
  }
  return undefined
}

function describeWanted(step: CheckStep, url: string): string {
  const values = step.json.map(({path, value}) => `${path} = ${JSON.stringify(value)}`)
  return `GET ${redactUrl(url)} to answer ${step.status === undefined ? '2xx' : `HTTP ${step.status}`}${values.length > 0 ? ` with ${values.join(', ')}` : ''}`
}

/** Reads the merchant's endpoint until its answer is the one expected or the check's time is up. */
export async function checkEndpoint(step: CheckStep, lookup: (reference: Reference) => string | undefined, deps: EndpointDeps = {}): Promise<EndpointCheck> {
  const timer = deps.timer ?? systemTimer
  const url = resolveReferences(step.url, (reference) => (reference.own ? encodeURIComponent(lookup(reference) ?? '') : lookup(reference)))
  const headers = resolveReferences(step.headers, lookup)
  const began = timer.now()
  const deadline = began + step.timeoutMs
  let delay = deps.pollMs ?? 200
  let reads = 0
  let last: MerchantAnswer | undefined
  let lastProblem = ''
  for (;;) {
    try {
      // The last read may end a little after the deadline rather than be cut off at once.
      last = await merchantRequest({method: 'GET', url, headers, timeoutMs: Math.min(step.timeoutMs, Math.max(1000, deadline - timer.now())), signal: deps.signal})
      lastProblem = answerProblem(step, last) ?? ''
      if (!lastProblem) return {last: {status: last.status, body: last.text}, reads: reads + 1}
    } catch (error) {
      if (deps.signal?.aborted || !(error instanceof NetworkError)) throw error
      lastProblem = error.message
    }
    reads++
    const remaining = deadline - timer.now()
    if (remaining <= 0) break
    await timer.sleep(Math.min(delay, remaining), deps.signal)
    delay = Math.min(1000, Math.round(delay * 1.5))
  }
  const waited = `after ${formatDuration(timer.now() - began)} (${reads} read${reads === 1 ? '' : 's'})`
  const got = last ? `${lastProblem}; the last answer ${waited}: ${describeAnswer(last)}` : `${lastProblem} ${waited}`
  return {...(last ? {last: {status: last.status, body: last.text}} : {}), reads, difference: {field: 'check', expected: describeWanted(step, url), got}}
}
