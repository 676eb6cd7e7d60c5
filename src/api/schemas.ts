/**
 * Runtime request schemas (zod), shared by the CLI's validation before sending and by the
 * emulator's validation on receipt, so the two cannot drift apart. Issues are reported by field
 * path (`amount`, `details.redirect_url`); the CLI maps a path to the flag that set it and the
 * emulator prefixes it with `body.` as the service does.
 */
import {isIP} from 'node:net'
import {z} from 'zod'

import {
  COUNTRY_CODE_PATTERN,
  CUSTOMER_GENDERS,
  CUSTOMER_REQUIRED_FIELDS,
  CUSTOMER_REQUEST_FIELDS,
  CUSTOMER_TITLES,
  E164_PATTERN,
  EMAIL_PATTERN,
  PRODUCTS,
  isIsoDate,
  luhnValid,
  sofortDescriptorProblem,
} from './contract.js'
import {isAbsoluteHttpUrl} from '../http/url.js'

export interface ValidationIssue {
  /** Dotted path of the field in the request body, e.g. `details.redirect_url`. */
  path: string
  message: string
}

function toIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({path: issue.path.map(String).join('.') || '(body)', message: issue.message}))
}

const requiredString = (what: string) =>
  z.string({error: (issue) => (issue.input === undefined ? `is required (${what})` : 'must be a string')}).min(1, {error: `must not be empty (${what})`})

const optionalString = z.string({error: 'must be a string'}).optional()

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

export interface CustomerValidationOptions {
  /** Check only that fields are strings and required ones present; skip value formats. */
  skipFormats?: boolean
  /** Check the required fields (the emulator does; the CLI checks them itself to name flags). */
  checkRequired?: boolean
}

// Building a zod schema costs about a millisecond, far more than using one: each is built on
// first use and kept (the emulator validates every request with them).
const customerSchemas = new Map<string, z.ZodType>()

export function validateCustomerRequest(body: unknown, options: CustomerValidationOptions = {}): ValidationIssue[] {
  const {skipFormats = false, checkRequired = true} = options
  const key = `${skipFormats}/${checkRequired}`
  let schema = customerSchemas.get(key)
  if (!schema) {
    schema = customerSchema(skipFormats, checkRequired)
    customerSchemas.set(key, schema)
  }
  const result = schema.safeParse(body)
  return result.success ? [] : toIssues(result.error)
}

function customerSchema(skipFormats: boolean, checkRequired: boolean): z.ZodType {
  const shape: Record<string, z.ZodType> = {}
  for (const field of CUSTOMER_REQUEST_FIELDS) {
    const required = checkRequired && CUSTOMER_REQUIRED_FIELDS.includes(field)
    let schema: z.ZodType = required ? requiredString(field) : optionalString
    const check = customerFormatChecks[field]
    if (check && !skipFormats) {
      schema = schema.superRefine((value, ctx) => {
        if (typeof value !== 'string' || value === '') return
        const problem = check(value)
        if (problem) ctx.addIssue({code: 'custom', message: problem})
      })
    }
    shape[field] = schema
  }
  return z.looseObject(shape)
}

export interface CardValidationOptions {
  now?: Date
}

export function validateCardRequest(body: unknown, options: CardValidationOptions = {}): ValidationIssue[] {
  const now = options.now ?? new Date()
  const schema = z
    .looseObject({
      customer: requiredString('id of an existing customer'),
      expiry_month: requiredString('01-12').refine((v) => /^(0?[1-9]|1[0-2])$/.test(v), {error: 'must be a month from 01 to 12'}),
      expiry_year: requiredString('four digits').refine((v) => /^\d{4}$/.test(v), {error: 'must be a four-digit year such as 2030'}),
      holder_name: requiredString('the name on the card').refine((v) => v.trim().length > 0, {error: 'must not be blank'}),
      pan: requiredString('the card number').refine((v) => luhnValid(v), {
        error: 'is not a valid card number (12-19 digits passing the Luhn check)',
      }),
      organisation: optionalString,
    })
    .superRefine((card, ctx) => {
      const year = Number(card.expiry_year)
      const month = Number(card.expiry_month)
      if (!/^\d{4}$/.test(card.expiry_year) || !(month >= 1 && month <= 12)) return
      const thisYear = now.getUTCFullYear()
      if (year < thisYear) {
        ctx.addIssue({code: 'custom', path: ['expiry_year'], message: `is in the past; use ${thisYear} or later`})
      } else if (year === thisYear && month < now.getUTCMonth() + 1) {
        ctx.addIssue({code: 'custom', path: ['expiry_month'], message: 'the card expired; the expiry month is in the past'})
      }
    })
  const result = schema.safeParse(body)
  return result.success ? [] : toIssues(result.error)
}

let transactionStartSchema: z.ZodType | undefined

export function validateTransactionStartRequest(body: unknown): ValidationIssue[] {
  transactionStartSchema ??= buildTransactionStartSchema()
  const result = transactionStartSchema.safeParse(body)
  return result.success ? [] : toIssues(result.error)
}

function buildTransactionStartSchema(): z.ZodType {
  return z
    .looseObject({
      payment_profile: optionalString,
      amount: z
        .number({error: 'must be an integer amount in minor units, e.g. 14 for 0.14 EUR'})
        .int({error: 'must be an integer amount in minor units, e.g. 14 for 0.14 EUR'})
        .positive({error: 'must be greater than 0 (minor units)'}),
      customer: requiredString('id of an existing customer'),
      customer_ip: optionalString.refine((v) => v === undefined || isIP(v) !== 0, {error: 'must be an IP address'}),
      dynamic_descriptor: optionalString,
      merchant_reference: optionalString,
      payment_product: z.enum(PRODUCTS, {error: `must be one of ${PRODUCTS.join(', ')}`}),
      user_agent: optionalString,
      card: optionalString,
      details: z.looseObject(
        {
          redirect_url: requiredString('an absolute URL').refine(isAbsoluteHttpUrl, {
            error: 'must be an absolute http(s) URL',
          }),
          card_cvv: z
            .string({error: 'must be a string'})
            .regex(/^\d{3,4}$/, {error: 'must be 3 or 4 digits'})
            .optional(),
        },
        {error: 'is required (an object with redirect_url)'},
      ),
      webhook_transaction_update: optionalString.refine((v) => v === undefined || isAbsoluteHttpUrl(v), {
        error: 'must be an absolute http(s) URL',
      }),
    })
    .superRefine((tx, ctx) => {
      if (tx.payment_product === 'card' && !tx.card) {
        ctx.addIssue({code: 'custom', path: ['card'], message: 'is required for the card product (id of a tokenized card)'})
      }
      if (tx.payment_product === 'sofort' && tx.dynamic_descriptor !== undefined) {
        const problem = sofortDescriptorProblem(tx.dynamic_descriptor)
        if (problem) ctx.addIssue({code: 'custom', path: ['dynamic_descriptor'], message: problem})
      }
    })
}
