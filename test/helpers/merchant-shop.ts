/**
 * A small merchant service, as a shop adopting paytx would have one: POST /checkout starts a
 * payment through the emulator's API (its own customer, its own webhook and return addresses)
 * and answers the payment's id; POST /webhooks takes the emulator's webhooks and, a moment later
 * (as a queue worker would), reads the transaction from the service and moves the order; GET
 * /orders/<transaction id> reports the order. node:http on 127.0.0.1, a free port.
 */
import {type IncomingMessage, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import {CUSTOMER_FIELDS} from './fixtures.js'

export interface ShopOptions {
  /** The emulator's API base, key and organisation. */
  emulatorUrl: string
  apiKey: string
  apiKeyHeader: string
  organisation: string
  /** The status the webhook endpoint answers a webhook of this transaction status with (default 200). */
  webhookAnswer?: (status: string) => number
  /** How long the shop takes to handle a webhook (its worker), default 300 ms. */
  processingMs?: number
  /** A shop whose worker is broken: orders stay pending whatever the webhooks say. */
  neverUpdates?: boolean
}

export interface Shop {
  url: string
  /** The webhooks the shop received: the transaction status read when each came, and the answer given. */
  received: {transactionId: string; status: string; answered: number}[]
  orders: Map<string, {id: string; state: string}>
  /** Every request, as `METHOD /path`. */
  requests: string[]
  close(): Promise<void>
}

const ORDER_STATES: Record<string, string> = {SETTLEMENT_COMPLETED: 'paid', SETTLEMENT_REQUESTED: 'paid', DECLINED: 'failed', FAILED: 'failed', CANCELLED: 'cancelled'}

async function readJson(request: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  return text ? JSON.parse(text) : {}
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, {'content-type': 'application/json'})
  response.end(JSON.stringify(body))
}

export async function startShop(options: ShopOptions): Promise<Shop> {
  const api = {'content-type': 'application/json', [options.apiKeyHeader]: options.apiKey}
  const emulator = async (path: string, body?: unknown) => {
    const answer = await fetch(`${options.emulatorUrl}${path}`, {method: body ? 'POST' : 'GET', headers: api, body: body ? JSON.stringify(body) : undefined, signal: AbortSignal.timeout(10_000)})
    return {status: answer.status, body: (await answer.json()) as any}
  }
  const received: Shop['received'] = []
  const orders: Shop['orders'] = new Map()
  const requests: string[] = []
  let url = ''
  let nextOrder = 1

  const checkout = async (request: IncomingMessage, response: ServerResponse) => {
    const {amount = 2500, product = 'dummy'} = await readJson(request)
    const customer = await emulator('/v1/customer', {...CUSTOMER_FIELDS, organisation: options.organisation})
    const orderId = `order-${nextOrder++}`
    const started = await emulator('/v1/transaction/start', {
      amount,
      customer: customer.body.id,
      customer_ip: '127.0.0.1',
      merchant_reference: `${orderId}-${Date.now()}`,
      payment_product: product,
      user_agent: 'shop',
      webhook_transaction_update: `${url}/webhooks`,
      details: {redirect_url: `${url}/return`},
    })
    if (started.status !== 200) return send(response, 502, {error: 'the payment service refused', details: started.body})
    orders.set(started.body.id, {id: orderId, state: 'pending'})
    send(response, 201, {order: {id: orderId}, payment: {id: started.body.id, approval_url: started.body.details.approval_url}})
  }

  const webhook = async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readJson(request)
    const transactionId = String(body.id ?? body._id)
    // The status the body names (the emulator's full payload), else the one the service reports now.
    const status = String(body.status ?? (await emulator(`/v1/transaction/${transactionId}`)).body.status)
    const answered = options.webhookAnswer?.(status) ?? 200
    received.push({transactionId, status, answered})
    send(response, answered, answered < 300 ? {ok: true} : {error: 'the shop failed'})
    if (answered >= 300 || options.neverUpdates) return
    // The worker: a moment later, the order follows the payment.
    setTimeout(() => {
      const order = orders.get(transactionId)
      if (order && ORDER_STATES[status]) order.state = ORDER_STATES[status]
    }, options.processingMs ?? 300).unref()
  }

  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://shop').pathname
    requests.push(`${request.method} ${path}`)
    const handle = async () => {
      if (request.method === 'POST' && path === '/checkout') return checkout(request, response)
      if (request.method === 'POST' && path === '/webhooks') return webhook(request, response)
      if (request.method === 'GET' && path === '/return') return send(response, 200, {thanks: true})
      const order = /^\/orders\/([^/]+)$/.exec(path)
      if (request.method === 'GET' && order) {
        const found = orders.get(decodeURIComponent(order[1]))
        return found ? send(response, 200, {order: found}) : send(response, 404, {error: 'no such order'})
      }
      send(response, 404, {error: 'not found'})
    }
    handle().catch((error: Error) => send(response, 500, {error: error.message}))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    received,
    orders,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
