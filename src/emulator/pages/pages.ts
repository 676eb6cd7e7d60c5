/**
 * The emulator's approval pages: what a payer sees at `details.approval_url`, and what a POST of
 * the page's form decides. Rendering and deciding are pure; the server owns the routes, the state
 * changes and the redirects.
 *
 * The pages are plain HTML forms that work without JavaScript, so a script completes one with a
 * single urlencoded POST of the fields in `outcomes.ts` (`approvalFormFields`).
 */
import {type TransactionStatus, formatMinorUnits, isKnownStatus} from '../../api/contract.js'
import type {SofortSender, Transaction} from '../../api/schemas.js'
import {escapeHtml, renderHtmlDocument} from '../../http/html.js'
import {sofortSender} from '../store/index.js'
import {STATUS_REASONS} from '../time/index.js'
import {DUMMY_OUTCOMES, SOFORT_TEST_BANKS, TEST_CARDS} from '../../test-mode/outcomes.js'

export interface ApprovalPageContext {
  /** The transaction as the API returns it. */
  transaction: Transaction
  /** The transaction's card (card product); only what may be shown, never the PAN. */
  card?: {id: string; last4: string; brand: string; holder_name: string; expiry_month: string; expiry_year: string; testOutcome: string}
  /** A card transaction started without `details.card_cvv`: the page asks for it. */
  needsCvv: boolean
  /** The path the form posts to. */
  actionUrl: string
}

export type ApprovalDecision =
  | {kind: 'complete'; outcome: TransactionStatus; statusReason?: string; sender?: SofortSender}
  /** The server re-renders the page with the message (HTTP 400). */
  | {kind: 'invalid'; message: string}

type DummyOutcome = (typeof DUMMY_OUTCOMES)[number]

/** What each dummy button is called and what it leads to, in the words a tester needs. */
export const DUMMY_OUTCOME_CHOICES: Record<DummyOutcome, {label: string; explanation: string; tone: 'success' | 'failure' | 'open'}> = {
  SETTLEMENT_COMPLETED: {label: 'Settle', explanation: 'SETTLEMENT_REQUESTED, later SETTLEMENT_COMPLETED', tone: 'success'},
  SETTLEMENT_REQUESTED: {label: 'Request settlement only', explanation: 'SETTLEMENT_REQUESTED (already a success) and stays there: the settlement never completes', tone: 'success'},
  PENDING: {label: 'Pending, then settle', explanation: 'PENDING, later SETTLEMENT_REQUESTED and SETTLEMENT_COMPLETED', tone: 'open'},
  DECLINED: {label: 'Decline', explanation: 'DECLINED by the processor (final)', tone: 'failure'},
  CANCELLED: {label: 'Cancel', explanation: 'CANCELLED by the customer (final)', tone: 'failure'},
  FAILED: {label: 'Fail', explanation: 'FAILED with a processing error (final)', tone: 'failure'},
  ABANDONED: {label: 'Abandon', explanation: 'ABANDONED by the customer (final)', tone: 'failure'},
  UNKNOWN: {label: 'Unknown', explanation: 'UNKNOWN: a critical state that is not final', tone: 'open'},
}


const PRODUCT_TITLES: Record<string, {title: string; lead: string}> = {
  dummy: {title: 'Dummy payment', lead: 'Test product: choose how this payment ends.'},
  card: {title: 'Card payment', lead: 'Confirm the payment with your card.'},
  sofort: {title: 'Pay by bank transfer (SOFORT)', lead: 'Choose your bank and confirm the transfer.'},
}

export function renderApprovalPage(ctx: ApprovalPageContext, options: {error?: string} = {}): string {
  const tx = ctx.transaction
  const product = PRODUCT_TITLES[tx.payment_product] ?? {title: 'Payment', lead: ''}
  const body = `<p class="brand">paytx emulator · approval</p>
<div class="panel">
<h1>${escapeHtml(product.title)}</h1>
<p class="lead">${escapeHtml(product.lead)}</p>
<p class="amount" id="amount">${escapeHtml(formatAmount(tx.amount))}</p>
${renderSummary(tx)}
${options.error ? `<p class="error" role="alert" id="form-error">${escapeHtml(options.error)}</p>` : ''}
${renderProductForm(ctx, options)}
</div>
<footer>Emulated by paytx. No real money moves.</footer>`
  return renderHtmlDocument(`${product.title} · paytx emulator`, body)
}

export function renderErrorPage(title: string, message: string): string {
  const body = `<p class="brand">paytx emulator</p>
<div class="panel">
<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
</div>`
  return renderHtmlDocument(`${title} · paytx emulator`, body)
}

