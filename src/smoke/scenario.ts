/**
 * Loading a scenario: the file's shape is checked against the zod schema, then the rules that
 * span fields (outcomes the product's page offers, test cards that agree with the outcome,
 * references to earlier cases, expectations that can hold). Every problem is collected with its
 * line, none stops the others; a scenario with any problem never runs.
 */
import type {z} from 'zod'

import {CUSTOMER_REQUEST_FIELDS, type Product, isFinalStatus, isSuccessStatus, sofortDescriptorProblem} from '../api/contract.js'
import {luhnValid, normalizePan} from '../secrets/card-number.js'
import {type CustomerRequest, validateCustomerRequest} from '../api/schemas.js'
import {APPROVAL_OUTCOMES, DEFAULT_TEST_CARD, TEST_CARDS, TEST_CARD_CVV, testCardFor} from '../test-mode/outcomes.js'
import {readDuration} from '../duration.js'
import {isAbsoluteHttpUrl} from '../http/url.js'
import {type FaultRule, faultFileKeysAt} from '../emulator/faults/index.js'
import {type DocumentShape, isPlainObject, structureProblems, suggestion} from '../input/located-issues.js'
import {withEnvironmentValues} from './environment-values.js'
import {
  type CheckStep,
  type DeliveredExpectation,
  FIELDS_PAYTX_STARTS_WITH,
  type StartStep,
  checkCheckStep,
  checkDelivered,
  checkStartStep,
} from './merchant-scenario.js'
import {type FoundReference, findReferences} from './references.js'
import {type ScenarioProblem, ScenarioError} from '../input/scenario-error.js'
import {
  MANUAL_OUTCOME,
  type RawCase,
  type RawDefaults,
  type RawExpectation,
  TEST_CARD_ALIASES,
  type TestCardAlias,
  WEBHOOK_MODES,
  caseSchema,
  checkStepSchema,
  defaultsSchema,
  startStepSchema,
  expectationSchema,
  scenarioSchema,
} from './scenario-schema.js'
import {type ScenarioSource, type ValuePath, formatPath} from '../input/scenario-source.js'

export const DEFAULT_WAIT_TIMEOUT_MS = 60_000
export const DEFAULT_MANUAL_WAIT_TIMEOUT_MS = 10 * 60_000

export type CaseCard =
  | {kind: 'test'; alias?: TestCardAlias; pan: string}
  | {kind: 'id'; id: string}
  | {kind: 'pan'; pan: string; expiryMonth?: string; expiryYear?: string; holderName?: string}

export type CaseCustomer = {kind: 'id'; id: string} | {kind: 'data'; data: CustomerRequest}

export type CaseWebhook = {mode: 'local'} | {mode: 'url'; url: string} | {mode: 'none'}

export interface WebhookExpectation {
  count?: number
  min?: number
  max?: number
  statuses?: string[]
  contains?: string[]
}

export interface CaseExpectation {
  statuses?: string[]
  final?: boolean
  success?: boolean
  statusReason?: {pattern: string; regex: RegExp}
  webhooks?: WebhookExpectation
  /** The emulator's delivery log: every webhook of the transaction answered 2xx. */
  delivered?: DeliveredExpectation
  maxDurationMs?: number
}

/** A case ready to run. String values may still hold references (resolved when it starts). */
export interface SmokeCase {
  name: string
  /** Position in the file, from 0. */
  index: number
  line?: number
  /** Always set when paytx starts the transaction; with `start`, a check of what the merchant started. */
  product?: Product
  amount?: number
  /** An outcome of the product's approval page, or `manual`. */
  outcome: string
  card?: CaseCard
  /** The CVV sent with the transaction; undefined leaves it out (the page asks for it). */
  cvv?: string
  customer?: CaseCustomer
  descriptor?: string
  merchantReference?: string
  extraFields?: Record<string, unknown>
  webhook: CaseWebhook
  waitTimeoutMs: number
  untilSettled: boolean
  expect: CaseExpectation
  /** Names of the earlier cases whose results this one uses. */
  dependsOn: string[]
  /** Emulator fault rules for this case's transaction only. */
  faults?: FaultRule[]
  /** The merchant's endpoint starts the payment (paytx then creates nothing itself). */
  start?: StartStep
  /** The merchant's endpoint read after the webhooks, until it answers as expected. */
  check?: CheckStep
}

