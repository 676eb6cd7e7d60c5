/**
 * A webhook is a duplicate when the same delivery comes again. The service marks a delivery by
 * nothing but its body (no delivery id, no signature: spec/api-notes.md), and its receivers
 * de-duplicate by (transaction id, status): so a webhook is a repeat when its body carries the
 * same transaction id and status as one received before. The status is the one the body
 * carries, never one read from the service afterwards: by then the transaction may have moved
 * on, and the webhooks of two different moves would be taken for one. A body that carries no
 * status (the emulator's minimal one) names only its transaction, the same for every move: a
 * repeat of it cannot be told from the next move's webhook, so it is never called a duplicate.
 * Shared by `webhook listen` and the flow's listener.
 *
 * The statuses seen are remembered per transaction for the transactions heard of most recently,
 * so that a long-running listener keeps a flat memory profile while a transaction still in
 * motion is not forgotten. Transactions are kept in two generations of `maxTransactions / 2`:
 * one heard of again moves to the newer generation, and the older one is emptied whole when the
 * newer fills. Every check is O(1).
 *
 * What is remembered lives in typed arrays allocated once, not in objects made per webhook. Held
 * in a Map, each webhook's id and statuses outlived the request by thousands of webhooks: V8
 * copied them through its young generation and promoted them, and with that steady survival it
 * grew the young generation to its largest and let the old one fill with dropped generations
 * before collecting it. The listener's resident memory on Node 24 was 160 MB after 100,000
 * webhooks and 220 MB after 300,000, for a heap of 14 MB after a collection (bench/webhooks.js).
 * So a transaction is the 64-bit fingerprint of its id (seeded afresh for each detector: two ids
 * share one by chance about once in 10^15 checks, and no sender can aim at it), and a status a
 * small number: real statuses are a few short words, and any status past the first 255 distinct
 * ones, or longer than 64 characters, is never taken for a duplicate.
 */
import {randomBytes} from 'node:crypto'

import type {WebhookEvent} from './event.js'

/** More statuses than a transaction can pass through: a sender inventing new ones cannot grow an entry. */
const STATUSES_PER_TRANSACTION = 16
/** Status numbers are bytes, 0 left unused. */
const DISTINCT_STATUSES = 255
const LONGEST_STATUS = 64

/** A 32-bit hash of each UTF-16 unit of `text`, mixed murmur-style; two with other seeds and multipliers make a fingerprint. */
function hash32(text: string, seed: number, multiplier: number): number {
  let hash = seed ^ text.length
  for (let index = 0; index < text.length; index++) {
    hash = Math.imul(hash ^ text.charCodeAt(index), multiplier)
    hash ^= hash >>> 15
  }
  hash = Math.imul(hash ^ (hash >>> 16), 0x85_eb_ca_6b)
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2_b2_ae_35)
  return (hash ^ (hash >>> 16)) >>> 0
}

/**
 * One generation: an open-addressing table (at most half full, so that a probe ends after a
 * step or two) of transactions by the fingerprint of their id, each with its status numbers,
 * oldest first.
 */
class Generation {
  transactions = 0
  private readonly mask: number
  private readonly used: Uint8Array
  private readonly low: Uint32Array
  private readonly high: Uint32Array
  private readonly held: Uint8Array
  private readonly statuses: Uint8Array

  constructor(capacity: number) {
    const slots = 2 ** Math.ceil(Math.log2(capacity * 2))
    this.mask = slots - 1
    this.used = new Uint8Array(slots)
    this.low = new Uint32Array(slots)
    this.high = new Uint32Array(slots)
    this.held = new Uint8Array(slots)
    this.statuses = new Uint8Array(slots * STATUSES_PER_TRANSACTION)
  }

  /** The slot of the transaction with this fingerprint, or -1. */
  find(low: number, high: number): number {
    for (let slot = low & this.mask; this.used[slot] === 1; slot = (slot + 1) & this.mask) {
      if (this.low[slot] === low && this.high[slot] === high) return slot
    }
    return -1
  }

