/**
 * The service's contract as zod schemas: the source of the request and response types (`z.infer`,
 * re-exported by `contract.ts`) and the runtime checks, shared by the CLI's validation before
 * sending and the emulator's on receipt, so none of them can drift apart. Issues are reported by
 * field path (`amount`, `details.redirect_url`); the CLI maps a path to the flag that set it and
 * the emulator prefixes it with `body.` as the service does.
 *
 * Building a zod schema costs about a millisecond, far more than using one: each is built on
 * first use and kept (the emulator validates every request with them).
 */
import {isIP} from 'node:net'
import * as z from 'zod'

import {
  CUSTOMER_EMPTY_FIELDS,
  CUSTOMER_OPTIONAL_FIELDS,
  COUNTRY_CODE_PATTERN,
  CUSTOMER_GENDERS,
  CUSTOMER_REQUIRED_FIELDS,
  CUSTOMER_REQUEST_FIELDS,
  type CustomerRequestField,
  CUSTOMER_TITLES,
  E164_PATTERN,
  EMAIL_PATTERN,
  PRODUCTS,
  isIsoDate,
  sofortDescriptorProblem,
} from './contract.js'
import {luhnValid} from '../secrets/card-number.js'
import {isAbsoluteHttpUrl} from '../http/url.js'
import {type ValidationIssue, issuesOf, once} from './checks.js'

export type {ValidationIssue} from './checks.js'

const requiredString = (what: string) =>
  z.string({error: (issue) => (issue.input === undefined ? `is required (${what})` : 'must be a string')}).min(1, {error: `must not be empty (${what})`})

// A function, as every schema here: made on first use, not as the module loads.
const optionalString = () => z.string({error: 'must be a string'}).optional()

const customerFormatChecks: Partial<Record<string, (value: string) => string | undefined>> = {
  title: (v) => ((CUSTOMER_TITLES as readonly string[]).includes(v) ? undefined : `must be one of ${CUSTOMER_TITLES.join(', ')}`),
  gender: (v) => ((CUSTOMER_GENDERS as readonly string[]).includes(v) ? undefined : `must be one of ${CUSTOMER_GENDERS.join(', ')}`),
  date_of_birth: (v) => (isIsoDate(v) ? undefined : 'must be a real date written as YYYY-MM-DD'),
  country_code: (v) => (COUNTRY_CODE_PATTERN.test(v) ? undefined : 'must be a two-letter country code such as NL'),
  phone_number: (v) => (E164_PATTERN.test(v) ? undefined : 'must be in international E.164 format with a leading +, e.g. +31612345678'),
  email_address: (v) => (EMAIL_PATTERN.test(v) ? undefined : 'must be an e-mail address such as jane@example.com'),
}

/** The format problem of one customer field's value, for checking a prompt's answer as it is typed. */
export function customerFieldProblem(field: string, value: string): string | undefined {
  return customerFormatChecks[field]?.(value)
}

/**
 * Who checks a customer request, and so what is checked:
 * - `emulator`: the body as the service receives it: required fields and value formats (also what
 *   the flow checks in a customer file before sending it).
 * - `cli`: value formats only; `customer create` reports missing required fields itself, by flag.
 * - `forced`: `customer create --force`: only that the values are strings; formats go unchecked.
 * - `scenario`: a scenario file's customer, whose fields are filled by references and defaults
 *   later: value formats only.
 */
export type CustomerCheckMode = 'emulator' | 'cli' | 'forced' | 'scenario'

const CUSTOMER_CHECKS: Record<CustomerCheckMode, {required: boolean; formats: boolean}> = {
  emulator: {required: true, formats: true},
  cli: {required: false, formats: true},
  forced: {required: false, formats: false},
  scenario: {required: false, formats: true},
}

/** The field schemas are typed as optional strings: that is what a client may send, whatever the mode requires. */
type CustomerRequestShape = Record<CustomerRequestField, z.ZodOptional<z.ZodString>>

function buildCustomerRequestSchema(mode: CustomerCheckMode) {
  const {required, formats} = CUSTOMER_CHECKS[mode]
  const shape: Partial<Record<CustomerRequestField, z.ZodType>> = {}
  for (const field of CUSTOMER_REQUEST_FIELDS) {
    let schema: z.ZodType = required && CUSTOMER_REQUIRED_FIELDS.includes(field) ? requiredString(field) : optionalString()
    const check = customerFormatChecks[field]
    if (check && formats) {
      schema = schema.superRefine((value, ctx) => {
        if (typeof value !== 'string' || value === '') return
        const problem = check(value)
        if (problem) ctx.addIssue({code: 'custom', message: problem})
      })
    }
    shape[field] = schema
  }
  // Not in the spec's request, but in its response ("empty string when not set"): strings when sent.
  for (const field of CUSTOMER_OPTIONAL_FIELDS) (shape as Record<string, z.ZodType>)[field] = optionalString()
  return z.looseObject(shape as CustomerRequestShape)
}

