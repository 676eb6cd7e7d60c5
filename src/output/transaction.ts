/**
 * Human renderings of transactions and status checks. Commands return the service's objects;
 * these only draw them.
 */
import {table} from './table.js'
import type {ProfileLabel} from '../profiles/presets.js'
import {formatMinorUnits, isFinalStatus, isKnownStatus, isSuccessStatus, readId} from '../api/contract.js'
import type {CheckoutSuccess, Transaction} from '../api/schemas.js'
import {visibleText} from '../terminal/visible-text.js'

export {table} from './table.js'

const UNKNOWN_CRITICAL = 'UNKNOWN (critical: the state cannot be determined at present; not final)'

/**
 * A status outside the contract's ten: shown as such, never called a success or a failure, and
 * made visible (it goes into notes, where a line break in it would draw a line of its own).
 */
function unlistedStatus(status: string): string {
  return `${visibleText(status)} (a status paytx does not know)`
}

/** The warning for an answer whose status is none of the ten, or undefined when it is one of them. */
export function unlistedStatusWarning(status: unknown): string | undefined {
  if (typeof status === 'string' && isKnownStatus(status)) return undefined
  return `the service reported the status ${JSON.stringify(status) ?? 'undefined'}, which is none of the ten paytx knows; it is neither a success nor a failure to paytx.`
}

export function describeStatus(status: string): string {
  if (status === 'UNKNOWN') return UNKNOWN_CRITICAL
  if (!isKnownStatus(status)) return unlistedStatus(status)
  return `${status} (${isFinalStatus(status) ? 'final' : 'not final'}, ${isSuccessStatus(status) ? 'success' : 'not a success'})`
}

/** For checkoutsuccess, whose `success` field alone says whether it succeeded: the status says only whether it is final. */
function describeCheckoutStatus(status: string): string {
  if (status === 'UNKNOWN') return UNKNOWN_CRITICAL
  if (!isKnownStatus(status)) return unlistedStatus(status)
  return `${status} (${isFinalStatus(status) ? 'final' : 'not final'})`
}

export function formatAmount(amount: string | number | undefined): string {
  if (amount === undefined || amount === '') return '(none)'
  return `${amount} minor units (${formatMinorUnits(amount)})`
}

/** The `Profile` row under a result: which profile and environment it was read from. */
function profileRow(profile: ProfileLabel | undefined): [string, string | undefined] {
  return ['Profile', profile ? `${profile.name} (${profile.env === 'production' ? 'PRODUCTION' : profile.env})` : undefined]
}

/** `width`: the terminal's, so that long values wrap between words (none in a pipe). */
export function renderTransaction(tx: Transaction, profile?: ProfileLabel, options: {width?: number} = {}): string {
  const sender = tx.details?.sender
  return table([
    ['Transaction', readId(tx) ?? '(no id)'],
    ['Status', describeStatus(tx.status)],
    ['Reason', typeof tx.status_reason === 'string' ? tx.status_reason : undefined],
    ['Amount', formatAmount(tx.amount)],
    ['Product', tx.payment_product],
    ['Customer', tx.customer],
    ['Card', tx.card],
    ['Reference', tx.merchant_reference],
    ['Descriptor', tx.dynamic_descriptor],
    ['Approval URL', tx.details?.approval_url],
    ['Redirect URL', tx.details?.redirect_url],
    ['Issuer', tx.details?.issuer],
    ['Sender', sender ? [sender.holder, sender.iban, sender.bic].filter(Boolean).join(', ') : undefined],
    ['Created', tx.created_at],
    ['Updated', tx.last_status_update],
    profileRow(profile),
  ], options)
}

export function renderCheckoutSuccess(id: string, result: CheckoutSuccess, profile?: ProfileLabel, options: {width?: number} = {}): string {
  return table([
    ['Transaction', id],
    ['Status', describeCheckoutStatus(result.status)],
    ['Reason', result.status_reason],
    ['Success', result.success ? 'yes' : 'no'],
    profileRow(profile),
  ], options)
}
