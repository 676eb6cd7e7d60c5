/**
 * The service's contract, defined once: products, statuses, the final and success sets, field
 * names, and the pure rules every side (CLI, emulator, flow, tests) applies to them.
 *
 * This module imports only the card-number rules (which import nothing), so that fast read-only
 * commands can import it freely; the zod schemas, and the request and response types derived from them (`z.infer`, so that the types
 * and the run-time checks cannot disagree), live in `schemas.ts`, which builds on this one.
 */

import {normalizePan} from '../secrets/card-number.js'

export const PRODUCTS = ['card', 'sofort', 'dummy'] as const
export type Product = (typeof PRODUCTS)[number]

export const STATUSES = [
  'INITIATED',
  'IN_PROGRESS',
  'PENDING',
  'SETTLEMENT_REQUESTED',
  'SETTLEMENT_COMPLETED',
  'CANCELLED',
  'DECLINED',
  'FAILED',
  'UNKNOWN',
  'ABANDONED',
] as const
export type TransactionStatus = (typeof STATUSES)[number]

/** States from which a transaction never moves again (api-notes: UNKNOWN is not final). */
export const FINAL_STATUSES: readonly TransactionStatus[] = [
  'SETTLEMENT_COMPLETED',
  'CANCELLED',
  'DECLINED',
  'FAILED',
  'ABANDONED',
]

/** States the service reports as `success: true` (spec: checkoutsuccess). */
export const SUCCESS_STATUSES: readonly TransactionStatus[] = ['SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED']

export function isKnownStatus(status: string): status is TransactionStatus {
  return (STATUSES as readonly string[]).includes(status)
}

export function isFinalStatus(status: string): boolean {
  return (FINAL_STATUSES as readonly string[]).includes(status)
}

export function isSuccessStatus(status: string): boolean {
  return (SUCCESS_STATUSES as readonly string[]).includes(status)
}

/**
 * Whether waiting on a transaction can stop. A success is conclusive for a checkout even though
 * SETTLEMENT_REQUESTED may still move on; waiting `until: 'settled'` goes on to SETTLEMENT_COMPLETED.
 */
export function isConclusiveStatus(status: string, until: 'final' | 'settled' = 'final'): boolean {
  if (isFinalStatus(status)) return true
  return until === 'final' && status === 'SETTLEMENT_REQUESTED'
}

/** The 15 request fields of a customer, in the spec's order. */
export const CUSTOMER_REQUEST_FIELDS = [
  'title',
  'gender',
  'initials',
  'first_name',
  'last_name',
  'date_of_birth',
  'street_address',
  'house_number',
  'city',
  'region',
  'postal_code',
  'country_code',
  'phone_number',
  'email_address',
  'organisation',
] as const
export type CustomerRequestField = (typeof CUSTOMER_REQUEST_FIELDS)[number]

/** Fields the earlier SDK required, plus organisation (api-notes: required in practice). */
export const CUSTOMER_REQUIRED_FIELDS: readonly CustomerRequestField[] = [
  'title',
  'first_name',
  'last_name',
  'email_address',
  'country_code',
  'city',
  'street_address',
  'postal_code',
  'phone_number',
  'organisation',
]

/** Response-only customer fields, empty strings when not set. */
export const CUSTOMER_EMPTY_FIELDS = [
  'fax_number',
  'house_number_suffix',
  'social_security_number',
  'status_reason',
  'segment',
] as const

/** Response fields a request may also set (the spec's "empty string when not set"): kept as sent. */
export const CUSTOMER_OPTIONAL_FIELDS = ['fax_number', 'house_number_suffix', 'social_security_number', 'segment'] as const satisfies readonly (typeof CUSTOMER_EMPTY_FIELDS)[number][]

export const CUSTOMER_TITLES = ['mr', 'ms'] as const
export const CUSTOMER_GENDERS = ['male', 'female'] as const
export const CUSTOMER_INITIAL_STATUS = 'unverified'

/** Read an id the way every known client does: `id`, then `_id` (then `token` for cards). */
export function readId(value: unknown, keys: readonly string[] = ['id', '_id']): string | undefined {
  if (!value || typeof value !== 'object') return undefined
  for (const key of keys) {
    const candidate = (value as Record<string, unknown>)[key]
    if (typeof candidate === 'string' && candidate.length > 0) return candidate
    if (typeof candidate === 'number') return String(candidate)
  }
  return undefined
}

