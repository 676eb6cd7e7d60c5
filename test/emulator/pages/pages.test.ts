import {describe, expect, it} from 'vitest'

import type {Transaction} from '../../../src/api/schemas.js'
import {DUMMY_OUTCOMES, SOFORT_TEST_BANKS, TEST_CARDS} from '../../../src/test-mode/outcomes.js'
import {
  type ApprovalPageContext,
  DUMMY_OUTCOME_CHOICES,
  decideApproval,
  renderApprovalPage,
  renderErrorPage,
} from '../../../src/emulator/pages/index.js'
import {SAMPLE_SENDER_HOLDER, germanIban} from '../../../src/emulator/store/index.js'

const TX_ID = '9a2e1c3d-4b5f-4a6b-8c7d-0e1f2a3b4c5d'
const XSS = `<script>alert("x")</script>'&`

function transaction(product: string, extra: Partial<Transaction> = {}): Transaction {
  return {
    id: TX_ID,
    payment_product: product,
    amount: '1499',
    dynamic_descriptor: 'Order 42',
    merchant_reference: 'ref-42',
    details: {redirect_url: 'http://127.0.0.1:9/done', approval_url: `http://127.0.0.1:9/v1/transaction/${TX_ID}/authorize`},
    status: 'IN_PROGRESS',
    created_at: '2025-01-01T00:00:00.000Z',
    last_status_update: '2025-01-01T00:00:00.000Z',
    ...extra,
  }
}

const APPROVING_CARD = {id: 'card-1', last4: '3153', brand: 'visa', holder_name: 'Erika Mustermann', expiry_month: '3', expiry_year: '2030', testOutcome: 'SETTLEMENT_COMPLETED'}

function context(product: string, overrides: Partial<ApprovalPageContext> = {}): ApprovalPageContext {
  return {
    transaction: transaction(product),
    card: product === 'card' ? APPROVING_CARD : undefined,
    needsCvv: false,
    actionUrl: `/v1/transaction/${TX_ID}/authorize`,
    ...overrides,
  }
}

/** Independent IBAN check (ISO 13616): move the first four characters to the end, mod 97 is 1. */
function ibanValid(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4)
  const digits = [...rearranged].map((ch) => (/[A-Z]/.test(ch) ? String(ch.charCodeAt(0) - 55) : ch)).join('')
  let remainder = 0
  for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97
  return remainder === 1
}

