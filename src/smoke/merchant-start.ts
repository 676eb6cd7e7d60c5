/**
 * A case whose payment the merchant's own service starts (`start:`): paytx sends the merchant's
 * request, reads the transaction id from its answer, completes the emulator's approval page with
 * the case's outcome (following its redirect back to the merchant, as a browser would), and reads
 * the status from the service until it is conclusive. It creates nothing itself.
 */
import {PRODUCTS, type Product, isFinalStatus, isSuccessStatus} from '../api/contract.js'
import type {CheckoutSuccess, Transaction} from '../api/schemas.js'
import type {PaymentService} from '../api/service.js'
import {ServiceError} from '../errors.js'
import type {FlowEventBody} from '../flow/events.js'
import {type Timer, systemTimer} from '../flow/timer.js'
import {APPROVAL_OUTCOMES} from '../test-mode/outcomes.js'
import type {Difference} from './expectations.js'
import {readJsonPath} from './json-path.js'
import {describeAnswer, merchantRequest} from './merchant-http.js'
import type {StartStep} from './merchant-scenario.js'
import {type Reference, resolveReferences} from './references.js'
import type {SmokeCase} from './scenario.js'

/** The approval page on a loaded machine; the redirect back to the merchant's page. */
const PAGE_TIMEOUT_MS = 30_000

/** A case that cannot go on because the merchant's service did not do its part: a failed expectation, not an error of paytx. */
export class CaseFailure extends Error {
  constructor(readonly difference: Difference) {
    super(`${difference.field}: expected ${difference.expected}, got ${difference.got}`)
    this.name = 'CaseFailure'
  }
}

export interface MerchantStartDeps {
  service: Pick<PaymentService, 'getTransaction' | 'checkoutSuccess'>
  timer?: Timer
  signal?: AbortSignal
  emit(event: FlowEventBody): void
  /** First pause between status reads (tests use short ones). */
  pollInitialDelayMs?: number
}

/** What a merchant-started case ended with, in the words the expectations read. */
export interface MerchantStartResult {
  transactionId: string
  product: string
  amount: number
  status: string
  final: boolean
  success: boolean
  statusReason: string
  /** The merchant's page the approval page sent the browser back to, and what it answered. */
  redirect?: {url: string; status?: number; error?: string}
  /** Product and amount the case names, against what the merchant started. */
  differences: Difference[]
  steps: {name: string; durationMs: number}[]
  durationMs: number
}

/** The merchant's request, and the transaction id its answer holds. */
export async function startThroughMerchant(step: StartStep, lookup: (reference: Reference) => string | undefined, signal?: AbortSignal): Promise<string> {
  const url = resolveReferences(step.url, lookup)
  const answer = await merchantRequest({
    method: step.method,
    url,
    headers: resolveReferences(step.headers, lookup),
    body: resolveReferences(step.body, lookup),
    timeoutMs: step.timeoutMs,
    signal,
  })
  const what = `${step.method} ${url}`
  if (answer.status < 200 || answer.status > 299) {
    throw new CaseFailure({field: 'start', expected: `a 2xx answer to ${what}`, got: describeAnswer(answer)})
  }
  const found = answer.isJson ? readJsonPath(answer.json, step.transactionId.steps) : {found: false as const}
  const id = found.found ? found.value : undefined
  if ((typeof id !== 'string' || id.trim() === '') && typeof id !== 'number') {
    const why = !answer.isJson ? 'an answer that is not JSON' : !found.found ? `no ${step.transactionId.written}` : `${step.transactionId.written} = ${JSON.stringify(id)}`
    throw new CaseFailure({
      field: 'start',
      expected: `the transaction id at ${step.transactionId.written} in the answer to ${what}`,
      got: `${why}: ${describeAnswer(answer)}`,
    })
  }
  return String(id).trim()
}

/** The transaction the merchant started, as the service knows it; an id it does not know fails the case. */
async function readStarted(deps: MerchantStartDeps, transactionId: string): Promise<Transaction> {
  try {
    return await deps.service.getTransaction(transactionId)
  } catch (error) {
    if (error instanceof ServiceError && error.status === 404) {
      throw new CaseFailure({field: 'start', expected: 'the id of a transaction the service knows', got: `${transactionId}, which the service does not know (HTTP 404)`})
    }
    throw error
  }
}

function checkWhatWasStarted(smokeCase: SmokeCase, transaction: Transaction): Difference[] {
  const differences: Difference[] = []
  if (smokeCase.product !== undefined && transaction.payment_product !== smokeCase.product) {
    differences.push({field: 'product', expected: smokeCase.product, got: transaction.payment_product})
  }
  if (smokeCase.amount !== undefined && Number(transaction.amount) !== smokeCase.amount) {
    differences.push({field: 'amount', expected: String(smokeCase.amount), got: String(transaction.amount)})
  }
  return differences
}