export const CARD_ID_KEYS = ['id', '_id', 'token'] as const

/** Paths of the service, relative to the base address without its `/v1`. */
export const API_PATHS = {
  customer: '/v1/customer',
  transactionStart: '/v1/transaction/start',
  transaction: (id: string) => `/v1/transaction/${encodeURIComponent(id)}`,
  checkoutSuccess: (id: string) => `/v1/transaction/${encodeURIComponent(id)}/checkoutsuccess`,
  authorize: (id: string) => `/v1/transaction/${encodeURIComponent(id)}/authorize`,
  tokenize: (proxyId: string) => `/tokenize/proxy/${encodeURIComponent(proxyId)}`,
} as const

export const DEFAULT_API_KEY_HEADER = 'X-APIKEY'
export const PROXY_KEY_HEADER = 'TX-Proxy-Key'
/** The user name the card proxy accepts when its key comes as HTTP Basic auth. */
export const PROXY_BASIC_USER = 'tx-proxy-key'

// ---------------------------------------------------------------------------------------------
// Field rules shared by the CLI's local validation and the emulator's request validation.
// ---------------------------------------------------------------------------------------------

export const SOFORT_DESCRIPTOR_MAX = 27
/** Banks in one country display only this many characters. */
export const SOFORT_DESCRIPTOR_DISPLAYED = 18
export const SOFORT_DESCRIPTOR_PATTERN = /^[0-9a-zA-Z +.,-]*$/

const TRANSLITERATIONS: Record<string, string> = {
  ä: 'ae',
  ö: 'oe',
  ü: 'ue',
  Ä: 'Ae',
  Ö: 'Oe',
  Ü: 'Ue',
  ß: 'ss',
  ẞ: 'SS',
}

/** The service replaces umlauts automatically (spec, Limits); do the same before checking. */
export function transliterateDescriptor(text: string): string {
  return text.replace(/[äöüÄÖÜßẞ]/g, (ch) => TRANSLITERATIONS[ch] ?? ch)
}

/** Problems with a sofort descriptor after transliteration, or undefined when it is valid. */
export function sofortDescriptorProblem(descriptor: string): string | undefined {
  const text = transliterateDescriptor(descriptor)
  const bad = [...new Set([...text].filter((ch) => !SOFORT_DESCRIPTOR_PATTERN.test(ch)))]
  if (bad.length > 0) {
    return `contains ${bad.map((ch) => JSON.stringify(ch)).join(', ')}; allowed are 0-9 a-z A-Z space + . - ,`
  }
  if (text.length > SOFORT_DESCRIPTOR_MAX) {
    return `is ${text.length} characters long; at most ${SOFORT_DESCRIPTOR_MAX} are allowed`
  }
  return undefined
}

export function cardBrand(pan: string): string {
  if (/^4/.test(pan)) return 'visa'
  if (/^(5[1-5]|2[2-7])/.test(pan)) return 'mastercard'
  if (/^3[47]/.test(pan)) return 'amex'
  if (/^6(011|5)/.test(pan)) return 'discover'
  if (/^35/.test(pan)) return 'jcb'
  if (/^3(0[0-5]|[68])/.test(pan)) return 'diners'
  if (/^(50|5[6-9]|6)/.test(pan)) return 'maestro'
  return 'unknown'
}

export function lastFour(pan: string): string {
  return normalizePan(pan).slice(-4)
}

/** True for a real calendar date written as YYYY-MM-DD. */
export function isIsoDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  if (!match) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(year, month - 1, day))
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
}

export const E164_PATTERN = /^\+[1-9]\d{6,14}$/
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
export const COUNTRY_CODE_PATTERN = /^[A-Za-z]{2}$/

/** Timestamps are ISO 8601 UTC with milliseconds and `Z`, as `Date#toISOString` writes them. */
export function timestamp(date: Date = new Date()): string {
  return date.toISOString()
}

/** The amount in minor units as a decimal string, e.g. 1499 -> "14.99". */
export function formatMinorUnits(amount: string | number, exponent = 2): string {
  const digits = String(amount)
  if (!/^-?\d+$/.test(digits)) return digits
  const negative = digits.startsWith('-')
  const abs = negative ? digits.slice(1) : digits
  const padded = abs.padStart(exponent + 1, '0')
  const whole = padded.slice(0, padded.length - exponent)
  const fraction = padded.slice(padded.length - exponent)
  return `${negative ? '-' : ''}${whole}.${fraction}`
}
