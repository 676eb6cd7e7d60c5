/**
 * Faults on webhook deliveries, decided once per delivery before its first attempt and kept in
 * the durable outbox: a dropped delivery is stored as `dropped` (never retried), a delayed one
 * is due later, one held back for out-of-order delivery is stored as `held` (it no longer keeps
 * the transaction's later webhooks waiting) until the next webhook of its transaction to the
 * same address has been sent, or `hold_at_most` has passed. A duplicate is sent twice.
 *
 * After a restart, held deliveries go out when their time is up and delayed ones when due; the
 * rules themselves (and their counts) belong to the emulator process that had them.
 */
import type {Clock} from '../time/index.js'
import type {FaultEvent} from '../events.js'
import type {EmulatorStore, OutboxDelivery} from '../store/index.js'
import type {DeliveryFaults} from '../webhooks/index.js'
import {FAULT_KIND_TABLE} from './fault-kinds.js'
import {type ActiveFaultRule, type FaultRules, type TransactionFacts, type WebhookFacts, transactionKey} from './fault-rules.js'

/** What the outbox does with a claimed delivery: send it, send it twice, or nothing (a fault took it). */
export type WebhookFaultDecision = {send: 'once'} | {send: 'twice'; rule: ActiveFaultRule} | {send: 'no'}

function factsOfDelivery(store: EmulatorStore, delivery: OutboxDelivery): WebhookFacts {
  const stored = store.transaction(delivery.transaction)?.transaction
  const facts: TransactionFacts = {
    transaction: delivery.transaction,
    ...(stored ? {product: stored.payment_product, amount: Number(stored.amount), merchant_reference: stored.merchant_reference} : {}),
  }
  return {...facts, status: delivery.status, key: `${transactionKey(facts)} ${delivery.status}`}
}

export class WebhookFaults implements DeliveryFaults<ActiveFaultRule> {
  /** Deliveries whose fault was applied (delayed, held) and that go out as usual when due again. */
  private readonly decided = new Set<string>()
  /** Whether the store may hold deliveries: checked once at start, for those a previous run held. */
  private mayHold = true

  constructor(
    private readonly rules: FaultRules,
    private readonly store: EmulatorStore,
    private readonly clock: Clock,
    private readonly report: (event: FaultEvent) => void,
    /** Told when a delivery is due later, so that the scheduler wakes for it. */
    private readonly due: (at: number) => void,
  ) {}

  /** Before an attempt of a claimed delivery: what to do with it. A fault that takes it records so in the store. */
  beforeAttempt(delivery: OutboxDelivery): WebhookFaultDecision {
    if (delivery.attempts.length > 0 || this.decided.delete(delivery.id) || this.rules.isEmpty) return {send: 'once'}
    const active = this.rules.forWebhook(factsOfDelivery(this.store, delivery))
    if (!active) return {send: 'once'}
    const kind = FAULT_KIND_TABLE[active.rule.fault]
    if (kind.on !== 'webhook') return {send: 'once'}
    const send = kind.apply(active.rule as never, {
      ruleId: active.id,
      delivery,
      now: this.clock.now(),
      store: this.store,
      decided: () => this.decided.add(delivery.id),
      due: (at) => this.due(at),
      report: (effect) => this.reportFault(active, delivery, effect),
    })
    // A held delivery waits for a later one: releases must be looked for again.
    if (delivery.state === 'held') this.mayHold = true
    return send === 'twice' ? {send: 'twice', rule: active} : {send}
  }

  /** After the copy of a duplicated delivery was sent. */
  reportDuplicate(active: ActiveFaultRule, delivery: OutboxDelivery, answers: string[]): void {
    this.reportFault(active, delivery, `sent twice: ${answers.join(', then ')}`)
  }

  /** After a delivery was sent: the ones held back for it (same transaction, same address) go now. */
  afterSent(delivery: OutboxDelivery): void {
    if (!this.mayHold) return
    const now = this.clock.now()
    const released = this.store.write(() => this.store.releaseHeldDeliveries(delivery.transaction, delivery.url, now))
    if (released > 0) this.due(now)
  }

  /** Held deliveries whose time is up go out anyway (there was no later webhook). */
  releaseExpiredHolds(): void {
    if (!this.mayHold) return
    const now = this.clock.now()
    const earliest = this.store.earliestHoldEnd()
    if (earliest === undefined) {
      this.mayHold = false
      return
    }
    if (earliest <= now) this.store.write(() => this.store.releaseExpiredHolds(now))
  }

  private reportFault(active: ActiveFaultRule, delivery: OutboxDelivery, effect: string): void {
    this.report({
      event: 'fault',
      time: new Date(this.clock.now()).toISOString(),
      rule: active.id,
      ...(active.rule.name === undefined ? {} : {name: active.rule.name}),
      fault: active.rule.fault,
      on: 'webhook',
      transaction: delivery.transaction,
      status: delivery.status,
      delivery: delivery.id,
      effect,
    })
  }
}
