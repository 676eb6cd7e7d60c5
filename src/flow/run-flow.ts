/**
 * A whole payment flow, start to verdict: customer, card (for `card`), transaction start, the
 * approval page, the redirect back to a one-shot local listener (which also takes the
 * transaction's webhooks), then the status read from the service until it is conclusive.
 *
 * The final word always comes from the service (checkoutsuccess and the transaction), never from
 * the redirect: success and failure reach the same address (spec). Knows nothing of oclif; the
 * `flow` command and the smoke runner both call `runFlow`.
 */
import {
  type CheckoutSuccess,
  type CustomerRequest,
  type Product,
  type Transaction,
  type TransactionStartRequest,
  isConclusiveStatus,
  isFinalStatus,
  isSuccessStatus,
  lastFour,
  normalizePan,
  readId,
} from '../api/contract.js'
import {EXIT, InputError, InputErrors, InterruptedError, PaytxError, ResponseError} from '../errors.js'
import {type PaymentService, cardId as readCardId} from '../api/service.js'
import {APPROVAL_OUTCOMES, DEFAULT_TEST_CARD, testCardFor} from '../test-mode/outcomes.js'
import {formatDuration} from '../duration.js'
import {isAbsoluteHttpUrl} from '../http/url.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import type {RedirectListener, RedirectReceived} from './redirect-listener.js'
import {type Clock, isRetriableReadError, systemClock, waitForFinalStatus} from './wait-for-status.js'

export interface FlowOptions {
  product: Product
  /** Minor units. */
  amount: number
  /** Default: sample customer data (local and sandbox only). */
  customer?: {id: string} | {data: CustomerRequest}
  /** For card. Default on local and sandbox: the test card for the outcome. */
  card?: {id: string} | {pan: string; expiryMonth?: string; expiryYear?: string; holderName?: string}
  /** details.card_cvv; left out, the approval page asks for it. */
  cvv?: string
  descriptor?: string
  /** Default: a generated unique reference. */
  merchantReference?: string
  /** Merged into the transaction start request (`details` merged into details). */
  extraFields?: Record<string, unknown>
  /** The outcome to submit on the emulator's approval page; undefined: a person completes it. */
  approve?: string
  /** Open the approval page in the browser (BROWSER honoured); false prints it and waits. */
  openBrowser: boolean
  webhook: {mode: 'local'} | {mode: 'url'; url: string} | {mode: 'none'}
  /** 0 or undefined: a free port. */
  listenerPort?: number
  /** How long to wait, from the approval page on, for a conclusive status. */
  waitTimeoutMs: number
  /** Wait through SETTLEMENT_REQUESTED to SETTLEMENT_COMPLETED. */
  untilSettled: boolean
  /** Abort: the listener is closed and InterruptedError (exit 130) names the transaction. */
  signal?: AbortSignal
  /** Default `paytx`. */
  userAgent?: string
  /** Default 127.0.0.1. */
  customerIp?: string
}

export interface FlowWebhook {
  type: string
  transactionId?: string
  status?: string
  receivedAt: string
  duplicate: boolean
}

export interface FlowResult {
  exitCode: 0 | 3 | 4
  profile: string
  environment: string
  customerId: string
  cardId?: string
  cardLast4?: string
  transactionId: string
  product: Product
  amount: number
  merchantReference: string
  approvalUrl: string
  status: string
  final: boolean
  success: boolean
  statusReason: string
  redirect: {received: boolean; transactionId?: string; error?: string}
  webhooks: FlowWebhook[]
  /** Requests the listener refused (wrong path, token or transaction id). */
  rejectedRequests: number
  steps: {name: string; durationMs: number}[]
  durationMs: number
  /** The transaction as the service reported it last. */
  transaction: Transaction
}

export interface FlowReporter {
  start(step: string, text: string): void
  succeed(step: string, text: string): void
  fail(step: string, text: string): void
  info(text: string): void
}