  /** A slot for a transaction not in this generation, with no statuses yet. */
  add(low: number, high: number): number {
    let slot = low & this.mask
    while (this.used[slot] === 1) slot = (slot + 1) & this.mask
    this.used[slot] = 1
    this.low[slot] = low
    this.high[slot] = high
    this.held[slot] = 0
    this.transactions++
    return slot
  }

  has(slot: number, status: number): boolean {
    const first = slot * STATUSES_PER_TRANSACTION
    for (let index = first; index < first + this.held[slot]; index++) if (this.statuses[index] === status) return true
    return false
  }

  /** Adds a status to a transaction, forgetting its oldest past STATUSES_PER_TRANSACTION. */
  note(slot: number, status: number): void {
    const first = slot * STATUSES_PER_TRANSACTION
    if (this.held[slot] === STATUSES_PER_TRANSACTION) {
      this.statuses.copyWithin(first, first + 1, first + STATUSES_PER_TRANSACTION)
      this.held[slot]--
    }
    this.statuses[first + this.held[slot]] = status
    this.held[slot]++
  }

  /** Copies a transaction's statuses into `into`; how many there are. */
  statusesOf(slot: number, into: Uint8Array): number {
    const first = slot * STATUSES_PER_TRANSACTION
    for (let index = 0; index < this.held[slot]; index++) into[index] = this.statuses[first + index]
    return this.held[slot]
  }

  clear(): void {
    this.used.fill(0)
    this.transactions = 0
  }
}

export class DuplicateDetector {
  private current: Generation
  private previous: Generation
  private readonly generationSize: number
  private readonly statusNumbers = new Map<string, number>()
  private readonly seeds: [number, number]
  /** A transaction's statuses on their way from the older generation to the newer. */
  private readonly carried = new Uint8Array(STATUSES_PER_TRANSACTION)

  /**
   * Retries of a webhook come within its transaction's life, long before 10,000 other
   * transactions pass by; more would only hold more memory.
   */
  constructor(maxTransactions = 20_000) {
    this.generationSize = Math.max(1, Math.floor(maxTransactions / 2))
    this.current = new Generation(this.generationSize)
    this.previous = new Generation(this.generationSize)
    const random = randomBytes(8)
    this.seeds = [random.readUInt32LE(0), random.readUInt32LE(4)]
  }

  /**
   * True when this event's (transaction id, status carried by its body) was seen before; events
   * without either are never duplicates. Pass the event as read from the body (readWebhookEvent).
   */
  isDuplicate(event: Pick<WebhookEvent, 'transactionId' | 'status'>): boolean {
    const {transactionId, status} = event
    if (!status || !transactionId) return false
    const number = this.statusNumber(status)
    if (number === undefined) return false
    const low = hash32(transactionId, this.seeds[0], 0x5b_d1_e9_95)
    const high = hash32(transactionId, this.seeds[1], 0x9e_37_79_b1)
    let slot = this.current.find(low, high)
    if (slot === -1) slot = this.remember(low, high)
    if (this.current.has(slot, number)) return true
    this.current.note(slot, number)
    return false
  }

  /** The number standing for a status, given on first sight; undefined for one that cannot be given one. */
  private statusNumber(status: string): number | undefined {
    const known = this.statusNumbers.get(status)
    if (known !== undefined || status.length > LONGEST_STATUS || this.statusNumbers.size === DISTINCT_STATUSES) return known
    const number = this.statusNumbers.size + 1
    this.statusNumbers.set(status, number)
    return number
  }

  /** A slot in the newer generation for a transaction not heard of in it, with its statuses from the older one, if any. */
  private remember(low: number, high: number): number {
    const earlier = this.previous.find(low, high)
    const carried = earlier === -1 ? 0 : this.previous.statusesOf(earlier, this.carried)
    if (this.current.transactions >= this.generationSize) {
      const emptied = this.previous
      emptied.clear()
      this.previous = this.current
      this.current = emptied
    }
    const slot = this.current.add(low, high)
    for (let index = 0; index < carried; index++) this.current.note(slot, this.carried[index])
    return slot
  }
}
