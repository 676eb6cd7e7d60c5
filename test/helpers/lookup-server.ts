/**
 * A stand-in for the service's lookups, for the many-id tests of `status` and `checkoutsuccess`
 * (in-process and spawned alike): ids named after their status, `missing` 404, `slowN-` ids late.
 */
import {type Server, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterEach, beforeEach} from 'vitest'

export const API_KEY = 'sk_test_lookups_0123456789abcdef'

export interface Answer {
  status?: number
  json?: unknown
  headers?: Record<string, string>
  delayMs?: number
}

/** A service on 127.0.0.1 that counts lookups in flight and answers each path from a script. */
export class LookupServer {
  inFlight = 0
  maxInFlight = 0
  readonly requests: {path: string; at: number}[] = []
  private server?: Server
  url = ''

  constructor(private readonly answer: (path: string, nth: number) => Answer) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const path = req.url ?? ''
      this.requests.push({path, at: Date.now()})
      const nth = this.requests.filter((request) => request.path === path).length
      this.inFlight++
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight)
      const reply = this.answer(path, nth)
      setTimeout(() => {
        this.inFlight--
        res.writeHead(reply.status ?? 200, {'content-type': 'application/json', ...reply.headers})
        res.end(JSON.stringify(reply.json ?? {}))
      }, reply.delayMs ?? 0)
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server!.close(() => resolve()))
  }

  pathsFor(id: string): string[] {
    return this.requests.filter((request) => request.path.startsWith(`/v1/transaction/${id}`)).map((request) => request.path)
  }
}

export const transaction = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
  id,
  amount: '1499',
  payment_product: 'dummy',
  status,
  merchant_reference: `ref-${id}`,
  created_at: '2026-11-20T10:00:00.000Z',
  last_status_update: '2026-11-20T10:00:03.123Z',
  ...extra,
})

const STATUSES: Record<string, string> = {
  paid: 'SETTLEMENT_COMPLETED',
  requested: 'SETTLEMENT_REQUESTED',
  declined: 'DECLINED',
  pending: 'PENDING',
  unknown: 'UNKNOWN',
}

/** Ids named after their status; `missing` is 404; a `slowN` id answers after N ms. */
export function serviceAnswer(path: string): Answer {
  const match = /^\/v1\/transaction\/([^/]+)(\/checkoutsuccess)?$/.exec(path)
  if (!match) return {status: 404, json: {message: 'Not found'}}
  const id = decodeURIComponent(match[1])
  const name = id.replace(/^slow\d+-/, '').replace(/-\d+$/, '')
  const delayMs = Number(/^slow(\d+)-/.exec(id)?.[1] ?? 0)
  const status = STATUSES[name]
  if (!status) return {status: 404, json: {code: '404', message: `No transaction has the id "${id}"`}, delayMs}
  if (match[2]) {
    const success = status.startsWith('SETTLEMENT')
    return {json: {status, success, status_reason: success ? 'paid' : `is ${status}`}, delayMs}
  }
  return {json: transaction(id, status), delayMs}
}

/** The service for one test of a describe block (see lookupServerPerTest): its server, its script, the environment that points paytx at it. */
export interface LookupServerPerTest {
  readonly server: LookupServer
  /** How the service answers the nth lookup of a path; a test may replace it (serviceAnswer by default). */
  answer: (path: string, nth: number) => Answer
  /** PAYTX_BASE_URL and PAYTX_API_KEY for the server, with `extra` added. */
  env(extra?: Record<string, string>): Record<string, string>
}

/**
 * A LookupServer for each test of the calling describe block: started before each test with the
 * service's usual answers (serviceAnswer), closed after it. A test sets `answer` to script it.
 */
export function lookupServerPerTest(): LookupServerPerTest {
  let current: LookupServer | undefined
  const lookups: LookupServerPerTest = {
    get server() {
      if (!current) throw new Error('the lookup server runs only inside a test')
      return current
    },
    answer: (path) => serviceAnswer(path),
    env: (extra = {}) => ({PAYTX_BASE_URL: `${lookups.server.url}/v1`, PAYTX_API_KEY: API_KEY, ...extra}),
  }
  beforeEach(async () => {
    lookups.answer = (path) => serviceAnswer(path)
    current = new LookupServer((path, nth) => lookups.answer(path, nth))
    await current.start()
  })
  afterEach(async () => {
    await current?.close()
    current = undefined
  })
  return lookups
}