/** The approval page completed with the case's outcome, then its redirect requested like a browser would. */
async function approve(smokeCase: SmokeCase, transaction: Transaction, signal?: AbortSignal): Promise<MerchantStartResult['redirect']> {
  const product = transaction.payment_product as Product
  if (!(PRODUCTS as readonly string[]).includes(product) || !APPROVAL_OUTCOMES[product].includes(smokeCase.outcome)) {
    const offered = (PRODUCTS as readonly string[]).includes(product) ? APPROVAL_OUTCOMES[product].join(', ') : 'none'
    throw new CaseFailure({field: 'outcome', expected: `${smokeCase.outcome} on the ${product} approval page`, got: `a page that offers ${offered}`})
  }
  const approvalUrl = transaction.details?.approval_url
  if (typeof approvalUrl !== 'string' || approvalUrl === '') {
    throw new CaseFailure({field: 'start', expected: 'a transaction with details.approval_url', got: `transaction ${transaction.id} in ${transaction.status} without one`})
  }
  const {completeApprovalPage, followRedirect} = await import('../flow/approval-page.js')
  const location = await completeApprovalPage(approvalUrl, product, smokeCase.outcome, {cvv: smokeCase.cvv, timeoutMs: PAGE_TIMEOUT_MS, signal})
  if (!/^https?:/i.test(location)) return {url: location, error: 'not an http(s) address; not followed'}
  try {
    return {url: location, status: await followRedirect(location, {timeoutMs: PAGE_TIMEOUT_MS, signal})}
  } catch (error) {
    if (signal?.aborted) throw error
    return {url: location, error: (error as Error).message}
  }
}

/** The whole case up to its verdict from the service; `onStarted` hears the id as soon as it is known. */
export async function runMerchantStartedCase(
  smokeCase: SmokeCase,
  lookup: (reference: Reference) => string | undefined,
  deps: MerchantStartDeps,
  onStarted: (transactionId: string) => void,
): Promise<MerchantStartResult> {
  const timer = deps.timer ?? systemTimer
  const began = timer.now()
  const steps: MerchantStartResult['steps'] = []
  const timed = async <T>(name: 'transaction' | 'approval' | 'status', run: () => Promise<T>): Promise<T> => {
    const since = timer.now()
    deps.emit({kind: 'step-started', step: name, ...(name === 'approval' ? {outcome: smokeCase.outcome} : {})})
    try {
      return await run()
    } finally {
      steps.push({name, durationMs: timer.now() - since})
    }
  }
  const transactionId = await timed('transaction', () => startThroughMerchant(smokeCase.start!, lookup, deps.signal))
  onStarted(transactionId)
  const started = await readStarted(deps, transactionId)
  deps.emit({kind: 'transaction-started', transactionId, status: started.status})
  const redirect = await timed('approval', () => approve(smokeCase, started, deps.signal))
  const transaction = await timed('status', () => waitForVerdict(smokeCase, deps, transactionId, timer))
  return {
    transactionId,
    product: started.payment_product,
    amount: Number(started.amount),
    status: transaction.status,
    final: isFinalStatus(transaction.status),
    success: isSuccessStatus(transaction.status),
    statusReason: typeof transaction.status_reason === 'string' ? transaction.status_reason : '',
    redirect,
    differences: checkWhatWasStarted(smokeCase, started),
    steps,
    durationMs: timer.now() - began,
  }
}

/** checkoutsuccess until conclusive (or the case's wait runs out), then the transaction, whose status wins. */
async function waitForVerdict(smokeCase: SmokeCase, deps: MerchantStartDeps, transactionId: string, timer: Timer): Promise<Transaction> {
  const {waitForFinalStatus} = await import('../flow/wait-for-status.js')
  await waitForFinalStatus<CheckoutSuccess>(() => deps.service.checkoutSuccess(transactionId), {
    timeoutMs: smokeCase.waitTimeoutMs,
    until: smokeCase.untilSettled ? 'settled' : 'final',
    signal: deps.signal,
    timer,
    initialDelayMs: deps.pollInitialDelayMs,
    onStatus: (reading, previous) => {
      if (previous) deps.emit({kind: 'status-read', status: reading.status})
    },
    onReadError: (error) => deps.emit({kind: 'status-read-failed', message: error.message}),
  })
  return deps.service.getTransaction(transactionId)
}
