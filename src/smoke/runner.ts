/**
 * Runs the cases of a scenario through the flow (the same `runFlow` as `paytx flow`): up to N at
 * once, each case after the cases it refers to, each with its own listener on a free port.
 * Knows nothing of oclif or terminals: progress goes to an injected observer and the result is a
 * report that the command renders (table, JSON, JUnit).
 */
import {EXIT, type ErrorJson, InputError, PaytxError} from '../errors.js'
import {type Difference, checkExpectations, describeExpectation, describeOutcome, distinctWebhookStatuses, formatDifference} from './expectations.js'
import type {FlowEvent, FlowEventSink} from '../flow/events.js'
import type {FlowOptions} from '../flow/flow-options.js'
import type {FlowResult} from '../flow/run-flow.js'
import {type Reference, UnresolvedReferenceError, resolveReferences} from './references.js'
import type {Scenario, SmokeCase} from './scenario.js'
import {type CaseFaults, scopeToReference, uniqueCaseReference} from './case-faults.js'
import type {Shard} from './shards.js'
import type {PaymentService} from '../api/service.js'
import type {FlowEventBody} from '../flow/events.js'
import {type DeliveryRecord, type LoggedDelivery, checkDeliveries, checkEndpoint} from './merchant-checks.js'
import {CaseFailure, type MerchantStartResult, runMerchantStartedCase} from './merchant-start.js'

export type CaseVerdict = 'passed' | 'failed' | 'error' | 'skipped'

export interface SmokeCaseResult {
  name: string
  line?: number
  /** Unknown until it ran for a case whose merchant starts the payment and names no product. */
  product?: string
  amount?: number
  outcome: string
  verdict: CaseVerdict
  /** Why the case did not pass, in one line (empty when it passed). */
  reason: string
  expected: string
  /** What the flow ended with, in the words of `expected`. */
  got?: string
  transactionId?: string
  customerId?: string
  cardId?: string
  cardLast4?: string
  status?: string
  final?: boolean
  success?: boolean
  statusReason?: string
  /** The statuses paytx's own listener received (webhook: local only). */
  webhooks?: string[]
  /** expect.delivered: the emulator's delivery log of the transaction, each attempt's answer and time. */
  deliveries?: DeliveryRecord[]
  /** The same in a few words: "3 webhooks delivered, all answered 2xx". */
  delivered?: string
  /** check: the merchant's endpoint's last answer and how often it was read. */
  check?: {status?: number; body?: string; reads: number}
  /** A case whose merchant started the payment: its page the approval page sent the browser back to. */
  redirect?: {url: string; status?: number; error?: string}
  differences: Difference[]
  /** Where the time went: the flow's steps with their durations. */
  steps?: {name: string; durationMs: number}[]
  error?: ErrorJson
  startedAt?: string
  durationMs: number
}

export interface SmokeSummary {
  total: number
  passed: number
  failed: number
  errors: number
  skipped: number
}

export interface SmokeReport {
  file: string
  profile: string
  environment: string
  concurrency: number
  /** The part of the file this run covered, when split over CI machines (`--shard`). */
  shard?: Shard
  startedAt: string
  durationMs: number
  exitCode: number
  summary: SmokeSummary
  cases: SmokeCaseResult[]
}

/** What the runner tells about cases while they run (a live display, a log). */
export interface SmokeProgress {
  caseStarted(smokeCase: SmokeCase): void
  /** What the case's flow reports (its steps, the approval page of a manual case, warnings). */
  caseEvent(smokeCase: SmokeCase, event: FlowEvent): void
  /** What the case does after its flow (reading the delivery log, the merchant's endpoint), in a few words. */
  caseActivity?(smokeCase: SmokeCase, activity: string): void
  caseFinished(result: SmokeCaseResult): void
}

export interface SmokeRunOptions {
  /** The flow, bound to a service and profile; the runner supplies the options of each case. */
  runFlow: (options: FlowOptions, onEvent: FlowEventSink) => Promise<FlowResult>
  profile: string
  environment: string
  concurrency: number
  shard?: Shard
  bail: boolean
  openBrowser: boolean
  signal?: AbortSignal
  progress?: SmokeProgress
  now?: () => number
  /** Where cases with `faults:` add their rules (the local emulator); without it such cases are an input error. */
  caseFaults?: CaseFaults
  /** For cases that start through the merchant (`start:`) or read the delivery log (`expect.delivered`). */
  services?: CaseServices
}