export function decideApproval(ctx: ApprovalPageContext, form: Record<string, string>): ApprovalDecision {
  switch (ctx.transaction.payment_product) {
    case 'dummy':
      return decideDummy(form)
    case 'card':
      return decideCard(ctx, form)
    case 'sofort':
      return decideSofort(ctx, form)
    default:
      return {kind: 'invalid', message: `The product "${ctx.transaction.payment_product}" has no approval page.`}
  }
}

function decideDummy(form: Record<string, string>): ApprovalDecision {
  const outcome = field(form, 'outcome')
  if (!(DUMMY_OUTCOMES as readonly string[]).includes(outcome)) {
    return invalid(`Unknown outcome ${describeValue(outcome)}; choose one of ${DUMMY_OUTCOMES.join(', ')}.`)
  }
  return complete(outcome as DummyOutcome)
}

function decideCard(ctx: ApprovalPageContext, form: Record<string, string>): ApprovalDecision {
  const action = field(form, 'action')
  if (action === 'cancel') return complete('CANCELLED')
  if (action !== 'pay') return invalid(`Unknown action ${describeValue(action)}; use pay or cancel.`)
  if (!ctx.card) return invalid('The card of this transaction is unknown; cancel the payment.')
  if (ctx.needsCvv && !/^\d{3,4}$/.test(field(form, 'cvv'))) {
    return invalid('Enter the 3 or 4 digit security code (CVV) of your card.')
  }
  // Any other valid number approves, as on the earlier sandbox.
  const outcome = isKnownStatus(ctx.card.testOutcome) ? ctx.card.testOutcome : 'SETTLEMENT_COMPLETED'
  const failed = outcome === 'DECLINED' || outcome === 'FAILED'
  return complete(outcome, failed ? `${STATUS_REASONS[outcome]} (test card ending ${ctx.card.last4})` : undefined)
}

function decideSofort(ctx: ApprovalPageContext, form: Record<string, string>): ApprovalDecision {
  const action = field(form, 'action')
  if (action === 'cancel') return complete('CANCELLED')
  if (action !== 'confirm') return invalid(`Unknown action ${describeValue(action)}; use confirm or cancel.`)
  const bankId = field(form, 'bank')
  const bank = SOFORT_TEST_BANKS.find((candidate) => candidate.id === bankId)
  if (!bank) {
    return invalid(`Unknown bank ${describeValue(bankId)}; choose one of ${SOFORT_TEST_BANKS.map((b) => b.id).join(', ')}.`)
  }
  const reason = bank.outcome === 'DECLINED' ? `declined by ${bank.name}` : undefined
  return {...complete(bank.outcome, reason), sender: sofortSender(ctx.transaction, bank)}
}

function renderSummary(tx: Transaction): string {
  const rows: [string, string, string?][] = [
    ['Merchant', tx.dynamic_descriptor ?? ''],
    ['Reference', tx.merchant_reference ?? ''],
    ['Product', tx.payment_product],
    ['Status', tx.status, 'status'],
    ['Transaction', tx.id, 'code'],
  ]
  const items = rows
    .filter(([, value]) => value !== '')
    .map(([term, value, kind]) => {
      const shown = kind === 'status' ? `<span class="status" id="status">${escapeHtml(value)}</span>` : kind === 'code' ? `<code id="transaction-id">${escapeHtml(value)}</code>` : escapeHtml(value)
      return `<dt>${escapeHtml(term)}</dt><dd>${shown}</dd>`
    })
  return `<dl class="summary">${items.join('')}</dl>`
}

function renderProductForm(ctx: ApprovalPageContext, options: {error?: string}): string {
  switch (ctx.transaction.payment_product) {
    case 'dummy':
      return renderDummyForm(ctx)
    case 'card':
      return renderCardForm(ctx, options)
    case 'sofort':
      return renderSofortForm(ctx)
    default:
      return `<p>This product has no approval page in the emulator.</p>`
  }
}

function renderDummyForm(ctx: ApprovalPageContext): string {
  const buttons = DUMMY_OUTCOMES.map((outcome) => {
    const choice = DUMMY_OUTCOME_CHOICES[outcome]
    return `<li class="${choice.tone}"><button type="submit" name="outcome" value="${escapeHtml(outcome)}"><span class="label">${escapeHtml(choice.label)}</span><span class="hint">${escapeHtml(choice.explanation)}</span></button></li>`
  })
  return `<form method="post" action="${escapeHtml(ctx.actionUrl)}">
<h2 id="outcomes-heading">Choose the outcome</h2>
<ul class="outcomes" aria-labelledby="outcomes-heading">
${buttons.join('\n')}
</ul>
</form>`
}

