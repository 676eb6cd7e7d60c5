/**
 * Webhook delivery: a JSON POST per status change to the transaction's (or payment profile's)
 * `webhook_transaction_update`, retried with exponential back-off on a non-2xx answer or a
 * connection failure. Deliveries never block the API: they run in the background, and
 * deliveries to one address for one transaction go out one after the other, in status order.
 */
import {randomUUID} from 'node:crypto'
import {request as httpRequest, type ClientRequest} from 'node:http'
import {request as httpsRequest} from 'node:https'

import type {Clock, TimerHandle} from './clock.js'
import {type WebhookAttemptEvent, displayWebhookUrl} from './events.js'
import type {EmulatorStore, WebhookDelivery} from './store.js'

export interface WebhookSettings {
  attempts: number
  backoffMs: number
  timeoutMs: number
}

interface AttemptResult {
  httpStatus?: number
  error?: string
}

export class WebhookDispatcher {
  /** The tail of each (address, transaction) queue, so deliveries keep their order. */
  private readonly queues = new Map<string, Promise<void>>()
  private readonly inFlight = new Set<ClientRequest>()
  private readonly waits = new Map<TimerHandle, () => void>()
  private closed = false

  constructor(
    private readonly store: EmulatorStore,
    private readonly clock: Clock,
    private readonly settings: WebhookSettings,
    private readonly report: (event: WebhookAttemptEvent) => void,
    private readonly changed: () => void,
  ) {}

  /** Queues one delivery and returns at once; the delivery log shows how it went. */
  send(url: string, transactionId: string, status: string, body: unknown): WebhookDelivery {
    const delivery: WebhookDelivery = {
      id: randomUUID(),
      transaction: transactionId,
      status,
      url,
      state: 'pending',
      created_at: this.isoNow(),
      attempts: [],
    }
    this.store.addDelivery(delivery)
    this.changed()
    const key = `${url}\u0000${transactionId}`
    const previous = this.queues.get(key) ?? Promise.resolve()
    const next = previous.then(() => this.deliver(delivery, JSON.stringify(body)))
    this.queues.set(key, next)
    void next.then(() => {
      if (this.queues.get(key) === next) this.queues.delete(key)
    })
    return delivery
  }

  /** Stops retries and aborts deliveries under way; what is still pending stays pending in the log. */
  async close(): Promise<void> {
    this.closed = true
    for (const [handle, resolve] of this.waits) {
      this.clock.clearTimeout(handle)
      resolve()
    }
    this.waits.clear()
    for (const request of this.inFlight) request.destroy()
    await Promise.allSettled([...this.queues.values()])
  }

  /** Resolves when every queued delivery has finished (delivered or given up); for tests and tools. */
  async idle(): Promise<void> {
    while (this.queues.size > 0) await Promise.allSettled([...this.queues.values()])
  }

  private async deliver(delivery: WebhookDelivery, payload: string): Promise<void> {
    const {attempts, backoffMs} = this.settings
    for (let attempt = 1; attempt <= attempts && !this.closed; attempt++) {
      const started = this.clock.now()
      const result = await this.post(delivery.url, payload)
      if (this.closed && result.httpStatus === undefined) return
      const durationMs = Math.max(0, this.clock.now() - started)
      const ok = result.httpStatus !== undefined && result.httpStatus >= 200 && result.httpStatus < 300
      delivery.attempts.push({
        attempt,
        at: new Date(started).toISOString(),
        duration_ms: durationMs,
        ...(result.httpStatus === undefined ? {} : {http_status: result.httpStatus}),
        ...(result.error === undefined ? {} : {error: result.error}),
      })
      const retryInMs = backoffMs * 2 ** (attempt - 1)
      const outcome = ok ? 'delivered' : attempt < attempts ? 'retrying' : 'failed'
      if (ok) {
        delivery.state = 'delivered'
        delivery.delivered_at = this.isoNow()
      } else if (outcome === 'failed') {
        delivery.state = 'failed'
      }
      this.changed()
      this.report({
        event: 'webhook',
        time: this.isoNow(),
        delivery: delivery.id,
        transaction: delivery.transaction,
        status: delivery.status,
        url: displayWebhookUrl(delivery.url),
        attempt,
        attempts,
        outcome,
        ...(result.httpStatus === undefined ? {} : {http_status: result.httpStatus}),
        ...(result.error === undefined ? {} : {error: result.error}),
        ...(outcome === 'retrying' ? {retry_in_ms: retryInMs} : {}),
        duration_ms: durationMs,
      })
      if (outcome !== 'retrying') return
      await this.wait(retryInMs)
    }
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const handle = this.clock.setTimeout(() => {
        this.waits.delete(handle)
        resolve()
      }, ms)
      this.waits.set(handle, resolve)
    })
  }

  private post(url: string, payload: string): Promise<AttemptResult> {
    return new Promise((resolve) => {
      let target: URL
      try {
        target = new URL(url)
      } catch {
        resolve({error: 'invalid URL'})
        return
      }
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest
      const request = send(target, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          'user-agent': 'paytx-emulator',
        },
        timeout: this.settings.timeoutMs,
      })
      this.inFlight.add(request)
      const finish = (result: AttemptResult) => {
        this.inFlight.delete(request)
        resolve(result)
      }
      request.on('response', (response) => {
        // Read and discard the answer so the connection is released.
        response.resume()
        response.on('end', () => finish({httpStatus: response.statusCode}))
        response.on('error', () => finish({httpStatus: response.statusCode}))
      })
      request.on('timeout', () => request.destroy(new Error(`no answer within ${this.settings.timeoutMs}ms`)))
      request.on('error', (error: NodeJS.ErrnoException) => finish({error: error.code ?? error.message}))
      request.end(payload)
    })
  }

  private isoNow(): string {
    return new Date(this.clock.now()).toISOString()
  }
}
