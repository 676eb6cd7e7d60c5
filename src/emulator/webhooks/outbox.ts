/**
 * The webhook outbox: every status change queues a delivery in the store (in the same commit as
 * the change); this part sends what is due, a JSON POST to the transaction's (or payment
 * profile's) `webhook_transaction_update`, retried with exponential back-off on a non-2xx answer
 * or a connection failure. Each attempt is claimed inside a write first, so that emulators
 * sharing the store never send the same attempt twice; the attempt count and the next try are
 * stored, so a restart neither drops nor repeats a delivery. Deliveries never block the API.
 */
import {request as httpRequest, type ClientRequest} from 'node:http'
import {request as httpsRequest} from 'node:https'

import type {Clock} from '../time/index.js'
import {type WebhookAttemptEvent, displayWebhookUrl} from '../events.js'
import type {EmulatorStore, OutboxDelivery} from '../store/index.js'

/**
 * What the outbox asks about each claimed delivery, so that faults on purpose (drop, duplicate,
 * out of order, delay) can take it: the faults room implements it above this one, and the
 * server passes it in. `rule` is the faults room's own, handed back when a duplicate was sent.
 */
export interface DeliveryFaults<Rule = unknown> {
  /** Before the attempts due now are claimed: lets go of held deliveries whose time is up. */
  releaseExpiredHolds(): void
  /** Before an attempt of a claimed delivery: send it, send it twice, or nothing (a fault took it). */
  beforeAttempt(delivery: OutboxDelivery): {send: 'once'} | {send: 'twice'; rule: Rule} | {send: 'no'}
  /** After both copies of a duplicated delivery were sent: what each got. */
  reportDuplicate(rule: Rule, delivery: OutboxDelivery, answers: string[]): void
  /** After a delivery was sent. */
  afterSent(delivery: OutboxDelivery): void
}

export interface WebhookSettings {
  attempts: number
  backoffMs: number
  timeoutMs: number
}

interface AttemptResult {
  httpStatus?: number
  error?: string
}

/** How many deliveries one emulator sends at once. */
const MAX_IN_FLIGHT = 32
/** A claim outlives the attempt's own timeout by this much before another emulator may retry it. */
const CLAIM_MARGIN_MS = 5_000
/** How long closing waits for attempts under way before cutting them off. */
const CLOSE_GRACE_MS = 1_000

/** An attempt's outcome waiting to be stored, and who waits for that. */
interface Recording {
  delivery: OutboxDelivery
  nextTryAt: number | undefined
  stored(error?: Error): void
}

export class WebhookOutbox {
  private readonly inFlight = new Map<string, {request?: ClientRequest; done: Promise<void>}>()
  private closed = false
  private sendScheduled = false
  /** Attempts that ended during this turn of the event loop, stored together at its end. */
  private recordings: Recording[] = []

  constructor(
    private readonly store: EmulatorStore,
    private readonly clock: Clock,
    private readonly settings: WebhookSettings,
    private readonly report: (event: WebhookAttemptEvent) => void,
    /** Told when a retry is due, so that the scheduler wakes for it. */
    private readonly due: (at: number) => void,
    /** Faults on purpose: drop, duplicate, out of order, delay. */
    private readonly faults?: DeliveryFaults,
    /**
     * Told of a failure outside any request, such as a full disk: an attempt that could not be
     * recorded keeps its claim, so it is made again once the claim runs out; nothing is lost.
     */
    private readonly onError: (error: Error) => void = () => {},
  ) {}

  /** Claims and starts every attempt due now, up to the in-flight limit. */
  sendDue(): void {
    if (this.closed || this.inFlight.size >= MAX_IN_FLIGHT) return
    this.faults?.releaseExpiredHolds()
    const now = this.clock.now()
    const skip = new Set(this.inFlight.keys())
    if (this.store.dueDeliveries(now, 1, skip).length === 0) return
    const claimed = this.store.write(() => {
      // Read again under the write lock: another emulator may have claimed them meanwhile.
      const deliveries = this.store.dueDeliveries(now, MAX_IN_FLIGHT - this.inFlight.size, skip)
      for (const delivery of deliveries) this.store.claimDelivery(delivery.id, now + this.settings.timeoutMs + CLAIM_MARGIN_MS)
      return deliveries
    })
    for (const delivery of claimed) {
      const flight: {request?: ClientRequest; done: Promise<void>} = {done: Promise.resolve()}
      flight.done = this.attempt(delivery, flight)
        .catch((error: Error) => this.onError(error))
        .finally(() => {
          this.inFlight.delete(delivery.id)
          // The next delivery of the same transaction may be waiting for this one.
          if (!this.closed && !this.sendScheduled) {
            // Once for all the attempts that end in this turn: one claim, one commit.
            this.sendScheduled = true
            setImmediate(() => this.sendDueReporting())
          }
        })
      this.inFlight.set(delivery.id, flight)
    }
  }

