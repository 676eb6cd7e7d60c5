/**
 * Human renderings of transactions and status checks. Commands return the service's objects;
 * these only draw them.
 */
import {table} from './table.js'
import type {ProfileLabel} from '../profiles/presets.js'
import {type CheckoutSuccess, type Transaction, formatMinorUnits, isFinalStatus, isSuccessStatus, readId} from '../api/contract.js'

export {table} from './table.js'

export function describeStatus(status: string): string {
  const final = isFinalStatus(status)
  const success = isSuccessStatus(status)
  if (status === 'UNKNOWN') return 'UNKNOWN (critical: the state cannot be determined at present; not final)'
  return `${status} (${final ? 'final' : 'not final'}, ${success ? 'success' : 'not a success'})`
}

export function formatAmount(amount: string | number | undefined): string {
  if (amount === undefined || amount === '') return '(none)'
  return `${amount} minor units (${formatMinorUnits(amount)})`
}

/** The `Profile` row under a result: which profile and environment it was read from. */
function profileRow(profile: ProfileLabel | undefined): [string, string | undefined] {
  return ['Profile', profile ? `${profile.name} (${profile.env === 'production' ? 'PRODUCTION' : profile.env})` : undefined]
}

export function renderTransaction(tx: Transaction, profile?: ProfileLabel): string {
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
  ])
}

export function renderCheckoutSuccess(id: string, result: CheckoutSuccess, profile?: ProfileLabel): string {
  return table([
    ['Transaction', id],
    ['Status', describeStatus(result.status)],
    ['Reason', result.status_reason],
    ['Success', result.success ? 'yes' : 'no'],
    profileRow(profile),
  ])
}