export interface Scenario {
  file: string
  cases: SmokeCase[]
}

type ZodIssue = z.core.$ZodIssue

/** Milliseconds of a duration greater than zero (a number is seconds), or undefined. */
function positiveDurationMs(value: number | string): number | undefined {
  const ms = readDuration(String(value))
  return ms !== undefined && ms > 0 ? ms : undefined
}

const FIELDS_WITH_REFERENCES = ['customer', 'card', 'descriptor', 'merchant_reference', 'extra_fields', 'start', 'check'] as const

const SCENARIO_SHAPE: DocumentShape = {
  allowedKeysAt: (path, value) => {
    // Inside a case's `faults:`, the fault file's rules apply (cases[2].faults[0].request → rules[0].request).
    const faults = path.indexOf('faults')
    return faults === 2 ? faultFileKeysAt(['rules', ...path.slice(faults + 1)], value) : allowedKeysAt(path)
  },
  notAMapping: 'the scenario must be a mapping with a `cases:` list',
}

/** The fields a mapping at this path may hold, for "unknown field" messages. */
function allowedKeysAt(path: ValuePath): string[] {
  const last = path.at(-1)
  const parent = path.at(-2)
  if (path.length === 0) return Object.keys(scenarioSchema.shape)
  if (path.length === 1 && last === 'defaults') return Object.keys(defaultsSchema.shape)
  if (path.length === 2 && path[0] === 'cases') return Object.keys(caseSchema.shape)
  if (last === 'start') return Object.keys(startStepSchema.shape)
  if (last === 'check') return Object.keys(checkStepSchema.shape)
  if (last === 'expect' && parent === 'check') return ['status', 'json']
  if (last === 'delivered' && parent === 'expect') return ['to', 'min']
  if (last === 'expect') return Object.keys(expectationSchema.shape)
  if (last === 'webhooks' && parent === 'expect') return ['count', 'min', 'max', 'statuses', 'contains']
  if (last === 'customer') return ['id', ...CUSTOMER_REQUEST_FIELDS]
  return []
}

function compileStatusReason(pattern: string): RegExp | string {
  const literal = /^\/(.*)\/([a-z]*)$/s.exec(pattern)
  try {
    return literal ? new RegExp(literal[1], literal[2]) : new RegExp(pattern)
  } catch (error) {
    return (error as Error).message.replace(/^Invalid regular expression: /, '')
  }
}

function asList(status: string | string[] | undefined): string[] | undefined {
  if (status === undefined) return undefined
  return Array.isArray(status) ? status : [status]
}

interface CaseNameEntry {
  index: number
  line?: number
  product?: string
}

function startsWith(path: readonly PropertyKey[], prefix: ValuePath): boolean {
  return prefix.every((part, index) => path[index] === part)
}

/**
 * The part of a mapping that passed the structure check: known fields without an issue (and,
 * inside `expect`, its sound fields), so the rules across fields can still be checked and every
 * problem of the file reported in one go.
 */
function soundPart(value: Record<string, unknown>, issues: readonly ZodIssue[], prefix: ValuePath, known: readonly string[]): Record<string, unknown> {
  const sound: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    if (!known.includes(key)) continue
    const inner = issues.filter((issue) => startsWith(issue.path, [...prefix, key]))
    if (inner.length === 0) sound[key] = item
    else if (key === 'expect' && isPlainObject(item)) sound[key] = soundPart(item, inner, [...prefix, key], Object.keys(expectationSchema.shape))
  }
  return sound
}

/** A case's value of one field (or the default's), where it was written, and how to name it in a problem. */
type CaseField<K extends keyof RawDefaults> = {value: RawDefaults[K]; path: ValuePath; note: string}

class ScenarioChecker {
  readonly problems: ScenarioProblem[] = []

