/**
 * The table of fault kinds: for each, where it acts (API requests or webhook deliveries), the
 * fields its rule adds, its description (help and JSON Schema), how `faults list` shows it, and
 * what it does. The rule schema, the request and webhook effects and the list's wording are all
 * read from here, so a new kind is one entry in this table (plus its test).
 */
import type {IncomingMessage, ServerResponse} from 'node:http'
import {setTimeout as sleep} from 'node:timers/promises'

import * as z from 'zod'

import {statusLine} from '../../api/http-client.js'
import {readDuration} from '../../duration.js'
import {durationSchema} from '../../input/value-schemas.js'
import {ApiError, sendApiError} from '../http-exchange.js'
import type {EmulatorStore, OutboxDelivery} from '../store/index.js'

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>

/** What a request fault works on: the request as it came, the one the route reads, and the route. */
export interface RequestFaultExchange {
  /** The rule's id, for the answer's message. */
  ruleId: string
  request: IncomingMessage
  forwarded: IncomingMessage
  response: ServerResponse
  handle: RequestHandler
}

/** What a webhook fault works on: the claimed delivery before its first attempt. */
export interface WebhookFaultAttempt {
  ruleId: string
  delivery: OutboxDelivery
  now: number
  store: EmulatorStore
  /** The delivery goes out as usual when due again (its fault was applied: delayed, held). */
  decided(): void
  /** The scheduler wakes at `at`. */
  due(at: number): void
  /** Reports the fault with its effect. */
  report(effect: string): void
}

/** Send it once as usual, twice, or not now (the fault took it). */
export type WebhookSend = 'once' | 'twice' | 'no'

/** How long an out-of-order delivery waits for a later one at most, unless the rule says. */
export const DEFAULT_HOLD_AT_MOST_MS = 30_000

interface KindCommon<F extends z.ZodRawShape> {
  fields: F
  description: string
  /** The rule as `faults list` shows it (default: the kind's name). */
  summary?(rule: z.infer<z.ZodObject<F>>): string
}

interface RequestKind<F extends z.ZodRawShape> extends KindCommon<F> {
  on: 'request'
  /** What the fault did, for the fault event. */
  effect(rule: z.infer<z.ZodObject<F>>): string
  apply(rule: z.infer<z.ZodObject<F>>, exchange: RequestFaultExchange): Promise<void>
}

interface WebhookKind<F extends z.ZodRawShape> extends KindCommon<F> {
  on: 'webhook'
  apply(rule: z.infer<z.ZodObject<F>>, attempt: WebhookFaultAttempt): WebhookSend
}

const requestKind = <F extends z.ZodRawShape>(entry: Omit<RequestKind<F>, 'on'>): RequestKind<F> => ({on: 'request', ...entry})
const webhookKind = <F extends z.ZodRawShape>(entry: Omit<WebhookKind<F>, 'on'>): WebhookKind<F> => ({on: 'webhook', ...entry})

const HTTP_STATUS_HINT = 'must be an HTTP status from 400 to 599'

/** Retry-After carries whole seconds. */
function retryAfterSeconds(duration: number | string): number {
  return Math.ceil((readDuration(String(duration)) ?? 0) / 1000)
}

/** Sends the headers and the first half of the body, then closes the connection. */
function cutBodyInHalf(response: ServerResponse): void {
  response.end = ((chunk?: unknown) => {
    const body = typeof chunk === 'string' || Buffer.isBuffer(chunk) ? Buffer.from(chunk) : Buffer.alloc(0)
    response.flushHeaders()
    response.write(body.subarray(0, Math.floor(body.length / 2)), () => response.socket?.destroy())
    return response
  }) as ServerResponse['end']
}