describe('renderApprovalPage', () => {
  it('shows the amount in EUR, the descriptor, reference, product, status and transaction id on every page', () => {
    for (const product of ['dummy', 'card', 'sofort']) {
      const html = renderApprovalPage(context(product))
      expect(html).toMatch(/^<!doctype html>/)
      expect(html).toContain('14.99 EUR')
      expect(html).toContain('Order 42')
      expect(html).toContain('ref-42')
      expect(html).toContain(`<code id="transaction-id">${TX_ID}</code>`)
      expect(html).toContain('<span class="status" id="status">IN_PROGRESS</span>')
      expect(html).toContain(`<dd>${product}</dd>`)
      expect(html).toContain(`<form method="post" action="/v1/transaction/${TX_ID}/authorize">`)
      expect(html).not.toContain('<script')
    }
  })

  it('formats small amounts with leading zeros', () => {
    const html = renderApprovalPage({...context('dummy'), transaction: transaction('dummy', {amount: '14'})})
    expect(html).toContain('0.14 EUR')
  })

  it('offers the dummy page a submit button per outcome, each with its explanation', () => {
    const html = renderApprovalPage(context('dummy'))
    for (const outcome of DUMMY_OUTCOMES) {
      const choice = DUMMY_OUTCOME_CHOICES[outcome]
      expect(html).toContain(`<button type="submit" name="outcome" value="${outcome}"><span class="label">${choice.label}</span><span class="hint">${choice.explanation}</span></button>`)
    }
    expect(html.match(/name="outcome"/g)).toHaveLength(DUMMY_OUTCOMES.length)
    expect(html).toContain('SETTLEMENT_REQUESTED, later SETTLEMENT_COMPLETED')
  })

  it('shows the card by brand, last four, holder and expiry, with a CVV field only when needed', () => {
    const withCvv = renderApprovalPage(context('card', {needsCvv: true}))
    expect(withCvv).toContain('VISA')
    expect(withCvv).toContain('•••• •••• •••• 3153')
    expect(withCvv).toContain('Erika Mustermann')
    expect(withCvv).toContain('<span id="card-expiry">03/2030</span>')
    expect(withCvv).toMatch(/<label for="cvv">Security code \(CVV\)/)
    expect(withCvv).toMatch(/<input type="password" id="cvv" name="cvv"[^>]* required/)
    expect(withCvv).toContain('name="action" value="pay">Pay 14.99 EUR</button>')
    expect(withCvv).toContain('name="action" value="cancel" formnovalidate>')

    const withoutCvv = renderApprovalPage(context('card', {needsCvv: false}))
    expect(withoutCvv).not.toContain('name="cvv"')
    expect(withoutCvv).toContain('The security code was given when the payment started.')
    expect(withoutCvv).toContain('name="action" value="pay"')
  })

  it('lists the test card numbers and what each does, and what this card will do', () => {
    const html = renderApprovalPage(context('card', {card: {...APPROVING_CARD, last4: '0002', testOutcome: 'DECLINED'}}))
    for (const card of TEST_CARDS) {
      expect(html).toContain(card.pan.replace(/(\d{4})(?=\d)/g, '$1 '))
      expect(html).toContain(card.description)
    }
    expect(html).toContain(`<p class="hint" id="card-outcome">This payment&#39;s card ends in 0002: it is declined by the processor: DECLINED.</p>`)
    const pending = renderApprovalPage(context('card', {card: {...APPROVING_CARD, last4: '0259', testOutcome: 'PENDING'}}))
    expect(pending).toContain(`This payment&#39;s card ends in 0259: it goes PENDING first, then settles.`)
    const other = renderApprovalPage(context('card', {card: {...APPROVING_CARD, last4: '1111', testOutcome: 'UNKNOWN'}}))
    expect(other).toContain(`This payment&#39;s card ends in 1111: paying leads to UNKNOWN.`)
  })

  it('says so when a card transaction has no known card', () => {
    const html = renderApprovalPage(context('card', {card: undefined}))
    expect(html).toContain('The card of this transaction is unknown.')
  })

  it('offers the sofort page a radio per test bank (the first chosen), confirm and cancel', () => {
    const html = renderApprovalPage(context('sofort'))
    for (const [index, bank] of SOFORT_TEST_BANKS.entries()) {
      expect(html).toContain(`<input type="radio" name="bank" value="${bank.id}"${index === 0 ? ' checked' : ''}>`)
      expect(html).toContain(bank.name)
      expect(html).toContain(bank.bic)
    }
    expect(html).toContain('<legend>Your bank</legend>')
    expect(html).toContain('name="action" value="confirm"')
    expect(html).toContain('name="action" value="cancel"')
  })

  it('shows an error message as an alert and marks the CVV field invalid', () => {
    const html = renderApprovalPage(context('card', {needsCvv: true}), {error: 'Enter the CVV.'})
    expect(html).toContain('<p class="error" role="alert" id="form-error">Enter the CVV.</p>')
    expect(html).toMatch(/name="cvv"[^>]*aria-invalid="true" aria-describedby="form-error"/)
    expect(renderApprovalPage(context('card', {needsCvv: true}))).not.toContain('role="alert"')
  })

  it('escapes every value that comes from API input', () => {
    const tx = transaction('card', {dynamic_descriptor: XSS, merchant_reference: XSS, id: `id${XSS}`, status: XSS, amount: XSS})
    const html = renderApprovalPage(
      {transaction: tx, card: {...APPROVING_CARD, holder_name: XSS, brand: XSS, last4: XSS, testOutcome: XSS}, needsCvv: true, actionUrl: `/x"><script>alert(1)</script>`},
      {error: XSS},
    )
    expect(html).not.toContain('<script')
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;&amp;')
    expect(html).toContain('action="/x&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"')

    for (const product of ['dummy', 'sofort', XSS]) {
      const page = renderApprovalPage({...context('dummy'), transaction: transaction(product, {dynamic_descriptor: XSS})})
      expect(page).not.toContain('<script')
    }
  })

  it('never renders the CVV it was given', () => {
    const html = renderApprovalPage(context('card', {needsCvv: true}), {error: 'Enter the 3 or 4 digit security code (CVV) of your card.'})
    expect(html).not.toMatch(/name="cvv"[^>]*value=/)
  })
})

