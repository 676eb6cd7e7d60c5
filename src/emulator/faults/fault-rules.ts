/**
 * The emulator's fault rules at run time: added from a file or the admin endpoint, removed one
 * by one or all at once, and asked, for each API request and each webhook delivery, whether a
 * fault applies. Rules are tried in the order they were added; the first that matches, has
 * matches left (`times`) and wins its draw (`probability`) applies, and only it.
 *
 * A draw is not the next number of a sequence (which would hand the faults to whichever requests
 * happen to come first): it is a hash of the seed, the rule, the key of what was matched (see
 * `RequestFacts.key`) and how many times before this rule matched that key (its attempt). So
 * under one seed the same requests are faulted at any concurrency and in any order. Rules
 * limited to the next N matches (`times`) depend on the order by nature.
 */
import {type FaultKind, type FaultRule, REQUEST_FAULTS} from './fault-schema.js'
import {seededDraw} from './seeded-random.js'

/** What is known of the transaction a request or webhook is about. */
export interface TransactionFacts {
  transaction?: string
  product?: string
  amount?: number
  merchant_reference?: string
}

export interface RequestFacts extends TransactionFacts {
  method: string
  path: string
  /**
   * What identifies the request apart from when it came: its method and path, and the
   * transaction's merchant reference (else its id) for /v1/transaction/<id>/…; for a request
   * that creates a transaction its merchant reference, else a hash of its body.
   */
  key: string
}

export interface WebhookFacts extends TransactionFacts {
  status: string
  /** The transaction (its merchant reference, else its id) and the status the webhook reports. */
  key: string
}

/**
 * What names a transaction from one run to the next: its merchant reference when it has one (the
 * shop's test chose it), else its id. Ids are new in every run, so keying on them alone could
 * not repeat a run's faults; transactions that share a reference share its draws, in turn.
 */
export function transactionKey(facts: TransactionFacts): string {
  return facts.merchant_reference === undefined ? `transaction ${facts.transaction ?? ''}` : `merchant_reference ${facts.merchant_reference}`
}

/** Keys remembered per rule for their attempt count: beyond this, the oldest are forgotten (and start again at 1). */
export const MAX_REMEMBERED_KEYS = 100_000

export interface ActiveFaultRule {
  id: string
  rule: FaultRule
  /** Requests or webhooks the rule matched. */
  matched: number
  /** Times the fault was applied. */
  hits: number
  /** For a rule with a probability: how many times it drew for each key so far. */
  attempts: Map<string, number>
}

export interface FaultRuleView {
  id: string
  name?: string
  fault: FaultKind
  matched: number
  hits: number
  /** Applications left, when `times` limits them. */
  remaining: number | null
  rule: FaultRule
}

/** `*` matches within a path segment, `**` across segments. */
function pathPattern(glob: string): RegExp {
  const source = glob
    .split('**')
    .map((part) => part.split('*').map(escapeRegExp).join('[^/]*'))
    .join('.*')
  return new RegExp(`^${source}/?$`)
}

