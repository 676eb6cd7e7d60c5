/**
 * Value rules the spec (or a listed assumption) fixes, checked on one answer: enumerations
 * (statuses, products), forms (ids as UUIDs, times as ISO 8601 with milliseconds, the amount as a
 * string of minor units, an error `code` of three digits), booleans that must agree with the
 * status (`success`, `final`), and echoes of what was sent. Ids and times by form, never by value.
 */
import {CUSTOMER_INITIAL_STATUS, CUSTOMER_OPTIONAL_FIELDS, PRODUCTS, STATUSES, isFinalStatus, isSuccessStatus} from '../api/contract.js'

export interface RuleBreak {
  path: string
  /** The rule, as a person reads it ("a UUID", "one of the statuses"). */
  rule: string
  /** The value as the answer had it (short; never a secret: none of these fields holds one). */
  shown: string
}

/** Body fields holding an enumeration value: a different value on each side is a breaking difference. */
export const ENUM_FIELDS = ['status', 'payment_product', 'payment_product_type', 'processor'] as const

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const TRANSACTION_PROBES = new Set(['transaction-start', 'transaction-start-sofort', 'transaction'])
const ERROR_PROBES = new Set(['invalid-amount', 'invalid-customer', 'unknown-transaction', 'wrong-key'])
const SENDER_FIELDS = ['country_code', 'iban', 'bic', 'bank_name', 'bank_code', 'account_number', 'holder']

/** A value as a report shows it: JSON, cut at 40 characters. */
export function shownValue(value: unknown): string {
  const text = value === undefined ? 'absent' : JSON.stringify(value)
  return text.length > 40 ? `${text.slice(0, 39)}…` : text
}

type Check = [path: string, rule: string, holds: (value: unknown) => boolean]

const isUuid = (value: unknown) => typeof value === 'string' && UUID.test(value)
const isTime = (value: unknown) => typeof value === 'string' && ISO_TIME.test(value)
const oneOf = (values: readonly string[]) => (value: unknown) => typeof value === 'string' && values.includes(value)

function transactionChecks(probe: string, body: Record<string, unknown>, sent: Record<string, unknown>): Check[] {
  const checks: Check[] = [
    ['id', 'a UUID', isUuid],
    ['created_at', 'ISO 8601 UTC with milliseconds', isTime],
    ['last_status_update', 'ISO 8601 UTC with milliseconds', isTime],
    ['amount', 'a string of whole minor units', (value) => typeof value === 'string' && /^\d+$/.test(value)],
    ['status', 'one of the statuses', oneOf(STATUSES)],
    ['payment_product', 'one of the products', oneOf(PRODUCTS)],
  ]
  if (probe !== 'transaction') {
    checks.push(['status', 'INITIATED on creation', (value) => value === 'INITIATED'])
    checks.push(['amount', 'the amount sent', (value) => value === String(sent.amount)])
    checks.push(['payment_product', 'the product sent', (value) => value === sent.payment_product])
  }
  if (probe === 'transaction-start-sofort') {
    for (const field of SENDER_FIELDS) {
      const nonEmpty = field !== 'bank_name'
      checks.push([`details.sender.${field}`, nonEmpty ? 'a non-empty string' : 'a string', (value) => typeof value === 'string' && (!nonEmpty || value !== '')])
    }
  }
  return [...checks, ...agreeingBooleans(body)]
}

/** `success` and `final`, where an answer has them, agree with its `status`. */
function agreeingBooleans(body: Record<string, unknown>): Check[] {
  const status = typeof body.status === 'string' ? body.status : undefined
  if (status === undefined) return []
  const checks: Check[] = []
  if ('success' in body) checks.push(['success', `${isSuccessStatus(status)} for ${status}`, (value) => value === isSuccessStatus(status)])
  if ('final' in body) checks.push(['final', `${isFinalStatus(status)} for ${status}`, (value) => value === isFinalStatus(status)])
  return checks
}

function customerChecks(sent: Record<string, unknown>): Check[] {
  const checks: Check[] = [
    ['id', 'a UUID', isUuid],
    ['created_at', 'ISO 8601 UTC with milliseconds', isTime],
    ['last_status_update', 'ISO 8601 UTC with milliseconds', isTime],
    ['status', `"${CUSTOMER_INITIAL_STATUS}" on creation`, (value) => value === CUSTOMER_INITIAL_STATUS],
    ['status_reason', '"" when not set', (value) => value === ''],
  ]
  for (const field of CUSTOMER_OPTIONAL_FIELDS) {
    if (field in sent) checks.push([field, 'kept as sent', (value) => value === sent[field]])
  }
  return checks
}

function checksFor(probe: string, body: Record<string, unknown>, sent: Record<string, unknown>): Check[] {
  if (probe === 'customer') return customerChecks(sent)
  if (TRANSACTION_PROBES.has(probe)) return transactionChecks(probe, body, sent)
  if (probe === 'checkoutsuccess') return [['status', 'one of the statuses', oneOf(STATUSES)], ...agreeingBooleans(body)]
  if (ERROR_PROBES.has(probe) && 'code' in body) return [['code', 'three digits', (value) => typeof value === 'string' && /^\d{3}$/.test(value)]]
  return []
}

/** The rules this answer breaks; an answer that is no JSON object breaks none (its shape says enough). */
export function ruleBreaks(probe: string, body: unknown, sent?: unknown): RuleBreak[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return []
  const object = body as Record<string, unknown>
  const request = sent && typeof sent === 'object' ? (sent as Record<string, unknown>) : {}
  const breaks: RuleBreak[] = []
  for (const [path, rule, holds] of checksFor(probe, object, request)) {
    const value = path.split('.').reduce<unknown>((at, key) => (at && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), object)
    // A field the answer lacks is a shape difference, reported as one.
    if (value === undefined || breaks.some((broken) => broken.path === path)) continue
    if (!holds(value)) breaks.push({path, rule, shown: shownValue(value)})
  }
  return breaks
}
