/**
 * Runs the cases of a scenario through the flow (the same `runFlow` as `paytx flow`): up to N at
 * once, each case after the cases it refers to, each with its own listener on a free port.
 * Knows nothing of oclif or terminals: progress goes to an injected observer and the result is a
 * report that the command renders (table, JSON, JUnit).
 */
import {EXIT, type ErrorJson, InputError, PaytxError} from '../errors.js'
import {type Difference, checkExpectations, describeExpectation, describeOutcome, distinctWebhookStatuses, formatDifference} from './expectations.js'
import type {FlowOptions, FlowReporter, FlowResult} from '../flow/run-flow.js'
import {type Reference, UnresolvedReferenceError, resolveReferences} from './references.js'
import {MANUAL_OUTCOME} from './scenario-schema.js'
import type {Scenario, SmokeCase} from './scenario.js'

export type CaseVerdict = 'passed' | 'failed' | 'error' | 'skipped'

export interface SmokeCaseResult {
  name: string
  line?: number
  product: string
  amount: number
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
  webhooks?: string[]
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
  startedAt: string
  durationMs: number
  exitCode: number
  summary: SmokeSummary
  cases: SmokeCaseResult[]
}

/** What the runner tells about cases while they run (a live display, a log). */
export interface SmokeProgress {
  caseStarted(smokeCase: SmokeCase): void
  caseStep(smokeCase: SmokeCase, text: string): void
  /** A message to keep, such as the approval URL of a manual case. */
  caseNote(smokeCase: SmokeCase, text: string): void
  caseFinished(result: SmokeCaseResult): void
}

export interface SmokeRunOptions {
  /** The flow, bound to a service and profile; the runner supplies the options of each case. */
  runFlow: (options: FlowOptions, reporter: FlowReporter) => Promise<FlowResult>
  profile: string
  environment: string
  concurrency: number
  bail: boolean
  openBrowser: boolean
  signal?: AbortSignal
  progress?: SmokeProgress
  now?: () => number
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
    product: smokeCase.product,
    amount: smokeCase.amount,
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
    untilSettled: smokeCase.untilSettled,
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
  const results = new Map<string, SmokeCaseResult>()
  const pending = [...cases]
  const running = new Set<Promise<void>>()
  let stopReason: string | undefined

  const finish = (result: SmokeCaseResult) => {
    results.set(result.name, result)
    options.progress?.caseFinished(result)
    if (options.bail && !stopReason && (result.verdict === 'failed' || result.verdict === 'error')) {
      stopReason = `not run: --bail stopped the run after case "${result.name}" ${result.verdict === 'failed' ? 'failed' : 'had an error'}`
    }
  }

  const runOne = async (smokeCase: SmokeCase): Promise<void> => {
    const result = baseResult(smokeCase)
    const caseStart = now()
    result.startedAt = new Date(caseStart).toISOString()
    options.progress?.caseStarted(smokeCase)
    // A person completing a manual case needs the approval page's address and the flow's advice
    // to stay on screen; for the other cases the flow's steps only update the live line.
    const manual = smokeCase.outcome === MANUAL_OUTCOME
    const step = (name: string, text: string) => {
      if (manual && name === 'approval') options.progress?.caseNote(smokeCase, text)
      else options.progress?.caseStep(smokeCase, text)
    }
    const reporter: FlowReporter = {
      start: step,
      succeed: step,
      fail: step,
      info: (text) => {
        if (manual || /^(Warning|listener refused)/.test(text)) options.progress?.caseNote(smokeCase, text)
        else options.progress?.caseStep(smokeCase, text)
      },
    }
    try {
      const flowOptions = toFlowOptions(smokeCase, (reference) => referenceValue(results.get(reference.caseName), reference), {
        openBrowser: options.openBrowser,
        signal: options.signal,
      })
      const flow = await options.runFlow(flowOptions, reporter)
      Object.assign(result, {
        transactionId: flow.transactionId,
        customerId: flow.customerId,
        cardId: flow.cardId,
        cardLast4: flow.cardLast4,
        status: flow.status,
        final: flow.final,
        success: flow.success,
        statusReason: flow.statusReason,
        webhooks: distinctWebhookStatuses(flow),
        got: describeOutcome(flow),
        steps: flow.steps,
      })
      result.differences = checkExpectations(smokeCase.expect, flow)
      result.verdict = result.differences.length === 0 ? 'passed' : 'failed'
      result.reason = result.differences.map(formatDifference).join('; ')
      result.durationMs = flow.durationMs
    } catch (error) {
      result.durationMs = now() - caseStart
      if (error instanceof UnresolvedReferenceError) {
        result.verdict = 'skipped'
        result.reason = `not run: ${error.message}`
      } else {
        result.verdict = 'error'
        result.error = errorJson(error)
        result.reason = result.error.message
      }
    }
    finish(result)
  }

  /** The first waiting case whose dependencies have all finished. */
  const nextReady = (): SmokeCase | undefined => {
    const index = pending.findIndex((smokeCase) => smokeCase.dependsOn.every((name) => results.has(name)))
    return index === -1 ? undefined : pending.splice(index, 1)[0]
  }

  const concurrency = Math.max(1, options.concurrency)
  while (pending.length > 0 || running.size > 0) {
    if (options.signal?.aborted && !stopReason) stopReason = 'not run: the run was interrupted'
    if (stopReason) {
      for (const smokeCase of pending.splice(0)) finish({...baseResult(smokeCase), reason: stopReason})
    }
    let next: SmokeCase | undefined
    while (!stopReason && running.size < concurrency && (next = nextReady())) {
      const task: Promise<void> = runOne(next).finally(() => running.delete(task))
      running.add(task)
    }
    if (running.size === 0) {
      // Nothing runs and nothing is ready: what is left waits on cases outside the selection.
      for (const smokeCase of pending.splice(0)) finish({...baseResult(smokeCase), reason: 'not run: a case it refers to did not run'})
      break
    }
    await Promise.race(running)
  }

  const ordered = cases.map((smokeCase) => results.get(smokeCase.name)!)
  return {
    file: scenario.file,
    profile: options.profile,
    environment: options.environment,
    concurrency,
    startedAt: new Date(startedAt).toISOString(),
    durationMs: now() - startedAt,
    exitCode: options.signal?.aborted ? EXIT.interrupted : runExitCode(ordered),
    summary: summarize(ordered),
    cases: ordered,
  }
}