/** What cases that test the merchant's own service read besides the flow. */
export interface CaseServices {
  service: Pick<PaymentService, 'getTransaction' | 'checkoutSuccess'>
  /** The emulator's webhook delivery log of one transaction. */
  deliveries(transactionId: string): Promise<LoggedDelivery[]>
  /** Shorter pauses and waits, for tests. */
  tuning?: {pollMs?: number; deliveryWaitMs?: number}
}

/**
 * The cases `--only` names, with the earlier cases they refer to (they must run to give their
 * results), in file order. Unknown names are an input error.
 */
export function selectCases(scenario: Scenario, only: readonly string[]): SmokeCase[] {
  if (only.length === 0) return scenario.cases
  const byName = new Map(scenario.cases.map((smokeCase) => [smokeCase.name, smokeCase]))
  const unknown = only.filter((name) => !byName.has(name))
  if (unknown.length > 0) {
    throw new InputError(`--only names ${unknown.map((name) => `"${name}"`).join(', ')}, not a case of ${scenario.file}.`, {
      flag: '--only',
      hint: `Cases in the file: ${scenario.cases.map((smokeCase) => smokeCase.name).join(', ')}.`,
    })
  }
  const chosen = new Set<string>()
  const add = (name: string) => {
    if (chosen.has(name)) return
    chosen.add(name)
    for (const dependency of byName.get(name)!.dependsOn) add(dependency)
  }
  for (const name of only) add(name)
  return scenario.cases.filter((smokeCase) => chosen.has(smokeCase.name))
}

function referenceValue(result: SmokeCaseResult | undefined, reference: Reference): string | undefined {
  return result?.[reference.field]
}

export function toFlowOptions(smokeCase: SmokeCase, lookup: (reference: Reference) => string | undefined, shared: {openBrowser: boolean; signal?: AbortSignal}): FlowOptions {
  const resolve = <T>(value: T): T => resolveReferences(value, lookup)
  const {card, customer} = smokeCase
  return {
    // Both are set on every case paytx starts itself (the file's check requires them).
    product: smokeCase.product!,
    amount: smokeCase.amount!,
    customer: customer === undefined ? undefined : customer.kind === 'id' ? {id: resolve(customer.id)} : {data: resolve(customer.data)},
    card:
      card === undefined
        ? undefined
        : card.kind === 'id'
          ? {id: resolve(card.id)}
          : card.kind === 'test'
            ? {pan: card.pan}
            : {pan: card.pan, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear, holderName: card.holderName},
    cvv: smokeCase.cvv,
    descriptor: resolve(smokeCase.descriptor),
    merchantReference: resolve(smokeCase.merchantReference),
    extraFields: resolve(smokeCase.extraFields),
    approve: smokeCase.outcome === 'manual' ? undefined : smokeCase.outcome,
    openBrowser: shared.openBrowser,
    webhook: smokeCase.webhook,
    listenerPort: 0,
    waitTimeoutMs: smokeCase.waitTimeoutMs,
    until: smokeCase.untilSettled ? 'settled' : 'final',
    signal: shared.signal,
  }
}

function errorJson(error: unknown): ErrorJson {
  if (error instanceof PaytxError) return error.toJSON()
  const message = error instanceof Error ? error.message : String(error)
  return {kind: 'internal', exitCode: EXIT.service, message}
}

function baseResult(smokeCase: SmokeCase): SmokeCaseResult {
  return {
    name: smokeCase.name,
    line: smokeCase.line,
    product: smokeCase.product,
    amount: smokeCase.amount,
    outcome: smokeCase.outcome,
    verdict: 'skipped',
    reason: '',
    expected: describeExpectation(smokeCase.expect),
    differences: [],
    durationMs: 0,
  }
}