export interface FlowDeps {
  reporter?: FlowReporter
  openUrl?: (url: string) => Promise<void>
  clock?: Clock
  /** How long to wait for the browser's redirect once the status is conclusive without it. */
  redirectGraceMs?: number
  /** How long to wait for the webhook of the final status after reading it. */
  webhookGraceMs?: number
  pollInitialDelayMs?: number
  pollMaxDelayMs?: number
  /** First pause between status reads while waiting for the redirect. */
  redirectWatchDelayMs?: number
}

type CheckoutReading = CheckoutSuccess

const LABEL_WIDTH = 24
const DEFAULT_REDIRECT_GRACE_MS = 5_000
const DEFAULT_WEBHOOK_GRACE_MS = 2_000
const WATCH_INITIAL_DELAY_MS = 2_000
const WATCH_MAX_DELAY_MS = 5_000

const silentReporter = {start() {}, succeed() {}, fail() {}, info() {}}

function line(label: string, value: string): string {
  return `${label.padEnd(Math.max(LABEL_WIDTH, label.length + 2))}${value}`
}

/** Request fields a flow option sets, so a validation problem (local or the service's) names the flag. */
export const FLOW_FIELD_FLAGS: Record<string, string> = {
  amount: '--amount',
  customer: '--customer',
  card: '--card',
  dynamic_descriptor: '--descriptor',
  merchant_reference: '--merchant-reference',
  'details.card_cvv': '--cvv-stdin',
  webhook_transaction_update: '--webhook-url',
}

const CARD_FIELD_FLAGS: Record<string, string> = {
  pan: '--pan-stdin',
  expiry_month: '--expiry-month',
  expiry_year: '--expiry-year',
  holder_name: '--holder-name',
}

function isLocalProfile(profile: ResolvedProfile): boolean {
  return profile.profile.env === 'local'
}

/** Checks everything that can be checked before a request is sent; throws InputError. */
export async function validateFlowOptions(profile: ResolvedProfile, options: FlowOptions): Promise<void> {
  const env = profile.profile.env
  if (options.approve !== undefined) {
    if (env !== 'local') {
      throw new InputError(`--approve works only against the emulator (a profile with env local); profile "${profile.name}" is ${env}.`, {
        flag: '--approve',
        hint: 'Leave --approve out and complete the approval page in the browser.',
      })
    }
    const allowed = APPROVAL_OUTCOMES[options.product]
    if (!allowed.includes(options.approve)) {
      throw new InputError(`--approve ${options.approve} is not offered by the ${options.product} approval page; allowed: ${allowed.join(', ')}.`, {
        flag: '--approve',
      })
    }
  }
  if (!Number.isSafeInteger(options.amount) || options.amount <= 0) {
    throw new InputError(`--amount must be a whole number of minor units greater than 0 (got ${options.amount}).`, {flag: '--amount'})
  }
  if (env === 'production' && !options.customer) {
    throw new InputError('On production the flow creates no sample customer; give --customer <id> or --customer-data <file>.', {flag: '--customer'})
  }
  if (options.product === 'card' && env === 'production' && !options.card) {
    throw new InputError('On production the card must be given: --card <id>, or the card number with --pan-stdin (or at the prompt).', {flag: '--pan-stdin'})
  }
  if (options.product !== 'card' && options.card) {
    throw new InputError(`A card is used only with --product card (got --product ${options.product}).`, {flag: '--card'})
  }
  if (options.webhook.mode === 'url' && !isAbsoluteHttpUrl(options.webhook.url)) {
    throw new InputError(`--webhook-url must be an absolute http(s) URL (got "${options.webhook.url}").`, {flag: '--webhook-url'})
  }

  const {validateCardRequest, validateCustomerRequest, validateTransactionStartRequest} = await import('../api/schemas.js')
  if (options.customer && 'data' in options.customer) {
    const issues = validateCustomerRequest({organisation: profile.profile.organisation, ...options.customer.data})
    if (issues.length > 0) {
      throw new InputErrors(
        issues.map((issue) => ({flag: '--customer-data', field: issue.path, message: `${issue.path} ${issue.message}`})),
        'Fix the customer file; the fields are those of `paytx customer create`.',
      )
    }
  }
  if (options.card && 'pan' in options.card) {
    const issues = validateCardRequest(cardRequest(profile, options, 'customer-to-be-created', options.card))
    if (issues.length > 0) {
      throw new InputErrors(issues.map((issue) => ({flag: CARD_FIELD_FLAGS[issue.path] ?? issue.path, message: issue.message})))
    }
  }
  const issues = validateTransactionStartRequest(startRequest(profile, options, {customer: 'customer', card: 'card', redirectUrl: 'http://127.0.0.1/', webhookUrl: undefined}))
  if (issues.length > 0) {
    throw new InputErrors(issues.map((issue) => ({flag: FLOW_FIELD_FLAGS[issue.path] ?? issue.path, message: issue.message})))
  }
}