/** `*` matches any run of characters. */
function textPattern(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map(escapeRegExp).join('.*')}$`, 's')
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Request faults break API calls; the others break webhook deliveries. */
export function isRequestFault(rule: FaultRule): boolean {
  return (REQUEST_FAULTS as readonly string[]).includes(rule.fault)
}

function transactionMatches(match: TransactionFacts, facts: TransactionFacts): boolean {
  if (match.transaction !== undefined && match.transaction.toLowerCase() !== facts.transaction?.toLowerCase()) return false
  if (match.product !== undefined && match.product !== facts.product) return false
  if (match.amount !== undefined && match.amount !== facts.amount) return false
  if (match.merchant_reference !== undefined && (facts.merchant_reference === undefined || !textPattern(match.merchant_reference).test(facts.merchant_reference))) return false
  return true
}

function requestMatches(rule: FaultRule, facts: RequestFacts): boolean {
  if (!isRequestFault(rule)) return false
  const match = 'request' in rule ? (rule.request ?? {}) : {}
  if (match.method !== undefined && match.method !== facts.method) return false
  if (match.path !== undefined && !pathPattern(match.path).test(facts.path)) return false
  return transactionMatches(match, facts)
}

function webhookMatches(rule: FaultRule, facts: WebhookFacts): boolean {
  if (isRequestFault(rule)) return false
  const match = 'webhook' in rule ? (rule.webhook ?? {}) : {}
  if (match.status !== undefined && match.status !== facts.status) return false
  return transactionMatches(match, facts)
}

/** Whether any rule looks at the transaction of a request (so that its facts must be gathered). */
function needsTransactionFacts(rule: FaultRule): boolean {
  const match = 'request' in rule ? rule.request : undefined
  return match !== undefined && (match.transaction ?? match.product ?? match.amount ?? match.merchant_reference) !== undefined
}

export class FaultRules {
  private readonly rules: ActiveFaultRule[] = []
  private nextId = 1

  constructor(private seedValue: number) {}

  get seed(): number {
    return this.seedValue
  }

  /** Draws from `seed` from now on, every key at its first attempt again: what follows repeats any earlier run with that seed. */
  reseed(seed: number): void {
    this.seedValue = seed
    for (const active of this.rules) active.attempts.clear()
  }

  add(rule: FaultRule): ActiveFaultRule {
    const active: ActiveFaultRule = {id: `f${this.nextId++}`, rule, matched: 0, hits: 0, attempts: new Map()}
    this.rules.push(active)
    return active
  }

  /** Removes one rule; false when there is none with that id. */
  remove(id: string): boolean {
    const index = this.rules.findIndex((active) => active.id === id)
    if (index === -1) return false
    this.rules.splice(index, 1)
    return true
  }

  /** Removes every rule; returns how many there were. */
  clear(): number {
    return this.rules.splice(0).length
  }

  list(): FaultRuleView[] {
    return this.rules.map((active) => view(active))
  }

  get isEmpty(): boolean {
    return this.rules.length === 0
  }

  /** Whether a request's transaction facts are needed to decide (a rule matches on them). */
  get needsRequestTransactionFacts(): boolean {
    return this.rules.some((active) => isRequestFault(active.rule) && needsTransactionFacts(active.rule))
  }

  /** Whether a request's key is needed to decide (a request rule has a probability): it may need the body. */
  get needsRequestKeys(): boolean {
    return this.rules.some((active) => isRequestFault(active.rule) && (active.rule.probability ?? 1) < 1)
  }

  /** The rule whose fault applies to this request, counted as a hit; undefined for none. */
  forRequest(facts: RequestFacts): ActiveFaultRule | undefined {
    return this.first((rule) => requestMatches(rule, facts), facts.key)
  }

  /** The rule whose fault applies to this webhook delivery, counted as a hit; undefined for none. */
  forWebhook(facts: WebhookFacts): ActiveFaultRule | undefined {
    return this.first((rule) => webhookMatches(rule, facts), facts.key)
  }

  private first(matches: (rule: FaultRule) => boolean, key: string): ActiveFaultRule | undefined {
    for (const active of this.rules) {
      if (!matches(active.rule)) continue
      active.matched++
      if (active.rule.times !== undefined && active.hits >= active.rule.times) continue
      const probability = active.rule.probability ?? 1
      if (probability < 1 && this.draw(active, key) >= probability) continue
      active.hits++
      return active
    }
    return undefined
  }

  /** The rule's number in [0, 1) for this key at its next attempt. */
  private draw(active: ActiveFaultRule, key: string): number {
    const attempt = (active.attempts.get(key) ?? 0) + 1
    // Deleted first, so that the map's order is that of last use and the oldest go first.
    active.attempts.delete(key)
    active.attempts.set(key, attempt)
    if (active.attempts.size > MAX_REMEMBERED_KEYS) active.attempts.delete(active.attempts.keys().next().value!)
    return seededDraw(this.seedValue, active.id, key, attempt)
  }
}

export function view(active: ActiveFaultRule): FaultRuleView {
  const {rule} = active
  return {
    id: active.id,
    ...(rule.name === undefined ? {} : {name: rule.name}),
    fault: rule.fault,
    matched: active.matched,
    hits: active.hits,
    remaining: rule.times === undefined ? null : Math.max(0, rule.times - active.hits),
    rule,
  }
}