/** The exit code of a whole run: the gravest kind of trouble any case had. */
export function runExitCode(results: readonly SmokeCaseResult[]): number {
  const errorCodes = results.filter((result) => result.verdict === 'error').map((result) => result.error?.exitCode ?? EXIT.service)
  for (const code of [EXIT.interrupted, EXIT.input, EXIT.service]) if (errorCodes.includes(code)) return code
  if (errorCodes.length > 0) return EXIT.service
  if (results.some((result) => result.verdict === 'failed')) return EXIT.notSuccess
  if (results.some((result) => result.verdict === 'skipped')) return EXIT.notSuccess
  return EXIT.ok
}

export function summarize(results: readonly SmokeCaseResult[]): SmokeSummary {
  const count = (verdict: CaseVerdict) => results.filter((result) => result.verdict === verdict).length
  return {total: results.length, passed: count('passed'), failed: count('failed'), errors: count('error'), skipped: count('skipped')}
}

export async function runScenario(scenario: Scenario, cases: readonly SmokeCase[], options: SmokeRunOptions): Promise<SmokeReport> {
  const now = options.now ?? Date.now
  const startedAt = now()
  const results = await runCases(cases, options, now)
  const ordered = cases.map((smokeCase) => results.get(smokeCase.name)!)
  return {
    file: scenario.file,
    profile: options.profile,
    environment: options.environment,
    concurrency: Math.max(1, options.concurrency),
    ...(options.shard ? {shard: options.shard} : {}),
    startedAt: new Date(startedAt).toISOString(),
    durationMs: now() - startedAt,
    exitCode: options.signal?.aborted ? EXIT.interrupted : runExitCode(ordered),
    summary: summarize(ordered),
    cases: ordered,
  }
}

/** Up to `concurrency` cases at once, each once the cases it refers to have finished. */
async function runCases(cases: readonly SmokeCase[], options: SmokeRunOptions, now: () => number): Promise<ReadonlyMap<string, SmokeCaseResult>> {
  const schedule = new CaseSchedule(cases, options)
  const running = new Set<Promise<void>>()
  const concurrency = Math.max(1, options.concurrency)
  while (schedule.hasPending() || running.size > 0) {
    schedule.skipPendingIfStopped()
    let next: SmokeCase | undefined
    while (running.size < concurrency && (next = schedule.nextReady())) {
      const task: Promise<void> = runCase(next, schedule.results, options, now)
        .then((result) => schedule.finish(result))
        .finally(() => running.delete(task))
      running.add(task)
    }
    if (running.size === 0) {
      // Nothing runs and nothing is ready: what is left waits on cases outside the selection.
      schedule.skipPending('not run: a case it refers to did not run')
      break
    }
    await Promise.race(running)
  }
  return schedule.results
}

/** Which cases wait, which have finished, and whether the run stops early (--bail, Ctrl-C). */
class CaseSchedule {
  readonly results = new Map<string, SmokeCaseResult>()
  private readonly pending: SmokeCase[]
  private stopReason: string | undefined

  constructor(
    cases: readonly SmokeCase[],
    private readonly options: Pick<SmokeRunOptions, 'bail' | 'progress' | 'signal'>,
  ) {
    this.pending = [...cases]
  }

  hasPending(): boolean {
    return this.pending.length > 0
  }

  finish(result: SmokeCaseResult): void {
    this.results.set(result.name, result)
    this.options.progress?.caseFinished(result)
    if (this.options.bail && !this.stopReason && (result.verdict === 'failed' || result.verdict === 'error')) {
      this.stopReason = `not run: --bail stopped the run after case "${result.name}" ${result.verdict === 'failed' ? 'failed' : 'had an error'}`
    }
  }

  /** The first waiting case whose dependencies have all finished; none once the run stops. */
  nextReady(): SmokeCase | undefined {
    if (this.stopReason) return undefined
    const index = this.pending.findIndex((smokeCase) => smokeCase.dependsOn.every((name) => this.results.has(name)))
    return index === -1 ? undefined : this.pending.splice(index, 1)[0]
  }

  skipPendingIfStopped(): void {
    if (this.options.signal?.aborted && !this.stopReason) this.stopReason = 'not run: the run was interrupted'
    if (this.stopReason) this.skipPending(this.stopReason)
  }

  skipPending(reason: string): void {
    for (const smokeCase of this.pending.splice(0)) this.finish({...baseResult(smokeCase), reason})
  }
}