function defaultExpiryYear(): string {
  return String(new Date().getUTCFullYear() + 3)
}

function cardRequest(profile: ResolvedProfile, options: FlowOptions, customerId: string, card: {pan: string; expiryMonth?: string; expiryYear?: string; holderName?: string}) {
  return {
    customer: customerId,
    pan: normalizePan(card.pan),
    expiry_month: card.expiryMonth ?? '12',
    expiry_year: card.expiryYear ?? defaultExpiryYear(),
    holder_name: card.holderName ?? customerName(options) ?? 'Jane Tester',
    ...(profile.profile.organisation ? {organisation: profile.profile.organisation} : {}),
  }
}

function customerName(options: FlowOptions): string | undefined {
  if (options.customer && 'data' in options.customer) {
    const name = [options.customer.data.first_name, options.customer.data.last_name].filter(Boolean).join(' ')
    return name || undefined
  }
  return undefined
}

function startRequest(
  profile: ResolvedProfile,
  options: FlowOptions,
  ids: {customer: string; card?: string; redirectUrl: string; webhookUrl?: string},
): TransactionStartRequest {
  return {
    ...(profile.profile.payment_profile ? {payment_profile: profile.profile.payment_profile} : {}),
    amount: options.amount,
    customer: ids.customer,
    customer_ip: options.customerIp ?? '127.0.0.1',
    ...(options.descriptor === undefined ? {} : {dynamic_descriptor: options.descriptor}),
    merchant_reference: options.merchantReference ?? 'flow-placeholder',
    payment_product: options.product,
    user_agent: options.userAgent ?? 'paytx',
    ...(options.product === 'card' ? {card: ids.card} : {}),
    ...(ids.webhookUrl ? {webhook_transaction_update: ids.webhookUrl} : {}),
    ...options.extraFields,
    details: {
      redirect_url: ids.redirectUrl,
      ...(options.cvv === undefined ? {} : {card_cvv: options.cvv}),
      ...((options.extraFields?.details as Record<string, unknown> | undefined) ?? {}),
    },
  }
}

function abortReason(signal: AbortSignal | undefined, transactionId: string | undefined): InterruptedError {
  return transactionId
    ? new InterruptedError(
        `Interrupted; transaction ${transactionId} was left as it is.`,
        `Look it up with \`paytx status ${transactionId}\` (add --wait to wait for its final status).`,
      )
    : new InterruptedError(signal?.reason instanceof InterruptedError ? signal.reason.message : 'Interrupted before a transaction was started.')
}

