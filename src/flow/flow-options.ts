/**
 * What a flow is asked to do, the checks made before anything is sent, and the request bodies
 * built from it (the same builders serve the checks and the real requests).
 */
import type {Product} from '../api/contract.js'
import {normalizePan} from '../secrets/card-number.js'
import {redactUrl} from '../secrets/redact-url.js'
import type {CustomerRequest, TransactionStartRequest} from '../api/schemas.js'
import {InputError, InputErrors} from '../errors.js'
import {isAbsoluteHttpUrl} from '../http/url.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import {APPROVAL_OUTCOMES} from '../test-mode/outcomes.js'
import type {WaitUntil} from './wait-for-status.js'
import type {TunnelRequest} from '../tunnel/tunnel-program.js'

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
  /** tunnel: the listener's webhook path on the public address of a tunnel the flow starts and stops. */
  webhook: {mode: 'local'} | {mode: 'url'; url: string} | {mode: 'tunnel'; tunnel: TunnelRequest} | {mode: 'none'}
  /** 0 or undefined: a free port. */
  listenerPort?: number
  /** How long to wait, from the approval page on, for a conclusive status. */
  waitTimeoutMs: number
  /** final: stop at a conclusive status (SETTLEMENT_REQUESTED counts); settled: wait for SETTLEMENT_COMPLETED. */
  until: WaitUntil
  /** Abort: the listener is closed and InterruptedError (exit 130) names the transaction. */
  signal?: AbortSignal
  /** Default `paytx`. */
  userAgent?: string
  /** Default 127.0.0.1. */
  customerIp?: string
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
    throw new InputError(`--webhook-url must be an absolute http(s) URL (got "${redactUrl(options.webhook.url)}").`, {flag: '--webhook-url'})
  }

  const {validateCardRequest, validateCustomerRequest, validateTransactionStartRequest} = await import('../api/schemas.js')
  if (options.customer && 'data' in options.customer) {
    const issues = validateCustomerRequest({organisation: profile.profile.organisation, ...options.customer.data})
    if (issues.length > 0) {
      throw new InputErrors(
        issues.map((issue) => ({flag: '--customer-data', field: issue.path, message: `${issue.path} ${issue.message}`})),
        undefined,
        {kind: 'fix-customer-data'},
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

export function cardRequest(profile: ResolvedProfile, options: FlowOptions, customerId: string, card: {pan: string; expiryMonth?: string; expiryYear?: string; holderName?: string}) {
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

export function startRequest(
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
