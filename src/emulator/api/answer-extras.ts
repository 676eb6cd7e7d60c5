/**
 * Fields the emulator adds to the answers of its API routes beyond its own contract: the fields
 * only the real service sent when `emulator verify --save` took its readings (emulator-readings/),
 * each with a value of the form the service's had. A step after an answer is built, laid over the
 * route table only when such fields are given: without them the routes are the same objects and
 * nothing is added to any answer's path.
 */
import type {OutgoingHttpHeaders, ServerResponse} from 'node:http'

import type {Route} from '../router.js'

/** The API requests whose answers can carry extra fields. */
export const ANSWER_REQUESTS = ['customer', 'card', 'transaction-start', 'transaction', 'checkoutsuccess'] as const
export type AnswerRequest = (typeof ANSWER_REQUESTS)[number]

export interface AnswerExtra {
  /** The request whose answer carries the field. */
  request: AnswerRequest
  /** The answer's HTTP status (200, or an error's 400, 401, 404). */
  status: number
  /** Only answers whose `payment_product` is one of these (transactions). */
  products?: readonly string[]
  /** The field's path, dotted; `name[]` is each item of an array (one item when the array is made). */
  path: string
  value: unknown
}

/** The request an API route answers, by its method and the end of its pattern. */
function requestOf(route: Route): AnswerRequest | undefined {
  const pattern = route.pattern.join('/')
  if (route.method === 'POST' && pattern === 'v1/customer') return 'customer'
  if (route.method === 'POST' && pattern.endsWith('tokenize/proxy/:')) return 'card'
  if (route.method === 'POST' && pattern === 'v1/transaction/start') return 'transaction-start'
  if (route.method === 'GET' && pattern === 'v1/transaction/:') return 'transaction'
  if (route.method === 'GET' && pattern === 'v1/transaction/:/checkoutsuccess') return 'checkoutsuccess'
  return undefined
}

/** The API routes, those with extra fields answering with them; the same table when there are none. */
export function withAnswerExtras(routes: Route[], extras: readonly AnswerExtra[] | undefined): Route[] {
  if (!extras || extras.length === 0) return routes
  return routes.map((route) => {
    const request = requestOf(route)
    const mine = extras.filter((extra) => extra.request === request)
    if (mine.length === 0) return route
    return {...route, handler: (incoming, response, params) => (addingFields(response, mine), route.handler(incoming, response, params))}
  })
}

/** Holds back the answer's head until its JSON body is known, then writes both with the fields added. */
function addingFields(response: ServerResponse, extras: readonly AnswerExtra[]): void {
  const writeHead = response.writeHead.bind(response)
  const end = response.end.bind(response)
  let head: {status: number; headers: OutgoingHttpHeaders} | undefined
  response.writeHead = ((status: number, headers?: OutgoingHttpHeaders) => {
    head = {status, headers: {...headers}}
    return response
  }) as typeof response.writeHead
  response.end = ((chunk?: unknown, ...rest: unknown[]) => {
    response.writeHead = writeHead
    response.end = end
    if (!head) return end(chunk as string, ...(rest as []))
    const payload = typeof chunk === 'string' ? withFields(chunk, head.status, extras) : undefined
    if (payload === undefined) return writeHead(head.status, head.headers).end(chunk as string, ...(rest as []))
    return writeHead(head.status, {...head.headers, 'content-length': String(Buffer.byteLength(payload))}).end(payload)
  }) as typeof response.end
}

/** The JSON text with the fields for this status (and product) added; undefined when none applies. */
function withFields(text: string, status: number, extras: readonly AnswerExtra[]): string | undefined {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined
  const product = (body as {payment_product?: unknown}).payment_product
  const applying = extras.filter((extra) => extra.status === status && (!extra.products || (typeof product === 'string' && extra.products.includes(product))))
  if (applying.length === 0) return undefined
  for (const extra of applying) setField(body as Record<string, unknown>, extra.path.split('.'), extra.value)
  return JSON.stringify(body)
}

/** Sets the field at `keys` unless the answer has it already (the emulator's own field wins). */
function setField(target: Record<string, unknown>, keys: readonly string[], value: unknown): void {
  const [first, ...rest] = keys
  if (first === undefined) return
  const isArray = first.endsWith('[]')
  const key = isArray ? first.slice(0, -2) : first
  if (rest.length === 0 && !isArray) {
    if (!(key in target)) target[key] = structuredClone(value)
    return
  }
  if (isArray) {
    if (!(key in target)) target[key] = rest.length === 0 ? [structuredClone(value)] : [{}]
    const items = target[key]
    if (!Array.isArray(items) || rest.length === 0) return
    for (const item of items) if (item && typeof item === 'object' && !Array.isArray(item)) setField(item as Record<string, unknown>, rest, value)
    return
  }
  if (!(key in target)) target[key] = {}
  const inner = target[key]
  if (inner && typeof inner === 'object' && !Array.isArray(inner)) setField(inner as Record<string, unknown>, rest, value)
}