describe('renderErrorPage', () => {
  it('renders a complete document with the escaped title and message', () => {
    const html = renderErrorPage(`Unknown ${XSS}`, `No transaction ${XSS}`)
    expect(html).toMatch(/^<!doctype html>/)
    expect(html).not.toContain('<script')
    expect(html).toContain('<h1>Unknown &lt;script&gt;')
    expect(html).toContain('<p class="error" role="alert">No transaction &lt;script&gt;')
    expect(html).toContain('<title>Unknown &lt;script&gt;')
  })
})

describe('decideApproval: dummy', () => {
  it('completes with each offered outcome', () => {
    for (const outcome of DUMMY_OUTCOMES) {
      const decision = decideApproval(context('dummy'), {outcome})
      expect(decision).toMatchObject({kind: 'complete', outcome})
    }
  })

  it('leaves the status reason to the state machine', () => {
    expect(decideApproval(context('dummy'), {outcome: 'DECLINED'})).toEqual({kind: 'complete', outcome: 'DECLINED'})
    expect(decideApproval(context('dummy'), {outcome: 'SETTLEMENT_COMPLETED'})).toEqual({kind: 'complete', outcome: 'SETTLEMENT_COMPLETED'})
  })

  it('rejects an unknown, missing or non-offered outcome, naming the allowed ones', () => {
    for (const form of [{outcome: 'PAID'}, {}, {outcome: 'INITIATED'}, {outcome: 'settlement_completed'}] as Record<string, string>[]) {
      const decision = decideApproval(context('dummy'), form)
      expect(decision.kind).toBe('invalid')
      expect(decision.kind === 'invalid' && decision.message).toContain('SETTLEMENT_COMPLETED, SETTLEMENT_REQUESTED, PENDING')
    }
    expect(decideApproval(context('dummy'), {outcome: 'PAID'})).toMatchObject({message: expect.stringContaining('Unknown outcome "PAID"')})
    expect(decideApproval(context('dummy'), {})).toMatchObject({message: expect.stringContaining('(none given)')})
  })
})

describe('decideApproval: card', () => {
  it('pays with the outcome of the test card', () => {
    for (const card of TEST_CARDS) {
      const ctx = context('card', {card: {...APPROVING_CARD, last4: card.pan.slice(-4), testOutcome: card.outcome}})
      expect(decideApproval(ctx, {action: 'pay'})).toMatchObject({kind: 'complete', outcome: card.outcome})
    }
    const declined = decideApproval(context('card', {card: {...APPROVING_CARD, last4: '0002', testOutcome: 'DECLINED'}}), {action: 'pay'})
    expect(declined).toEqual({kind: 'complete', outcome: 'DECLINED', statusReason: 'declined by the processor (test card ending 0002)'})
    const failed = decideApproval(context('card', {card: {...APPROVING_CARD, last4: '0119', testOutcome: 'FAILED'}}), {action: 'pay'})
    expect(failed).toEqual({kind: 'complete', outcome: 'FAILED', statusReason: 'processing error (test card ending 0119)'})
  })

  it('approves a card whose test outcome is not a status', () => {
    expect(decideApproval(context('card', {card: {...APPROVING_CARD, testOutcome: 'whatever'}}), {action: 'pay'})).toEqual({kind: 'complete', outcome: 'SETTLEMENT_COMPLETED'})
  })

  it('requires a 3 or 4 digit CVV when the page asks for it', () => {
    const ctx = context('card', {needsCvv: true})
    for (const cvv of [undefined, '', '12', '12345', 'abc', '12a']) {
      const form: Record<string, string> = {action: 'pay'}
      if (cvv !== undefined) form.cvv = cvv
      expect(decideApproval(ctx, form)).toEqual({kind: 'invalid', message: 'Enter the 3 or 4 digit security code (CVV) of your card.'})
    }
    expect(decideApproval(ctx, {action: 'pay', cvv: '123'})).toMatchObject({kind: 'complete', outcome: 'SETTLEMENT_COMPLETED'})
    expect(decideApproval(ctx, {action: 'pay', cvv: '1234'})).toMatchObject({kind: 'complete', outcome: 'SETTLEMENT_COMPLETED'})
  })

  it('ignores the cvv field when the CVV was given at start', () => {
    expect(decideApproval(context('card', {needsCvv: false}), {action: 'pay'})).toMatchObject({kind: 'complete', outcome: 'SETTLEMENT_COMPLETED'})
    expect(decideApproval(context('card', {needsCvv: false}), {action: 'pay', cvv: 'x'})).toMatchObject({kind: 'complete'})
  })

  it('cancels without a CVV', () => {
    expect(decideApproval(context('card', {needsCvv: true}), {action: 'cancel'})).toEqual({kind: 'complete', outcome: 'CANCELLED'})
  })

  it('rejects an unknown or missing action and a payment without a known card', () => {
    expect(decideApproval(context('card'), {action: 'refund'})).toEqual({kind: 'invalid', message: 'Unknown action "refund"; use pay or cancel.'})
    expect(decideApproval(context('card'), {outcome: 'DECLINED'})).toEqual({kind: 'invalid', message: 'Unknown action (none given); use pay or cancel.'})
    expect(decideApproval(context('card', {card: undefined}), {action: 'pay', cvv: '123'})).toMatchObject({kind: 'invalid', message: expect.stringContaining('card of this transaction is unknown')})
  })
})