/** One case, its references resolved from the cases that ran before it: its payment, then the checks of the merchant's service. */
async function runCase(
  smokeCase: SmokeCase,
  earlier: ReadonlyMap<string, SmokeCaseResult>,
  options: SmokeRunOptions,
  now: () => number,
): Promise<SmokeCaseResult> {
  const caseStart = now()
  const result: SmokeCaseResult = {...baseResult(smokeCase), startedAt: new Date(caseStart).toISOString()}
  options.progress?.caseStarted(smokeCase)
  // What the flow created before it stopped, so that an interrupted or failed case still names it.
  const created: Partial<SmokeCaseResult> = {}
  const lookup = (reference: Reference) => (reference.own ? created.transactionId : referenceValue(earlier.get(reference.caseName), reference))
  try {
    const paid = smokeCase.start ? await runStartedByMerchant(smokeCase, lookup, options, created, now) : await runCaseFlow(smokeCase, lookup, options, created)
    const after = await checkMerchantService(smokeCase, {...created, ...paid}, lookup, options)
    const differences = [...paid.differences!, ...after.differences]
    return {
      ...result,
      ...paid,
      ...after.fields,
      got: [paid.got, after.fields.delivered].filter(Boolean).join(', '),
      // The checks after the payment take time of the case too.
      ...(smokeCase.check || smokeCase.expect.delivered ? {durationMs: now() - caseStart} : {}),
      differences,
      verdict: differences.length === 0 ? 'passed' : 'failed',
      reason: differences.map(formatDifference).join('; '),
    }
  } catch (error) {
    if (error instanceof CaseFailure) {
      const {difference} = error
      return {...result, ...created, verdict: 'failed', differences: [difference], reason: formatDifference(difference), durationMs: now() - caseStart}
    }
    return {...result, ...created, ...describeCaseError(error), durationMs: now() - caseStart}
  }
}

/** A case paytx starts itself: the whole flow, with the case's fault rules in place while it runs. */
async function runCaseFlow(
  smokeCase: SmokeCase,
  lookup: (reference: Reference) => string | undefined,
  options: SmokeRunOptions,
  created: Partial<SmokeCaseResult>,
): Promise<Partial<SmokeCaseResult>> {
  let flowOptions = toFlowOptions(smokeCase, lookup, {openBrowser: options.openBrowser, signal: options.signal})
  let removeFaults: (() => Promise<void>) | undefined
  if (smokeCase.faults?.length) {
    if (!options.caseFaults) throw new InputError(`case "${smokeCase.name}" has faults:, which only the local emulator applies.`)
    const reference = flowOptions.merchantReference ?? uniqueCaseReference(smokeCase.name)
    flowOptions = {...flowOptions, merchantReference: reference}
    removeFaults = await options.caseFaults.add(smokeCase.faults.map((rule) => scopeToReference(rule, reference)))
  }
  try {
    const flow = await options.runFlow(flowOptions, (event) => {
      Object.assign(created, createdBy(event))
      options.progress?.caseEvent(smokeCase, event)
    })
    return judgeFlow(smokeCase, flow)
  } finally {
    await removeFaults?.()
  }
}

/** A case whose merchant starts the payment (`start:`): see merchant-start.ts. */
async function runStartedByMerchant(
  smokeCase: SmokeCase,
  lookup: (reference: Reference) => string | undefined,
  options: SmokeRunOptions,
  created: Partial<SmokeCaseResult>,
  now: () => number,
): Promise<Partial<SmokeCaseResult>> {
  const services = requireServices(smokeCase, options)
  const began = now()
  const emit = (body: FlowEventBody) => {
    const event = {...body, elapsedMs: now() - began} as FlowEvent
    Object.assign(created, createdBy(event))
    options.progress?.caseEvent(smokeCase, event)
  }
  const started = await runMerchantStartedCase(
    smokeCase,
    lookup,
    {service: services.service, signal: options.signal, emit, pollInitialDelayMs: services.tuning?.pollMs},
    (transactionId) => Object.assign(created, {transactionId}),
  )
  return judgeMerchantStart(smokeCase, started)
}

function requireServices(smokeCase: SmokeCase, options: SmokeRunOptions): CaseServices {
  if (!options.services) throw new InputError(`case "${smokeCase.name}" reads the emulator (start: or expect.delivered), and this run has none.`)
  return options.services
}