const customerRequestSchemas = new Map<CustomerCheckMode, ReturnType<typeof buildCustomerRequestSchema>>()

/** The customer request as `mode` checks it; `emulator` (the default) is the service's own reading. */
export function customerRequestSchema(mode: CustomerCheckMode = 'emulator'): ReturnType<typeof buildCustomerRequestSchema> {
  let schema = customerRequestSchemas.get(mode)
  if (!schema) {
    schema = buildCustomerRequestSchema(mode)
    customerRequestSchemas.set(mode, schema)
  }
  return schema
}

export function validateCustomerRequest(body: unknown, {mode = 'emulator'}: {mode?: CustomerCheckMode} = {}): ValidationIssue[] {
  return issuesOf(customerRequestSchema(mode), body)
}

/** The card request's fields (the expiry's check against today is added per call). */
export const cardRequestSchema = once(() =>
  z.looseObject({
    customer: requiredString('id of an existing customer'),
    expiry_month: requiredString('01-12').refine((v) => /^(0?[1-9]|1[0-2])$/.test(v), {error: 'must be a month from 01 to 12'}),
    expiry_year: requiredString('four digits').refine((v) => /^\d{4}$/.test(v), {error: 'must be a four-digit year such as 2030'}),
    holder_name: requiredString('the name on the card').refine((v) => v.trim().length > 0, {error: 'must not be blank'}),
    pan: requiredString('the card number').refine((v) => luhnValid(v), {
      error: 'is not a valid card number (12-19 digits passing the Luhn check)',
    }),
    organisation: optionalString(),
  }),
)

export function validateCardRequest(body: unknown, options: {now?: Date} = {}): ValidationIssue[] {
  const now = options.now ?? new Date()
  // The expiry check depends on today, so this refinement is added per call over the kept fields.
  const schema = cardRequestSchema().superRefine((card, ctx) => {
    const issue = cardExpiryIssue(card.expiry_month, card.expiry_year, now)
    if (issue) ctx.addIssue({code: 'custom', path: [issue.path], message: issue.message})
  })
  return issuesOf(schema, body)
}

export type CardAnswerField = 'expiry_month' | 'expiry_year' | 'holder_name' | 'pan'

/** One field of a card request checked alone, as a prompt's answer is: the problem, if any. */
export function cardFieldIssue(field: CardAnswerField, value: string): string | undefined {
  const result = cardRequestSchema().shape[field].safeParse(value)
  return result.success ? undefined : result.error.issues[0]?.message
}

/** An expiry (valid month, four-digit year) that is already past: which field to blame, and why. */
export function cardExpiryIssue(monthText: string, yearText: string, now: Date = new Date()): ValidationIssue | undefined {
  const year = Number(yearText)
  const month = Number(monthText)
  if (!/^\d{4}$/.test(yearText) || !(month >= 1 && month <= 12)) return undefined
  const thisYear = now.getUTCFullYear()
  if (year < thisYear) return {path: 'expiry_year', message: `is in the past; use ${thisYear} or later`}
  if (year === thisYear && month < now.getUTCMonth() + 1) return {path: 'expiry_month', message: 'the card expired; the expiry month is in the past'}
  return undefined
}

const minorUnitsError = 'must be an integer amount in minor units, e.g. 14 for 0.14 EUR'

/** The transaction start request's fields (the product-dependent checks are added by the request schema). */
export const transactionStartRequestFields = once(() =>
  z.looseObject({
    payment_profile: optionalString(),
    amount: z.number({error: minorUnitsError}).int({error: minorUnitsError}).positive({error: 'must be greater than 0 (minor units)'}),
    customer: requiredString('id of an existing customer'),
    customer_ip: optionalString().refine((v) => v === undefined || isIP(v) !== 0, {error: 'must be an IP address'}),
    dynamic_descriptor: optionalString(),
    merchant_reference: optionalString(),
    payment_product: z.enum(PRODUCTS, {error: `must be one of ${PRODUCTS.join(', ')}`}),
    user_agent: optionalString(),
    card: optionalString(),
    details: z.looseObject(
      {
        redirect_url: requiredString('an absolute URL').refine(isAbsoluteHttpUrl, {error: 'must be an absolute http(s) URL'}),
        card_cvv: z
          .string({error: 'must be a string'})
          .regex(/^\d{3,4}$/, {error: 'must be 3 or 4 digits'})
          .optional(),
      },
      {error: 'is required (an object with redirect_url)'},
    ),
    webhook_transaction_update: optionalString().refine((v) => v === undefined || isAbsoluteHttpUrl(v), {
      error: 'must be an absolute http(s) URL',
    }),
  }),
)

