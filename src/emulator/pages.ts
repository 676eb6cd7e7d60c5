/**
 * Placeholder for the approval pages, owned by the emulator-pages branch; replaced by theirs on
 * merge. It implements the agreed interface just far enough for the server to run.
 */
import type {SofortSender, Transaction, TransactionStatus} from '../api/contract.js'
import {DUMMY_OUTCOMES, SOFORT_TEST_BANKS} from './outcomes.js'

export interface ApprovalPageContext {
  transaction: Transaction
  card?: {id: string; last4: string; brand: string; holder_name: string; expiry_month: string; expiry_year: string; testOutcome: string}
  needsCvv: boolean
  actionUrl: string
  message?: string
}

export type ApprovalDecision =
  | {kind: 'complete'; outcome: TransactionStatus; statusReason?: string; sender?: SofortSender}
  | {kind: 'invalid'; message: string}

const escape = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

export function renderApprovalPage(ctx: ApprovalPageContext): string {
  const product = ctx.transaction.payment_product
  const buttons =
    product === 'dummy'
      ? DUMMY_OUTCOMES.map((o) => `<button name="outcome" value="${o}">${o}</button>`).join('')
      : product === 'card'
        ? `${ctx.needsCvv ? '<input name="cvv">' : ''}<button name="action" value="pay">Pay</button><button name="action" value="cancel">Cancel</button>`
        : `<select name="bank">${SOFORT_TEST_BANKS.map((b) => `<option value="${b.id}">${escape(b.name)}</option>`).join('')}</select><button name="action" value="confirm">Confirm</button><button name="action" value="cancel">Cancel</button>`
  return `<!doctype html><title>Approve</title>${ctx.message ? `<p>${escape(ctx.message)}</p>` : ''}<form method="post" action="${escape(ctx.actionUrl)}">${buttons}</form>`
}

export function decideApproval(ctx: ApprovalPageContext, form: Record<string, string>): ApprovalDecision {
  const product = ctx.transaction.payment_product
  if (product === 'dummy') {
    const outcome = DUMMY_OUTCOMES.find((o) => o === form.outcome)
    return outcome ? {kind: 'complete', outcome} : {kind: 'invalid', message: 'Pick an outcome.'}
  }
  if (form.action === 'cancel') return {kind: 'complete', outcome: 'CANCELLED'}
  if (product === 'card') {
    if (form.action !== 'pay') return {kind: 'invalid', message: 'Pay or cancel.'}
    if (ctx.needsCvv && !/^\d{3,4}$/.test(form.cvv ?? '')) return {kind: 'invalid', message: 'Enter the 3 or 4 digit CVV.'}
    return {kind: 'complete', outcome: (ctx.card?.testOutcome ?? 'SETTLEMENT_COMPLETED') as TransactionStatus}
  }
  const bank = SOFORT_TEST_BANKS.find((b) => b.id === form.bank)
  if (form.action !== 'confirm' || !bank) return {kind: 'invalid', message: 'Pick a bank and confirm, or cancel.'}
  return {kind: 'complete', outcome: bank.outcome}
}

export function renderErrorPage(title: string, message: string): string {
  return `<!doctype html><title>${escape(title)}</title><h1>${escape(title)}</h1><p>${escape(message)}</p>`
}