  /** sendDue outside the scheduler, which otherwise catches what it throws. */
  private sendDueReporting(): void {
    this.sendScheduled = false
    try {
      this.sendDue()
    } catch (error) {
      this.onError(error as Error)
    }
  }

  /**
   * Lets attempts under way finish for a moment, then cuts them off and gives their claims back:
   * what is still pending stays in the outbox for the next emulator.
   */
  async close(): Promise<void> {
    this.closed = true
    const flights = [...this.inFlight.values()]
    const grace = new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())
    await Promise.race([Promise.allSettled(flights.map((flight) => flight.done)), grace])
    for (const flight of this.inFlight.values()) flight.request?.destroy()
    await Promise.allSettled(flights.map((flight) => flight.done))
  }

  private async attempt(delivery: OutboxDelivery, flight: {request?: ClientRequest}): Promise<void> {
    const {attempts, backoffMs} = this.settings
    const fault = this.faults?.beforeAttempt(delivery) ?? {send: 'once'}
    if (fault.send === 'no') return
    const attempt = delivery.attempts.length + 1
    const started = this.clock.now()
    const result = await this.post(delivery.url, delivery.payload, flight)
    if (this.closed && result.httpStatus === undefined) {
      // Cut off by close: not an attempt the receiver answered; the next emulator makes it.
      this.store.write(() => this.store.releaseDelivery(delivery.id))
      return
    }
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
    const nextTryAt = outcome === 'retrying' ? this.clock.now() + retryInMs : undefined
    await this.record(delivery, nextTryAt)
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
    if (nextTryAt !== undefined) this.due(nextTryAt)
    if (fault.send === 'twice' && !this.closed) {
      const copy = await this.post(delivery.url, delivery.payload, flight)
      this.faults?.reportDuplicate(fault.rule, delivery, [result, copy].map((sent) => (sent.httpStatus === undefined ? (sent.error ?? 'no answer') : `HTTP ${sent.httpStatus}`)))
    }
    this.faults?.afterSent(delivery)
  }

  /**
   * Stores the attempt's outcome, with those of every other attempt that ended in the same turn of
   * the event loop, in one commit: with 32 deliveries in flight (a catch-up queues 100,000), a
   * commit each would take most of the time the thread has for requests. Until it is stored, the
   * delivery's claim keeps it from being attempted again.
   */
  private record(delivery: OutboxDelivery, nextTryAt: number | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.recordings.length === 0) setImmediate(() => this.storeRecordings())
      this.recordings.push({delivery, nextTryAt, stored: (error) => (error ? reject(error) : resolve())})
    })
  }

  private storeRecordings(): void {
    const recordings = this.recordings
    this.recordings = []
    try {
      this.store.write(() => {
        for (const {delivery, nextTryAt} of recordings) this.store.recordAttempt(delivery, nextTryAt)
      })
    } catch (error) {
      for (const recording of recordings) recording.stored(error as Error)
      return
    }
    for (const recording of recordings) recording.stored()
  }

  private post(url: string, payload: string, flight: {request?: ClientRequest}): Promise<AttemptResult> {
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
      flight.request = request
      request.on('response', (response) => {
        // Read and discard the answer so the connection is released.
        response.resume()
        response.on('end', () => resolve({httpStatus: response.statusCode}))
        response.on('error', () => resolve({httpStatus: response.statusCode}))
      })
      request.on('timeout', () => request.destroy(new Error(`no answer within ${this.settings.timeoutMs}ms`)))
      request.on('error', (error: NodeJS.ErrnoException) => resolve({error: error.code ?? error.message}))
      request.end(payload)
    })
  }

  private isoNow(): string {
    return new Date(this.clock.now()).toISOString()
  }
}