const transactionStartRequestSchema = once(() =>
  transactionStartRequestFields().superRefine((tx, ctx) => {
    if (tx.payment_product === 'card' && !tx.card) {
      ctx.addIssue({code: 'custom', path: ['card'], message: 'is required for the card product (id of a tokenized card)'})
    }
    if (tx.payment_product === 'sofort' && tx.dynamic_descriptor !== undefined) {
      const problem = sofortDescriptorProblem(tx.dynamic_descriptor)
      if (problem) ctx.addIssue({code: 'custom', path: ['dynamic_descriptor'], message: problem})
    }
  }),
)

export function validateTransactionStartRequest(body: unknown): ValidationIssue[] {
  return issuesOf(transactionStartRequestSchema(), body)
}

// ---------------------------------------------------------------------------------------------
// Responses. The CLI reads answers leniently (an unknown extra field is never an error); these
// schemas give the types and let tests check that the emulator answers what the contract says.
// ---------------------------------------------------------------------------------------------

type StringFields<K extends string> = Record<K, z.ZodString>

function stringFields<K extends string>(fields: readonly K[]): StringFields<K> {
  return Object.fromEntries(fields.map((field) => [field, z.string()])) as StringFields<K>
}

export const customerSchema = once(() =>
  z.looseObject({
    id: z.string(),
    ...stringFields(CUSTOMER_REQUEST_FIELDS),
    ...stringFields(CUSTOMER_EMPTY_FIELDS),
    status: z.string(),
    created_at: z.string(),
    last_status_update: z.string(),
  }),
)

/** The card record: the spec does not show it, so only its id (`id`, `_id` or `token`) is relied upon. */
export const cardSchema = once(() => z.looseObject({id: z.string().optional(), _id: z.string().optional(), token: z.string().optional()}))

export const sofortSenderSchema = once(() => z.object(stringFields(['country_code', 'iban', 'bic', 'bank_name', 'bank_code', 'account_number', 'holder'] as const)))

export const transactionSchema = once(() =>
  z.looseObject({
    id: z.string(),
    _id: z.string().optional(),
    payment_profile: z.string().optional(),
    customer: z.string().optional(),
    customer_ip: z.string().optional(),
    dynamic_descriptor: z.string().optional(),
    merchant_reference: z.string().optional(),
    user_agent: z.string().optional(),
    payment_product: z.string(),
    payment_product_type: z.string().optional(),
    processor: z.string().optional(),
    /** Minor units as a decimal string, e.g. "1499". */
    amount: z.string(),
    card: z.string().optional(),
    details: z.looseObject({
      redirect_url: z.string().optional(),
      approval_url: z.string().optional(),
      sender: sofortSenderSchema().optional(),
      issuer: z.string().optional(),
    }),
    status: z.string(),
    status_reason: z.string().optional(),
    webhook_transaction_update: z.string().optional(),
    created_at: z.string(),
    last_status_update: z.string(),
  }),
)

export const checkoutSuccessSchema = once(() => z.looseObject({status: z.string(), status_reason: z.string(), success: z.boolean()}))

export const serviceErrorBodySchema = once(() =>
  z.object({code: z.string().optional(), message: z.string(), details: z.record(z.string(), z.union([z.string(), z.array(z.string())])).optional()}),
)

/** The webhook body the emulator sends: type and ids plus the whole transaction. */
export const transactionWebhookSchema = once(() => transactionSchema().partial().extend({type: z.string()}))

export type CustomerRequest = z.infer<ReturnType<typeof buildCustomerRequestSchema>>
export type CardRequest = z.infer<ReturnType<typeof cardRequestSchema>>
export type TransactionStartRequest = z.infer<ReturnType<typeof transactionStartRequestFields>>
export type TransactionDetailsRequest = TransactionStartRequest['details']
export type Customer = z.infer<ReturnType<typeof customerSchema>>
export type Card = z.infer<ReturnType<typeof cardSchema>>
export type SofortSender = z.infer<ReturnType<typeof sofortSenderSchema>>
export type Transaction = z.infer<ReturnType<typeof transactionSchema>>
export type CheckoutSuccess = z.infer<ReturnType<typeof checkoutSuccessSchema>>
export type ServiceErrorBody = z.infer<ReturnType<typeof serviceErrorBodySchema>>
export type TransactionWebhook = z.infer<ReturnType<typeof transactionWebhookSchema>>