  constructor(
    private readonly source: ScenarioSource,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  report(path: ValuePath, message: string, options: {key?: boolean} = {}): void {
    this.problems.push({path: formatPath(path), ...this.source.locate(path, options), message})
  }

  check(): Scenario {
    const data = withEnvironmentValues(this.source.data, this.env, (path, name, problem) => this.report(path, `\${env.${name}}: ${problem}`))
    const structure = scenarioSchema.safeParse(data)
    if (!structure.success) this.problems.push(...structureProblems(structure.error.issues, data, this.source.locate, SCENARIO_SHAPE))

    const issues = structure.success ? [] : structure.error.issues
    const document = isPlainObject(data) ? data : {}
    const rawDefaults = isPlainObject(document.defaults) ? document.defaults : {}
    const defaults = soundPart(rawDefaults, issues, ['defaults'], Object.keys(defaultsSchema.shape)) as RawDefaults
    for (const found of findReferences(rawDefaults).references) {
      if (found.own && found.path[0] === 'check') continue
      this.report(
        ['defaults', ...found.path],
        found.own
          ? `${found.text} can be used in check only`
          : `${found.text}: defaults cannot hold references (every case would share them); put the reference in the cases`,
      )
    }

    const rawCases = Array.isArray(document.cases) ? document.cases : []
    const names = this.collectNames(rawCases, defaults)
    const cases: SmokeCase[] = []
    rawCases.forEach((rawCase, index) => {
      if (!isPlainObject(rawCase)) return
      const sound = soundPart(rawCase, issues, ['cases', index], Object.keys(caseSchema.shape)) as RawCase
      const written = new Set([...Object.keys(rawCase), ...Object.keys(rawDefaults)])
      const smokeCase = this.checkCase(sound, index, defaults, written, names)
      const hasIssues = issues.some((issue) => issue.path[0] === 'cases' && issue.path[1] === index)
      if (smokeCase && !hasIssues) cases.push(smokeCase)
    })

    const unique = new Map(this.problems.map((problem) => [`${problem.path}\u0000${problem.message}`, problem]))
    if (unique.size > 0) throw new ScenarioError(this.source.file, [...unique.values()])
    return {file: this.source.file, cases}
  }

  private collectNames(rawCases: unknown[], defaults: RawDefaults): Map<string, CaseNameEntry> {
    const names = new Map<string, CaseNameEntry>()
    rawCases.forEach((rawCase, index) => {
      if (!isPlainObject(rawCase) || typeof rawCase.name !== 'string') return
      const first = names.get(rawCase.name)
      const line = this.source.locate(['cases', index]).line
      if (first) {
        this.report(['cases', index, 'name'], `"${rawCase.name}" is already the name of cases[${first.index}]${first.line ? ` (line ${first.line})` : ''}; names must be unique`)
        return
      }
      const product = typeof rawCase.product === 'string' ? rawCase.product : defaults.product
      names.set(rawCase.name, {index, line, product})
    })
    return names
  }

  /**
   * The rules across fields, for one case with its defaults applied. `raw` holds only the fields
   * that passed the structure check; `written` names every field the file sets, so a field that
   * is there but wrong is not also reported as missing.
   */
  private checkCase(raw: RawCase, index: number, defaults: RawDefaults, written: Set<string>, names: Map<string, CaseNameEntry>): SmokeCase | undefined {
    const at = ['cases', index] as const
    const label = typeof raw.name === 'string' ? raw.name : `cases[${index}]`
    const field = <K extends keyof RawDefaults>(key: K): {value: RawDefaults[K]; path: ValuePath; note: string} => {
      if (raw[key] !== undefined) return {value: raw[key], path: [...at, key], note: ''}
      return {value: defaults[key], path: ['defaults', key], note: ` (case "${label}")`}
    }
    const missing = (key: keyof RawDefaults, what: string) => {
      if (written.has(key)) return
      this.report(at, `${key} is required (${what}); set it in the case or in defaults`)
    }
    const product = field('product')
    const amount = field('amount')
    const outcome = field('outcome')
    const merchant = this.checkMerchantParts(raw, field, at, written)
    const startedByMerchant = written.has('start')
    let sound = this.checkBasics(product, amount, outcome, missing, !startedByMerchant)

    const card = this.checkCard(field('card'), product.value, outcome.value)
    const cvv = this.checkCvv(field('cvv'), product.value)
    const customer = this.checkCustomer(field('customer'))
    const descriptor = field('descriptor')
    if (product.value === 'sofort') this.checkSofortDescriptor(descriptor)
    const webhook = this.checkWebhook(field('webhook'))
    const expect = this.checkExpectation(raw.expect, defaults.expect, at, startedByMerchant ? 'merchant' : webhook, label)

    const dependsOn = this.checkReferences(raw, index, names)

    const waitTimeout = field('wait_timeout')
    const waitTimeoutMs = waitTimeout.value === undefined ? undefined : positiveDurationMs(waitTimeout.value)
    if (waitTimeout.value !== undefined && waitTimeoutMs === undefined) {
      this.report(waitTimeout.path, `must be a duration greater than 0${waitTimeout.note}`)
      sound = false
    }
    if (!sound || card === false || customer === false || webhook === false || expect === false || dependsOn === false || merchant === false) return undefined

    const isManual = outcome.value === MANUAL_OUTCOME
    const statuses = expect.statuses ?? []
    return {
      name: label,
      index,
      line: this.source.locate(at).line,
      product: product.value,
      amount: amount.value,
      outcome: outcome.value!,
      card: product.value === 'card' && !startedByMerchant ? (card ?? defaultTestCard(outcome.value!)) : undefined,
      cvv,
      customer,
      descriptor: descriptor.value,
      merchantReference: field('merchant_reference').value,
      extraFields: field('extra_fields').value,
      ...(raw.faults === undefined ? {} : {faults: raw.faults}),
      webhook,
      waitTimeoutMs: waitTimeoutMs ?? (isManual ? DEFAULT_MANUAL_WAIT_TIMEOUT_MS : DEFAULT_WAIT_TIMEOUT_MS),
      untilSettled: field('until_settled').value ?? (statuses.includes('SETTLEMENT_COMPLETED') && !statuses.includes('SETTLEMENT_REQUESTED')),
      expect,
      dependsOn,
      ...merchant,
    }
  }

  /**
   * `start` and `check`, from the case or defaults. A case whose merchant starts the payment sets
   * none of the fields paytx would start it with (those of defaults do not apply to it).
   */
  private checkMerchantParts(
    raw: RawCase,
    field: <K extends keyof RawDefaults>(key: K) => CaseField<K>,
    at: ValuePath,
    written: Set<string>,
  ): {start?: StartStep; check?: CheckStep} | false {
    const report = (path: ValuePath, message: string) => this.report(path, message)
    const start = field('start')
    const check = field('check')
    const started = start.value === undefined ? undefined : checkStartStep(start.value, start.path, start.note, report)
    const checked = check.value === undefined ? undefined : checkCheckStep(check.value, check.path, check.note, report)
    let ok = started !== false && checked !== false
    // Written, even if wrong: the merchant starts the payment, and the other problems are said as such.
    if (written.has('start')) {
      const outcome = field('outcome')
      if (outcome.value === MANUAL_OUTCOME) {
        this.report(outcome.path, `a case whose merchant starts the payment (start:) needs an outcome the emulator's page offers, not ${MANUAL_OUTCOME}${outcome.note}`)
        ok = false
      }
      for (const key of FIELDS_PAYTX_STARTS_WITH) {
        if (raw[key] === undefined) continue
        this.report([...at, key], `${key} is for a transaction paytx starts; this case's merchant starts it (start:), so remove ${key}`)
        ok = false
      }
    }
    if (!ok) return false
    return {...(started ? {start: started} : {}), ...(checked ? {check: checked} : {})}
  }

  /** Product, amount and outcome are required, and the outcome must be one the product's page offers. */
  private checkBasics(
    product: CaseField<'product'>,
    amount: CaseField<'amount'>,
    outcome: CaseField<'outcome'>,
    missing: (key: keyof RawDefaults, what: string) => void,
    /** False when the merchant starts the payment: product and amount are then checks of what it started. */
    productRequired = true,
  ): boolean {
    let sound = true
    if (product.value === undefined && productRequired) {
      missing('product', 'card, sofort or dummy')
      sound = false
    }
    if (amount.value === undefined && productRequired) {
      missing('amount', 'minor units, e.g. 1499')
      sound = false
    }
    if (outcome.value === undefined) {
      missing('outcome', `what to choose on the approval page, or ${MANUAL_OUTCOME}`)
      return false
    }
    if (product.value && outcome.value !== MANUAL_OUTCOME && !APPROVAL_OUTCOMES[product.value].includes(outcome.value)) {
      this.report(
        outcome.path,
        `${outcome.value} is not offered by the ${product.value} approval page${outcome.note}; choose one of ${APPROVAL_OUTCOMES[product.value].join(', ')}, or ${MANUAL_OUTCOME}`,
      )
      return false
    }
    return sound
  }

  /** A sofort descriptor that refers to no other case is checked as the service would. */
  private checkSofortDescriptor(descriptor: CaseField<'descriptor'>): void {
    if (descriptor.value === undefined || findReferences(descriptor.value).references.length > 0) return
    const problem = sofortDescriptorProblem(descriptor.value)
    if (problem) this.report(descriptor.path, `the sofort descriptor ${problem}${descriptor.note}`)
  }

  private checkCard(
    card: {value: RawDefaults['card']; path: ValuePath; note: string},
    product: Product | undefined,
    outcome: string | undefined,
  ): CaseCard | undefined | false {
    if (card.value === undefined) return undefined
    if (product && product !== 'card') {
      this.report(card.path, `card applies to the card product only; this is a ${product} case${card.note}`)
      return false
    }
    const value = card.value
    const decidesOutcome = outcome !== undefined && outcome !== MANUAL_OUTCOME && outcome !== 'CANCELLED'
    const agree = (leadsTo: string, what: string): boolean => {
      if (!decidesOutcome || leadsTo === outcome) return true
      const alias = Object.entries(TEST_CARD_ALIASES).find(([, to]) => to === outcome)?.[0]
      this.report(
        card.path,
        `${what} leads to ${leadsTo}, but the outcome is ${outcome}${card.note}; on the card page the card decides the outcome${alias ? `: use card: ${alias}` : ''}`,
      )
      return false
    }
    if (typeof value === 'string') {
      if (value in TEST_CARD_ALIASES) {
        const alias = value as TestCardAlias
        const leadsTo = TEST_CARD_ALIASES[alias]
        if (!agree(leadsTo, `test card "${alias}"`)) return false
        return {kind: 'test', alias, pan: testCardFor(leadsTo)!.pan}
      }
      if (findReferences(value).references.length > 0) return {kind: 'id', id: value}
      this.report(
        card.path,
        `"${value}" is not a test card alias (${Object.keys(TEST_CARD_ALIASES).join(', ')}) nor a reference; write an existing card as card: {id: "..."}${suggestion(value, Object.keys(TEST_CARD_ALIASES))}`,
      )
      return false
    }
    if ('id' in value) return {kind: 'id', id: value.id}
    const pan = normalizePan(value.pan)
    let ok = true
    if (!luhnValid(pan)) {
      this.report([...card.path, 'pan'], 'is not a valid card number (12-19 digits passing the Luhn check)')
      ok = false
    }
    if (value.expiry_month !== undefined && !/^(0?[1-9]|1[0-2])$/.test(value.expiry_month)) {
      this.report([...card.path, 'expiry_month'], 'must be a month from 01 to 12')
      ok = false
    }
    if (value.expiry_year !== undefined && !/^\d{4}$/.test(value.expiry_year)) {
      this.report([...card.path, 'expiry_year'], 'must be a four-digit year such as 2030')
      ok = false
    }
    const testCard = TEST_CARDS.find((candidate) => candidate.pan === pan)
    if (testCard && !agree(testCard.outcome, 'this test card number')) ok = false
    if (!ok) return false
    return {kind: 'pan', pan, expiryMonth: value.expiry_month, expiryYear: value.expiry_year, holderName: value.holder_name}
  }

  private checkCvv(cvv: {value: RawDefaults['cvv']; path: ValuePath; note: string}, product: Product | undefined): string | undefined {
    if (cvv.value === undefined) return product === 'card' ? TEST_CARD_CVV : undefined
    if (product && product !== 'card') {
      this.report(cvv.path, `cvv applies to the card product only; this is a ${product} case${cvv.note}`)
      return undefined
    }
    return cvv.value === 'none' ? undefined : String(cvv.value)
  }

  private checkCustomer(customer: {value: RawDefaults['customer']; path: ValuePath; note: string}): CaseCustomer | undefined | false {
    const value = customer.value
    if (value === undefined) return undefined
    if (typeof value === 'string') return {kind: 'id', id: value}
    if ('id' in value && typeof value.id === 'string') return {kind: 'id', id: value.id}
    const data = value as CustomerRequest
    const withoutReferences = Object.fromEntries(Object.entries(data).filter(([, text]) => findReferences(text).references.length === 0))
    const issues = validateCustomerRequest(withoutReferences, {mode: 'scenario'})
    for (const issue of issues) this.report([...customer.path, ...issue.path.split('.')], `${issue.message}${customer.note}`)
    return issues.length > 0 ? false : {kind: 'data', data}
  }

  private checkWebhook(webhook: {value: string | undefined; path: ValuePath; note: string}): CaseWebhook | false {
    const value = webhook.value
    if (value === undefined || value === 'local') return {mode: 'local'}
    if (value === 'none') return {mode: 'none'}
    // An ${env.NAME} still here was reported by the environment's own check: once is enough.
    if (/\$\{\s*env\./.test(value)) return false
    if (value.includes('${')) {
      this.report(webhook.path, `references are allowed only in ${FIELDS_WITH_REFERENCES.join(', ')}`)
      return false
    }
    if (isAbsoluteHttpUrl(value)) return {mode: 'url', url: value}
    this.report(webhook.path, `must be ${WEBHOOK_MODES.join(', ')} or an absolute http(s) URL; got ${JSON.stringify(value)}${webhook.note}`)
    return false
  }

  private checkExpectation(
    own: RawExpectation | undefined,
    inherited: RawExpectation | undefined,
    at: ValuePath,
    webhook: CaseWebhook | false | 'merchant',
    label: string,
  ): CaseExpectation | false {
    const pathOf = (key: keyof RawExpectation): ValuePath => (own?.[key] === undefined ? ['defaults', 'expect', key] : [...at, 'expect', key])
    const noteOf = (key: keyof RawExpectation): string => (own?.[key] === undefined ? ` (case "${label}")` : '')
    const merged: RawExpectation = {...inherited, ...own}
    let ok = true
    const result: CaseExpectation = {}
    if (Object.values(merged).every((value) => value === undefined)) return {success: true}

    result.statuses = asList(merged.status)
    result.final = merged.final
    result.success = merged.success
    if (merged.status_reason !== undefined) {
      const compiled = compileStatusReason(merged.status_reason)
      if (typeof compiled === 'string') {
        this.report(pathOf('status_reason'), `is not a valid regular expression: ${compiled}${noteOf('status_reason')}`)
        ok = false
      } else {
        result.statusReason = {pattern: merged.status_reason, regex: compiled}
      }
    }
    if (merged.max_duration !== undefined) {
      result.maxDurationMs = positiveDurationMs(merged.max_duration)
      if (result.maxDurationMs === undefined) {
        this.report(pathOf('max_duration'), `must be a duration greater than 0${noteOf('max_duration')}`)
        ok = false
      }
    }

    const webhookParts = this.checkWebhookExpectations(merged, webhook, pathOf, noteOf)
    if (webhookParts === false) ok = false
    else Object.assign(result, webhookParts)

    if (result.statuses) {
      if (result.final !== undefined && !result.statuses.some((status) => isFinalStatus(status) === result.final)) {
        this.report(pathOf('final'), `final: ${result.final} can never hold together with status ${result.statuses.join(' or ')}${noteOf('final')}`)
        ok = false
      }
      if (result.success !== undefined && !result.statuses.some((status) => isSuccessStatus(status) === result.success)) {
        this.report(pathOf('success'), `success: ${result.success} can never hold together with status ${result.statuses.join(' or ')}${noteOf('success')}`)
        ok = false
      }
    }
    return ok ? result : false
  }

  /** expect.webhooks (paytx's own listener) and expect.delivered (the emulator's delivery log). */
  private checkWebhookExpectations(
    merged: RawExpectation,
    webhook: CaseWebhook | false | 'merchant',
    pathOf: (key: keyof RawExpectation) => ValuePath,
    noteOf: (key: keyof RawExpectation) => string,
  ): Pick<CaseExpectation, 'webhooks' | 'delivered'> | false {
    let ok = true
    const parts: Pick<CaseExpectation, 'webhooks' | 'delivered'> = {}
    if (merged.webhooks !== undefined) {
      const webhooks = merged.webhooks
      parts.webhooks = typeof webhooks === 'number' ? {count: webhooks} : Array.isArray(webhooks) ? {statuses: webhooks} : {...webhooks}
      const {min, max} = parts.webhooks
      if (min !== undefined && max !== undefined && min > max) {
        this.report(pathOf('webhooks'), `min (${min}) is greater than max (${max}); no number of webhooks can pass${noteOf('webhooks')}`)
        ok = false
      }
      if (webhook === 'merchant') {
        this.report(pathOf('webhooks'), `counts the webhooks of paytx's own listener, and this case's merchant starts the payment; use delivered: true (the emulator's delivery log)${noteOf('webhooks')}`)
        ok = false
      } else if (webhook !== false && webhook.mode !== 'local') {
        this.report(
          pathOf('webhooks'),
          `needs webhook: local; paytx sees only the webhooks its own listener receives (this case has webhook: ${webhook.mode === 'url' ? webhook.url : webhook.mode}; delivered: true reads the emulator's delivery log)${noteOf('webhooks')}`,
        )
        ok = false
      }
    }
    if (merged.delivered !== undefined) {
      const noWebhooks = webhook !== false && webhook !== 'merchant' && webhook.mode === 'none'
      if (noWebhooks) this.report(pathOf('delivered'), `needs webhooks, and this case has webhook: none${noteOf('delivered')}`)
      const delivered = noWebhooks ? false : checkDelivered(merged.delivered, pathOf('delivered'), noteOf('delivered'), (path, message) => this.report(path, message))
      if (delivered === false) ok = false
      else parts.delivered = delivered
    }
    return ok ? parts : false
  }

  private checkReferences(raw: RawCase, index: number, names: Map<string, CaseNameEntry>): string[] | false {
    const found: FoundReference[] = []
    for (const key of FIELDS_WITH_REFERENCES) {
      if (raw[key] === undefined) continue
      const {references, problems} = findReferences(raw[key], [key])
      found.push(...references)
      for (const problem of problems) this.report(['cases', index, ...problem.path], problem.message)
      if (problems.length > 0) return false
    }
    let ok = true
    const dependsOn = new Set<string>()
    for (const reference of found) {
      const path = ['cases', index, ...reference.path]
      const target = names.get(reference.caseName)
      if (reference.own) {
        if (reference.path[0] === 'check') continue
        this.report(path, `${reference.text} can be used in check only, once the transaction has started`)
        ok = false
      } else if (!target) {
        this.report(path, `${reference.text} refers to case "${reference.caseName}", which does not exist${suggestion(reference.caseName, [...names.keys()])}`)
        ok = false
      } else if (target.index === index) {
        this.report(path, `${reference.text} refers to its own case; a case can use the results of earlier cases only`)
        ok = false
      } else if (target.index > index) {
        this.report(
          path,
          `${reference.text} refers to case "${reference.caseName}", which comes later (cases[${target.index}]${target.line ? `, line ${target.line}` : ''}); a case can use the results of earlier cases only`,
        )
        ok = false
      } else if (reference.field === 'cardId' && target.product && target.product !== 'card') {
        this.report(path, `${reference.text}: case "${reference.caseName}" is a ${target.product} case and creates no card`)
        ok = false
      } else {
        dependsOn.add(reference.caseName)
      }
    }
    return ok ? [...dependsOn] : false
  }
}

function defaultTestCard(outcome: string): CaseCard {
  const card = testCardFor(outcome) ?? DEFAULT_TEST_CARD
  const alias = Object.entries(TEST_CARD_ALIASES).find(([, to]) => to === card.outcome)?.[0] as TestCardAlias | undefined
  return {kind: 'test', alias, pan: card.pan}
}

/** Checks a parsed scenario file, its `${env.NAME}` read from `env`; throws a ScenarioError listing every problem with its line. */
export function checkScenario(source: ScenarioSource, env: NodeJS.ProcessEnv = process.env): Scenario {
  return new ScenarioChecker(source, env).check()
}

/** Reads and checks a scenario file (`-` reads `stdin`, the command's). */
export async function loadScenario(file: string, env: NodeJS.ProcessEnv = process.env, stdin: NodeJS.ReadableStream = process.stdin): Promise<Scenario> {
  const {readScenarioSource} = await import('../input/scenario-source.js')
  return checkScenario(await readScenarioSource(file, stdin), env)
}