/** Races a promise against the signal, so Ctrl-C never waits for a slow answer. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, {once: true})
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

function describeReading(reading: {status: string; success: boolean}, untilSettled: boolean): string {
  if (isFinalStatus(reading.status)) return reading.success ? 'success' : 'not a success'
  if (isConclusiveStatus(reading.status, untilSettled)) return 'success (settlement still to come)'
  return 'not final'
}

export async function runFlow(service: PaymentService, profile: ResolvedProfile, options: FlowOptions, deps: FlowDeps = {}): Promise<FlowResult> {
  const reporter = deps.reporter ?? silentReporter
  const clock: Clock = deps.clock ?? systemClock
  const redirectGraceMs = deps.redirectGraceMs ?? DEFAULT_REDIRECT_GRACE_MS
  const webhookGraceMs = deps.webhookGraceMs ?? DEFAULT_WEBHOOK_GRACE_MS
  const signal = options.signal
  await validateFlowOptions(profile, options)

  const flowStarted = clock.now()
  const steps: FlowResult['steps'] = []
  let transactionId: string | undefined
  let listener: RedirectListener | undefined
  const webhookWaiters = new Set<() => void>()

  const step = async <T>(name: string, startText: string, run: () => Promise<T>, doneText: (value: T) => string): Promise<T> => {
    const began = clock.now()
    reporter.start(name, startText)
    try {
      const value = await abortable(run(), signal)
      steps.push({name, durationMs: clock.now() - began})
      reporter.succeed(name, doneText(value))
      return value
    } catch (error) {
      steps.push({name, durationMs: clock.now() - began})
      if (!signal?.aborted) reporter.fail(name, `${startText}: ${(error as Error).message}`)
      throw error
    }
  }

  try {
    const {startRedirectListener} = await import('./redirect-listener.js')
    let firstReading: Promise<CheckoutSuccess> | undefined
    const readAfterRedirect = () => {
      firstReading ??= service.checkoutSuccess(transactionId!)
      return firstReading
    }
    const statusWake = new EventTarget()
    listener = await startRedirectListener({
      port: options.listenerPort || undefined,
      describeOutcome: async () => {
        const reading = await readAfterRedirect()
        return {status: reading.status, success: reading.success === true, final: isFinalStatus(reading.status)}
      },
      onRejected: (request) => reporter.info(`listener refused ${request.method} ${request.path}: ${request.status} (${request.reason})`),
      onWebhook: (webhook) => {
        reporter.succeed('webhook', line('webhook received', `${webhook.status ?? webhook.type}${webhook.duplicate ? '  (duplicate)' : ''}`))
        for (const wake of webhookWaiters) wake()
        statusWake.dispatchEvent(new Event('wake'))
      },
    })
    const activeListener = listener

    // Customer
    const env = profile.profile.env
    let customerId: string
    const customerOption = options.customer
    if (customerOption && 'id' in customerOption) {
      customerId = customerOption.id
      reporter.succeed('customer', line('customer reused', customerId))
    } else {
      const data: CustomerRequest = customerOption
        ? {organisation: profile.profile.organisation, ...customerOption.data}
        : (await import('./sample-customer.js')).sampleCustomer(profile.profile.organisation)
      const customer = await step('customer', 'creating a customer', () => service.createCustomer(data), (created) => {
        const id = readId(created)
        return line('customer created', `${id ?? '(no id)'}  (${profile.name})`)
      })
      const id = readId(customer)
      if (!id) throw new ResponseError('The service created a customer but its answer has no id.')
      customerId = id
    }

    // Card
    let cardId: string | undefined
    let cardLast4: string | undefined
    if (options.product === 'card') {
      if (options.card && 'id' in options.card) {
        cardId = options.card.id
        reporter.succeed('card', line('card reused', cardId))
      } else {
        const given = options.card
        const pan = given ? given.pan : (testCardFor(options.approve ?? '') ?? DEFAULT_TEST_CARD).pan
        const body = cardRequest(profile, options, customerId, given ?? {pan})
        cardLast4 = lastFour(pan)
        const card = await step('card', 'tokenizing the card', () => service.tokenizeCard(body), (created) =>
          line('card tokenized', `${readCardId(created) ?? '(no id)'}  •••• ${cardLast4}${given ? '' : '  (test card)'}`),
        )
        cardId = readCardId(card)
        if (!cardId) throw new ResponseError('The card proxy answered without a card id (looked for id, _id and token).')
      }
    }

    // Transaction
    const webhookUrl =
      options.webhook.mode === 'local' ? activeListener.webhookUrl : options.webhook.mode === 'url' ? options.webhook.url : undefined
    if (options.webhook.mode === 'local' && !isLocalProfile(profile)) {
      reporter.info(`Webhooks go to ${activeListener.webhookUrl}, which a remote service cannot reach; use --webhook-url with a tunnel of your own.`)
    }
    const request = startRequest(profile, options, {customer: customerId, card: cardId, redirectUrl: activeListener.redirectUrl, webhookUrl})
    request.merchant_reference = options.merchantReference ?? (await import('../input/transaction-request.js')).generateMerchantReference()
    const started = await step('transaction', 'starting the transaction', () => service.startTransaction(request), (tx) =>
      line('transaction started', `${readId(tx) ?? '(no id)'}  ${tx.status}`),
    )
    transactionId = readId(started)
    if (!transactionId) throw new ResponseError('The service started a transaction but its answer has no id.')
    const id = transactionId
    activeListener.expectTransaction(id)
    const approvalUrl = started.details?.approval_url
    if (typeof approvalUrl !== 'string' || approvalUrl === '') {
      throw new ResponseError(`The service started transaction ${id} without details.approval_url.`)
    }

    // Approval page
    const approvalStarted = clock.now()
    const deadline = approvalStarted + options.waitTimeoutMs
    let delivery: Promise<number | Error> | undefined
    if (options.approve !== undefined) {
      const {completeApprovalPage, followRedirect} = await import('./approval-page.js')
      const outcome = options.approve
      const location = await step(
        'approval',
        `completing the approval page (${outcome})`,
        () => completeApprovalPage(approvalUrl, options.product, outcome, {cvv: options.cvv, timeoutMs: 30_000, signal}),
        () => line('approval page completed', outcome),
      )
      if (!location.startsWith(activeListener.redirectUrl)) {
        throw new ResponseError(`The approval page redirected to ${location}, not to the flow's redirect address.`)
      }
      // Requested like a browser following the 303, so the listener's own path is exercised.
      delivery = followRedirect(location, {timeoutMs: 30_000, signal}).catch((error: Error) => error)
      // The flow delivers this redirect itself: wait for it, so that a slow approval (a loaded
      // machine) that used up the wait time is not reported as having no redirect.
      await abortable(delivery, signal)
    } else if (options.openBrowser) {
      const open = deps.openUrl ?? (async (url: string) => (await import('../terminal/browser.js')).openInBrowser(url))
      reporter.start('approval', 'opening the approval page')
      try {
        await abortable(open(approvalUrl), signal)
        steps.push({name: 'approval', durationMs: clock.now() - approvalStarted})
        reporter.succeed('approval', line('approval page opened', approvalUrl))
      } catch (error) {
        if (signal?.aborted) throw error
        steps.push({name: 'approval', durationMs: clock.now() - approvalStarted})
        reporter.fail('approval', line('approval page', `${approvalUrl}  (${(error as Error).message}; open it yourself)`))
      }
      reporter.info('Complete the payment in the browser; waiting for the redirect (Ctrl-C to stop).')
    } else {
      steps.push({name: 'approval', durationMs: 0})
      reporter.succeed('approval', line('approval page', approvalUrl))
      reporter.info('Open the address above in a browser and complete the payment; waiting for the redirect (Ctrl-C to stop).')
    }

    // Redirect, watched together with the status: a transaction that ends without a redirect
    // (abandoned, or an approval finished elsewhere) must not leave the flow waiting forever.
    const redirectBegan = clock.now()
    reporter.start('redirect', 'waiting for the redirect')
    const waited = await waitForRedirect(activeListener, service, id, {deadline, clock, signal, redirectGraceMs, firstDelayMs: deps.redirectWatchDelayMs ?? WATCH_INITIAL_DELAY_MS})
    steps.push({name: 'redirect', durationMs: clock.now() - redirectBegan})
    const redirect = waited.redirect
    if (redirect?.error !== undefined) {
      reporter.fail('redirect', line('redirect with error', redirect.error))
    } else if (redirect) {
      reporter.succeed('redirect', line('redirect received', `transaction_id=${redirect.transactionId}`))
    } else {
      reporter.fail('redirect', line('no redirect', waited.reading ? `the transaction is ${waited.reading.status}` : `none within ${formatDuration(options.waitTimeoutMs)}`))
    }

    // Status, from the service
    const statusBegan = clock.now()
    reporter.start('status', 'reading the status')
    let initial: CheckoutReading
    if (redirect) initial = await abortable(readAfterRedirect(), signal)
    else initial = waited.reading ?? (await abortable(service.checkoutSuccess(id), signal))
    const waitedStatus = await waitForFinalStatus<CheckoutReading>(() => service.checkoutSuccess(id), {
      timeoutMs: Math.max(0, deadline - clock.now()),
      untilSettled: options.untilSettled,
      signal,
      clock,
      initial,
      initialDelayMs: deps.pollInitialDelayMs,
      maxDelayMs: deps.pollMaxDelayMs,
      onStatus: (reading, previous) => {
        if (!previous) return
        if (reading.status === 'UNKNOWN') {
          reporter.info(`Warning: status UNKNOWN: the service cannot determine the state at present (critical, not final); waiting until ${formatDuration(options.waitTimeoutMs)} have passed.`)
        } else reporter.info(line('status', reading.status))
      },
      onReadError: (error) => reporter.info(`Reading the status failed (${error.message}); trying again.`),
      wake: statusWake,
    })
    if (!waitedStatus.conclusive && waitedStatus.status === 'UNKNOWN' && initial.status === 'UNKNOWN') {
      reporter.info('Warning: the status stayed UNKNOWN: the service could not determine the state (critical).')
    }
    const transaction: Transaction = await abortable(service.getTransaction(id), signal)
    let reading: CheckoutReading = waitedStatus.reading
    // The transaction read last may be further on (e.g. settled in between): it wins.
    if (transaction.status && transaction.status !== reading.status) {
      reading = {status: transaction.status, status_reason: transaction.status_reason ?? '', success: isSuccessStatus(transaction.status)}
    }
    const final = isFinalStatus(reading.status)
    const success = reading.success === true
    const conclusive = isConclusiveStatus(reading.status, options.untilSettled)
    const exitCode: FlowResult['exitCode'] = !conclusive ? EXIT.notFinal : success ? EXIT.ok : EXIT.notSuccess
    steps.push({name: 'status', durationMs: clock.now() - statusBegan})

    // The webhook of the last change may still be on its way; give it a moment.
    if (options.webhook.mode === 'local') {
      await waitForWebhook(activeListener, webhookWaiters, (hooks) => hooks.some((hook) => hook.status === reading.status), webhookGraceMs, clock, signal)
    }

    const durationMs = clock.now() - flowStarted
    const verdict = `${line(conclusive ? 'final status' : 'status (not final)', `${reading.status}  ${describeReading({status: reading.status, success}, options.untilSettled)}`)}  (${formatDuration(durationMs)})`
    if (exitCode === EXIT.ok) reporter.succeed('status', verdict)
    else reporter.fail('status', exitCode === EXIT.notFinal ? `${verdict}; waiting ran out after ${formatDuration(options.waitTimeoutMs)}` : verdict)

    if (delivery) {
      const delivered = await delivery
      if (delivered instanceof Error) reporter.info(`Delivering the redirect to the listener failed: ${delivered.message}`)
    }

    const webhooks: FlowWebhook[] = activeListener.webhooks().map((hook) => ({
      type: hook.type,
      ...(hook.transactionId === undefined ? {} : {transactionId: hook.transactionId}),
      ...(hook.status === undefined ? {} : {status: hook.status}),
      receivedAt: hook.receivedAt,
      duplicate: hook.duplicate,
    }))
    return {
      exitCode,
      profile: profile.name,
      environment: env,
      customerId,
      ...(cardId === undefined ? {} : {cardId}),
      ...(cardLast4 === undefined ? {} : {cardLast4}),
      transactionId: id,
      product: options.product,
      amount: options.amount,
      merchantReference: request.merchant_reference!,
      approvalUrl,
      status: reading.status,
      final,
      success,
      statusReason: typeof reading.status_reason === 'string' ? reading.status_reason : '',
      redirect: {
        received: Boolean(redirect),
        ...(redirect?.transactionId === undefined ? {} : {transactionId: redirect.transactionId}),
        ...(redirect?.error === undefined ? {} : {error: redirect.error}),
      },
      webhooks,
      rejectedRequests: activeListener.rejected().length,
      steps,
      durationMs,
      transaction,
    }
  } catch (error) {
    if (signal?.aborted) throw abortReason(signal, transactionId)
    if (transactionId && error instanceof PaytxError && error.exitCode !== EXIT.input) {
      error.hint = `${error.hint ? `${error.hint} ` : ''}Transaction ${transactionId} was started; look it up with \`paytx status ${transactionId}\`.`
    }
    throw error
  } finally {
    await listener?.close()
  }
}

interface RedirectWait {
  redirect?: RedirectReceived
  /** The status that ended the wait without a redirect. */
  reading?: CheckoutReading
}