describe('decideApproval: sofort', () => {
  it('confirms at each bank with its outcome and fills the sender', () => {
    for (const bank of SOFORT_TEST_BANKS) {
      const decision = decideApproval(context('sofort'), {action: 'confirm', bank: bank.id})
      expect(decision).toMatchObject({kind: 'complete', outcome: bank.outcome})
      if (decision.kind !== 'complete') throw new Error('not complete')
      const sender = decision.sender!
      expect(sender).toMatchObject({country_code: 'DE', bic: bank.bic, bank_name: bank.name, bank_code: bank.bank_code, holder: SAMPLE_SENDER_HOLDER})
      expect(sender.account_number).toMatch(/^\d{10}$/)
      expect(sender.iban).toBe(`DE${sender.iban.slice(2, 4)}${bank.bank_code}${sender.account_number}`)
      expect(ibanValid(sender.iban)).toBe(true)
    }
    expect(decideApproval(context('sofort'), {action: 'confirm', bank: 'declinebank'})).toMatchObject({statusReason: 'declined by Testbank (declines)'})
  })

  it('derives the same account from the same transaction and another from another', () => {
    const first = decideApproval(context('sofort'), {action: 'confirm', bank: 'demobank'})
    const again = decideApproval(context('sofort'), {action: 'confirm', bank: 'demobank'})
    const other = decideApproval({...context('sofort'), transaction: transaction('sofort', {id: 'another'})}, {action: 'confirm', bank: 'demobank'})
    const account = (d: typeof first) => (d.kind === 'complete' ? d.sender?.account_number : undefined)
    expect(account(first)).toBe(account(again))
    expect(account(first)).not.toBe(account(other))
  })

  it('keeps the customer name the transaction already carries as holder', () => {
    const tx = transaction('sofort', {details: {redirect_url: 'http://127.0.0.1:9/', sender: {country_code: '', iban: '', bic: '', bank_name: '', bank_code: '', account_number: '', holder: 'Jan Jansen'}}})
    const decision = decideApproval({...context('sofort'), transaction: tx}, {action: 'confirm', bank: 'musterbank'})
    expect(decision).toMatchObject({kind: 'complete', sender: {holder: 'Jan Jansen', bank_name: 'Musterbank Berlin'}})
  })

  it('cancels without a bank and without a sender', () => {
    expect(decideApproval(context('sofort'), {action: 'cancel'})).toEqual({kind: 'complete', outcome: 'CANCELLED'})
  })

  it('rejects an unknown bank or action', () => {
    expect(decideApproval(context('sofort'), {action: 'confirm', bank: 'nobank'})).toEqual({kind: 'invalid', message: 'Unknown bank "nobank"; choose one of demobank, musterbank, declinebank.'})
    expect(decideApproval(context('sofort'), {action: 'confirm'})).toMatchObject({kind: 'invalid', message: expect.stringContaining('Unknown bank (none given)')})
    expect(decideApproval(context('sofort'), {action: 'pay', bank: 'demobank'})).toEqual({kind: 'invalid', message: 'Unknown action "pay"; use confirm or cancel.'})
  })
})

describe('decideApproval: other products', () => {
  it('has no decision for a product without a page', () => {
    expect(decideApproval(context('ideal'), {outcome: 'SETTLEMENT_COMPLETED'})).toMatchObject({kind: 'invalid'})
  })
})

describe('germanIban', () => {
  it('computes the check digits of a published example', () => {
    expect(germanIban('37040044', '0532013000')).toBe('DE89370400440532013000')
    expect(germanIban('37040044', '532013000')).toBe('DE89370400440532013000')
  })
})