function renderCardForm(ctx: ApprovalPageContext, options: {error?: string}): string {
  const card = ctx.card
  const face = card
    ? `<div class="card-face" role="group" aria-label="Your card">
<div>${escapeHtml(brandName(card.brand))}</div>
<div class="number" id="card-number">•••• •••• •••• ${escapeHtml(card.last4)}</div>
<div class="meta"><span id="card-holder">${escapeHtml(card.holder_name)}</span><span>Valid thru <span id="card-expiry">${escapeHtml(`${card.expiry_month.padStart(2, '0')}/${card.expiry_year}`)}</span></span></div>
</div>`
    : `<p class="error">The card of this transaction is unknown.</p>`
  const cvv = ctx.needsCvv
    ? `<label for="cvv">Security code (CVV) <span class="hint">3 or 4 digits on the back of the card</span></label>
<input type="password" id="cvv" name="cvv" inputmode="numeric" autocomplete="cc-csc" pattern="[0-9]{3,4}" minlength="3" maxlength="4" required${options.error ? ' aria-invalid="true" aria-describedby="form-error"' : ''}>`
    : `<p class="hint">The security code was given when the payment started.</p>`
  return `<form method="post" action="${escapeHtml(ctx.actionUrl)}">
${face}
${cvv}
<div class="actions">
<button type="submit" class="primary" name="action" value="pay">Pay ${escapeHtml(formatAmount(ctx.transaction.amount))}</button>
<button type="submit" class="secondary" name="action" value="cancel" formnovalidate>Cancel payment</button>
</div>
</form>
${renderTestCards(ctx)}`
}

function renderTestCards(ctx: ApprovalPageContext): string {
  const rows = TEST_CARDS.map(
    (card) => `<tr><td><code>${escapeHtml(card.pan.replace(/(\d{4})(?=\d)/g, '$1 '))}</code></td><td>${escapeHtml(card.description)}</td></tr>`,
  )
  const current = ctx.card ? `<p class="hint" id="card-outcome">${escapeHtml(describeCardOutcome(ctx.card))}</p>` : ''
  return `<h2>Test cards</h2>
<p class="hint">The card number decides the outcome; any other valid number approves. Any 3 or 4 digit CVV is accepted.</p>
<table><thead><tr><th scope="col">Card number</th><th scope="col">Paying with it</th></tr></thead>
<tbody>${rows.join('')}</tbody></table>
${current}`
}

function describeCardOutcome(card: NonNullable<ApprovalPageContext['card']>): string {
  const testCard = TEST_CARDS.find((candidate) => candidate.outcome === card.testOutcome)
  const what = testCard ? `it ${testCard.description}` : `paying leads to ${card.testOutcome}`
  return `This payment's card ends in ${card.last4}: ${what}.`
}

function renderSofortForm(ctx: ApprovalPageContext): string {
  const banks = SOFORT_TEST_BANKS.map(
    (bank, index) => `<label><input type="radio" name="bank" value="${escapeHtml(bank.id)}"${index === 0 ? ' checked' : ''}><span><strong>${escapeHtml(bank.name)}</strong><span class="hint">BIC ${escapeHtml(bank.bic)} · bank code ${escapeHtml(bank.bank_code)} · ${bank.outcome === 'DECLINED' ? 'declines the transfer: DECLINED' : 'confirms: SETTLEMENT_REQUESTED, later SETTLEMENT_COMPLETED'}</span></span></label>`,
  )
  return `<form method="post" action="${escapeHtml(ctx.actionUrl)}">
<fieldset class="banks">
<legend>Your bank</legend>
${banks.join('\n')}
</fieldset>
<div class="actions">
<button type="submit" class="primary" name="action" value="confirm">Confirm transfer</button>
<button type="submit" class="secondary" name="action" value="cancel">Cancel payment</button>
</div>
</form>`
}

function formatAmount(amount: string): string {
  return `${formatMinorUnits(amount)} EUR`
}

const BRAND_NAMES: Record<string, string> = {visa: 'VISA', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover', jcb: 'JCB', diners: 'Diners Club', maestro: 'Maestro'}

function brandName(brand: string): string {
  return BRAND_NAMES[brand] ?? (brand ? brand[0].toUpperCase() + brand.slice(1) : 'Card')
}

function field(form: Record<string, string>, name: string): string {
  const value = form[name]
  return typeof value === 'string' ? value.trim() : ''
}

function describeValue(value: string): string {
  return value === '' ? '(none given)' : JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)
}

type Completion = Extract<ApprovalDecision, {kind: 'complete'}>

/** Without a reason of its own, the state machine gives the status its usual one. */
function complete(outcome: TransactionStatus, statusReason?: string): Completion {
  return statusReason ? {kind: 'complete', outcome, statusReason} : {kind: 'complete', outcome}
}

function invalid(message: string): ApprovalDecision {
  return {kind: 'invalid', message}
}