async function waitForRedirect(
  listener: RedirectListener,
  service: PaymentService,
  transactionId: string,
  options: {deadline: number; clock: Clock; signal?: AbortSignal; redirectGraceMs: number; firstDelayMs: number},
): Promise<RedirectWait> {
  const {clock} = options
  const local = new AbortController()
  const signal = options.signal ? AbortSignal.any([options.signal, local.signal]) : local.signal
  const redirect = listener.waitForRedirect(signal).then((received) => ({kind: 'redirect' as const, received}))
  // When the wait is over before the first race (a slow approval under load), `finally` aborts
  // this wait with no one listening; an unhandled rejection would end the whole process.
  redirect.catch(() => undefined)
  let delay = options.firstDelayMs
  try {
    for (;;) {
      const remaining = options.deadline - clock.now()
      if (remaining <= 0) {
        // A redirect that came while the time ran out still counts.
        const received = listener.redirect()
        return received ? {redirect: received} : {}
      }
      const tick = clock.sleep(Math.min(delay, remaining), signal).then(() => ({kind: 'tick' as const}))
      const first = await Promise.race([redirect, tick])
      if (first.kind === 'redirect') return {redirect: first.received}
      delay = Math.min(WATCH_MAX_DELAY_MS, Math.round(delay * 1.5))
      let reading: CheckoutReading
      try {
        reading = await abortable(service.checkoutSuccess(transactionId), signal)
      } catch (error) {
        if (signal.aborted || !isRetriableReadError(error)) throw error
        continue
      }
      if (isConclusiveStatus(reading.status)) {
        // The browser's redirect usually follows the final status within moments.
        const grace = clock
          .sleep(Math.min(options.redirectGraceMs, Math.max(0, options.deadline - clock.now())), signal)
          .then(() => ({kind: 'grace' as const}))
        const after = await Promise.race([redirect, grace])
        return after.kind === 'redirect' ? {redirect: after.received} : {reading}
      }
    }
  } finally {
    local.abort()
  }
}

async function waitForWebhook(
  listener: RedirectListener,
  waiters: Set<() => void>,
  done: (hooks: ReturnType<RedirectListener['webhooks']>) => boolean,
  graceMs: number,
  clock: Clock,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (done(listener.webhooks()) || graceMs <= 0) return
  const local = new AbortController()
  const combined = signal ? AbortSignal.any([signal, local.signal]) : local.signal
  await new Promise<void>((resolve, reject) => {
    const wake = () => {
      if (done(listener.webhooks())) finish()
    }
    const finish = () => {
      waiters.delete(wake)
      local.abort()
      resolve()
    }
    waiters.add(wake)
    clock.sleep(graceMs, combined).then(finish, (error) => {
      waiters.delete(wake)
      if (signal?.aborted) reject(error)
      else resolve()
    })
  })
}