/** expect.delivered and check, once the payment is over; the case's differences from them, and what they read. */
async function checkMerchantService(
  smokeCase: SmokeCase,
  paid: Partial<SmokeCaseResult>,
  lookup: (reference: Reference) => string | undefined,
  options: SmokeRunOptions,
): Promise<{differences: Difference[]; fields: Partial<SmokeCaseResult>}> {
  const differences: Difference[] = []
  const fields: Partial<SmokeCaseResult> = {}
  const transactionId = paid.transactionId
  if (!transactionId) return {differences, fields}
  if (smokeCase.expect.delivered) {
    const services = requireServices(smokeCase, options)
    const tuning = services.tuning ?? {}
    options.progress?.caseActivity?.(smokeCase, "reading the emulator's webhook deliveries")
    const delivered = await checkDeliveries(smokeCase.expect.delivered, transactionId, {
      deliveries: services.deliveries,
      signal: options.signal,
      pollMs: tuning.pollMs,
      waitMs: tuning.deliveryWaitMs,
    })
    differences.push(...delivered.differences)
    Object.assign(fields, {deliveries: delivered.deliveries, delivered: delivered.summary})
  }
  if (smokeCase.check) {
    options.progress?.caseActivity?.(smokeCase, "reading the merchant's endpoint (check)")
    const checked = await checkEndpoint(smokeCase.check, (reference) => (reference.own ? transactionId : lookup(reference)), {
      signal: options.signal,
      pollMs: options.services?.tuning?.pollMs,
    })
    if (checked.difference) differences.push(checked.difference)
    fields.check = {...(checked.last ? {status: checked.last.status, body: checked.last.body.slice(0, 2000)} : {}), reads: checked.reads}
  }
  return {differences, fields}
}

/** The ids (and last status read) an event of the flow reports. */
function createdBy(event: FlowEvent): Partial<SmokeCaseResult> {
  switch (event.kind) {
    case 'customer-created':
    case 'customer-reused':
      return {customerId: event.customerId}
    case 'card-tokenized':
      return {cardId: event.cardId, cardLast4: event.last4}
    case 'card-reused':
      return {cardId: event.cardId}
    case 'transaction-started':
      return {transactionId: event.transactionId, status: event.status}
    case 'status-read':
      return {status: event.status}
    default:
      return {}
  }
}

/** What a finished flow means for its case: the figures it reports and the differences from what was expected. */
function judgeFlow(smokeCase: SmokeCase, flow: FlowResult): Partial<SmokeCaseResult> {
  const differences = checkExpectations(smokeCase.expect, flow)
  const listened = smokeCase.webhook.mode === 'local'
  return {
    transactionId: flow.transactionId,
    customerId: flow.customerId,
    cardId: flow.cardId,
    cardLast4: flow.cardLast4,
    status: flow.status,
    final: flow.final,
    success: flow.success,
    statusReason: flow.statusReason,
    ...(listened ? {webhooks: distinctWebhookStatuses(flow)} : {}),
    got: describeOutcome(flow, {listened}),
    steps: flow.steps,
    differences,
    durationMs: flow.durationMs,
  }
}

/** The same for a case whose merchant started the payment (no listener of paytx's: no webhook count). */
function judgeMerchantStart(smokeCase: SmokeCase, started: MerchantStartResult): Partial<SmokeCaseResult> {
  const outcome = {...started, webhooks: []}
  return {
    transactionId: started.transactionId,
    product: started.product,
    amount: started.amount,
    status: started.status,
    final: started.final,
    success: started.success,
    statusReason: started.statusReason,
    ...(started.redirect ? {redirect: started.redirect} : {}),
    got: describeOutcome(outcome, {listened: false}),
    steps: started.steps,
    differences: [...started.differences, ...checkExpectations(smokeCase.expect, outcome)],
    durationMs: started.durationMs,
  }
}

/** A case whose flow did not finish: skipped (a reference to a case without the value) or an error. */
function describeCaseError(error: unknown): Partial<SmokeCaseResult> {
  if (error instanceof UnresolvedReferenceError) return {verdict: 'skipped', reason: `not run: ${error.message}`}
  const json = errorJson(error)
  return {verdict: 'error', error: json, reason: json.message}
}
