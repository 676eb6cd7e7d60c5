/**
 * Turns `paytx transaction start` input into a transaction start request: amounts in minor units,
 * sofort descriptors, a generated merchant reference, and the flag behind each request field.
 */
import {randomBytes} from 'node:crypto'

import {SOFORT_DESCRIPTOR_DISPLAYED, formatMinorUnits, sofortDescriptorProblem, transliterateDescriptor} from '../api/contract.js'
import {InputError} from '../errors.js'
import {isAbsoluteHttpUrl} from '../http/url.js'

/** Request field (as in the service's error details) → the flag that sets it. */
export const TRANSACTION_FIELD_FLAGS: Record<string, string> = {
  payment_profile: '--payment-profile',
  amount: '--amount',
  customer: '--customer',
  customer_ip: '--customer-ip',
  dynamic_descriptor: '--descriptor',
  merchant_reference: '--merchant-reference',
  payment_product: '--product',
  user_agent: '--user-agent',
  card: '--card',
  details: '--redirect-url',
  'details.redirect_url': '--redirect-url',
  'details.card_cvv': '--cvv-stdin',
  webhook_transaction_update: '--webhook-url',
}

/**
 * Flags that only a card payment takes (`--card`, `--cvv-stdin`, ...) refused for another
 * product, each by its name. `given` holds the flags' values; false and undefined are not given.
 */
export function checkCardOnlyFlags(product: string, given: Record<string, string | boolean | undefined>): void {
  if (product === 'card') return
  for (const [flag, value] of Object.entries(given)) {
    if (value !== undefined && value !== false) throw new InputError(`${flag} applies only to --product card (got --product ${product}).`, {flag})
  }
}

/**
 * An amount in minor units: a whole number above 0. A decimal amount is the classic mistake, so
 * its error shows the minor-unit value that was probably meant.
 */
export function parseMinorUnits(raw: string, flag = '--amount'): number {
  const text = raw.trim()
  const decimal = /^(\d*)[.,](\d+)$/.exec(text)
  if (decimal) {
    const [whole, fraction] = [decimal[1] || '0', decimal[2]]
    const meant = fraction.length <= 2 ? String(Number(`${whole}${fraction.padEnd(2, '0')}`)) : undefined
    throw new InputError(
      `${flag} is in minor units, a whole number without a decimal point: use 14 for 0.14 EUR${
        meant && meant !== '0' ? ` (for "${raw}" that is ${meant})` : ` (got "${raw}")`
      }.`,
      {flag},
    )
  }
  if (!/^-?\d+$/.test(text)) {
    throw new InputError(`${flag} must be a whole number of minor units, e.g. 1499 for 14.99 EUR (got "${raw}").`, {flag})
  }
  const amount = Number(text)
  if (amount <= 0) throw new InputError(`${flag} must be greater than 0 (minor units; got "${raw}").`, {flag})
  if (!Number.isSafeInteger(amount)) throw new InputError(`${flag} is too large (got "${raw}").`, {flag})
  return amount
}

export interface PreparedDescriptor {
  /** What is sent: umlauts and ß transliterated as the service would. */
  value: string
  /** Notes for the person: the transliteration done, and a length most banks cut. */
  notes: string[]
}

/** A sofort descriptor, transliterated and checked; an input error names --descriptor. */
export function prepareSofortDescriptor(descriptor: string, flag = '--descriptor'): PreparedDescriptor {
  const problem = sofortDescriptorProblem(descriptor)
  if (problem) throw new InputError(`${flag} ${problem} (after transliterating umlauts).`, {flag})
  const value = transliterateDescriptor(descriptor)
  const notes: string[] = []
  if (value !== descriptor) notes.push(`${flag} sent as "${value}" (umlauts and ß transliterated, as the service does).`)
  if (value.length > SOFORT_DESCRIPTOR_DISPLAYED) {
    notes.push(`${flag} is ${value.length} characters; banks in some countries show only the first ${SOFORT_DESCRIPTOR_DISPLAYED}: "${value.slice(0, SOFORT_DESCRIPTOR_DISPLAYED)}".`)
  }
  return {value, notes}
}

/** A merchant reference unique enough to find the transaction again: time plus randomness. */
export function generateMerchantReference(now: Date = new Date(), random: () => string = () => randomBytes(4).toString('hex')): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')
  return `paytx-${stamp}-${random()}`
}

export function describeAmount(amount: number): string {
  return `${amount} minor units (${formatMinorUnits(amount)})`
}

/**
 * Checks of answers typed at the prompts of `transaction start` and `flow`, run as each is
 * submitted, so a wrong one is asked again at once: problems name what was asked, never a flag.
 */
export const TRANSACTION_ANSWER_CHECKS = {
  amount: (value: string): true | string => {
    try {
      parseMinorUnits(value, 'Amount')
      return true
    } catch (error) {
      return (error as Error).message
    }
  },
  redirectUrl: (value: string): true | string => (isAbsoluteHttpUrl(value) ? true : 'Redirect URL must be an absolute http(s) URL, such as https://shop.example.com/return'),
}