export const FAULT_KIND_TABLE = {
  status: requestKind({
    fields: {
      status: z
        .number({error: HTTP_STATUS_HINT})
        .int({error: HTTP_STATUS_HINT})
        .min(400, {error: HTTP_STATUS_HINT})
        .max(599, {error: HTTP_STATUS_HINT})
        .meta({description: "The HTTP status to answer with, with the service's error object."}),
      retry_after: durationSchema.optional().meta({description: 'Send Retry-After (whole seconds, rounded up).'}),
      message: z.string({error: 'must be a string'}).optional().meta({description: "The error object's message."}),
    },
    description: "Answer with this HTTP status and the service's error object; the request is not carried out.",
    summary: (rule) => `status ${rule.status}${rule.retry_after === undefined ? '' : ` retry-after ${rule.retry_after}`}`,
    effect: (rule) => `answered ${statusLine(rule.status)}${rule.retry_after === undefined ? '' : ` with Retry-After ${retryAfterSeconds(rule.retry_after)}`}`,
    async apply(rule, {ruleId, forwarded, response}) {
      forwarded.resume()
      const headers: Record<string, string> = rule.retry_after === undefined ? {} : {'retry-after': String(retryAfterSeconds(rule.retry_after))}
      sendApiError(response, new ApiError(rule.status, rule.message ?? `${statusLine(rule.status)} (the emulator's fault rule ${ruleId}).`, {}, headers))
    },
  }),
  latency: requestKind({
    fields: {latency: durationSchema.meta({description: 'How long to wait before handling.'})},
    description: 'Wait this long, then handle the request as usual.',
    summary: (rule) => `latency ${rule.latency}`,
    effect: (rule) => `waited ${readDuration(String(rule.latency))}ms, then handled it`,
    async apply(rule, {forwarded, response, handle}) {
      await sleep(readDuration(String(rule.latency)) ?? 0)
      return handle(forwarded, response)
    },
  }),
  reset: requestKind({
    fields: {},
    description: 'Close the connection without an answer; the request is not carried out.',
    effect: () => 'closed the connection without an answer',
    async apply(_rule, {request}) {
      request.socket.destroy()
    },
  }),
  cut_body: requestKind({
    fields: {},
    description: 'Carry out the request, send the headers and half of the body, then close the connection.',
    effect: () => 'handled it, sent half of the body, closed the connection',
    async apply(_rule, {forwarded, response, handle}) {
      cutBodyInHalf(response)
      return handle(forwarded, response)
    },
  }),
  drop: webhookKind({
    fields: {},
    description: 'Never send the webhook (recorded as dropped, not retried).',
    apply(_rule, {ruleId, delivery, now, store, report}) {
      delivery.state = 'dropped'
      delivery.attempts.push({attempt: 1, at: new Date(now).toISOString(), duration_ms: 0, fault: `drop by ${ruleId}`})
      store.write(() => store.recordAttempt(delivery, undefined))
      report('dropped: never sent, not retried')
      return 'no'
    },
  }),
  duplicate: webhookKind({
    fields: {},
    description: 'Send the webhook twice, the copy right after the first answer.',
    apply: () => 'twice',
  }),
  out_of_order: webhookKind({
    fields: {hold_at_most: durationSchema.optional().meta({description: 'Send it anyway after this long if no later webhook comes (default 30s).'})},
    description: "Hold the webhook back until the transaction's next webhook to the same address has been sent.",
    summary: (rule) => `out_of_order${rule.hold_at_most === undefined ? '' : ` (at most ${rule.hold_at_most})`}`,
    apply(rule, {delivery, now, store, decided, report}) {
      const holdMs = rule.hold_at_most === undefined ? DEFAULT_HOLD_AT_MOST_MS : (readDuration(String(rule.hold_at_most)) ?? DEFAULT_HOLD_AT_MOST_MS)
      delivery.state = 'held'
      decided()
      store.write(() => store.recordAttempt(delivery, now + holdMs))
      report(`held back until the transaction's next webhook is sent (at most ${holdMs}ms)`)
      return 'no'
    },
  }),
  delay: webhookKind({
    fields: {delay: durationSchema.meta({description: 'How long to hold the webhook back.'})},
    description: 'Send the webhook this much later.',
    summary: (rule) => `delay ${rule.delay}`,
    apply(rule, {delivery, now, store, decided, due, report}) {
      const delayMs = readDuration(String(rule.delay)) ?? 0
      decided()
      store.write(() => store.recordAttempt(delivery, now + delayMs))
      report(`delayed by ${delayMs}ms`)
      due(now + delayMs)
      return 'no'
    },
  }),
}

export type FaultKindTable = typeof FAULT_KIND_TABLE
export type FaultKind = keyof FaultKindTable
export type RequestFaultKind = {[K in FaultKind]: FaultKindTable[K]['on'] extends 'request' ? K : never}[FaultKind]

export const FAULT_KINDS = Object.keys(FAULT_KIND_TABLE) as FaultKind[]
export const REQUEST_FAULTS = FAULT_KINDS.filter((kind) => FAULT_KIND_TABLE[kind].on === 'request') as RequestFaultKind[]
export const WEBHOOK_FAULTS = FAULT_KINDS.filter((kind) => FAULT_KIND_TABLE[kind].on === 'webhook')
