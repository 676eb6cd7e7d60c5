/**
 * Turns `paytx customer create` input (a --data object, one flag per field, the profile's
 * organisation) into a customer request, and its problems into messages naming the flags.
 */
import {CUSTOMER_REQUEST_FIELDS, CUSTOMER_REQUIRED_FIELDS, type CustomerRequestField} from '../api/contract.js'
import type {CustomerRequest, ValidationIssue} from '../api/schemas.js'
import {countryCodeProblem} from './country-codes.js'

export interface InputProblem {
  flag?: string
  field?: string
  message: string
}

/** `first_name` is set by `--first-name`: the field's name in kebab case. */
export function flagForField(field: string): string {
  return `--${field.replaceAll('_', '-')}`
}

export const CUSTOMER_FIELD_FLAGS = Object.fromEntries(CUSTOMER_REQUEST_FIELDS.map((field) => [field, flagForField(field)])) as Record<
  CustomerRequestField,
  string
>

export type ValueSource = 'flag' | 'data' | 'profile' | 'prompt'

export interface CustomerDraft {
  body: Record<string, unknown>
  sources: Partial<Record<string, ValueSource>>
}

/** File values first, flags over them; organisation falls back to the profile's. */
export function draftCustomerRequest(
  data: Record<string, unknown> | undefined,
  flagValues: Partial<Record<CustomerRequestField, string | undefined>>,
  profileOrganisation?: string,
): CustomerDraft {
  const body: Record<string, unknown> = {}
  const sources: CustomerDraft['sources'] = {}
  for (const [key, value] of Object.entries(data ?? {})) {
    body[key] = value
    sources[key] = 'data'
  }
  for (const field of CUSTOMER_REQUEST_FIELDS) {
    const value = flagValues[field]
    if (value !== undefined) {
      body[field] = value
      sources[field] = 'flag'
    }
  }
  if ((body.organisation === undefined || body.organisation === '') && profileOrganisation) {
    body.organisation = profileOrganisation
    sources.organisation = 'profile'
  }
  return {body, sources}
}

/**
 * A country code given as a flag, as the prompt takes it: upper-cased (`nl` is sent as `NL`) and,
 * unless --force, one that ISO 3166-1 alpha-2 assigns. The problem names the flag; nothing is sent.
 */
export function normalizeCountryCodeFlag(draft: CustomerDraft, force: boolean): InputProblem | undefined {
  const value = draft.body.country_code
  if (draft.sources.country_code !== 'flag' || typeof value !== 'string') return undefined
  const code = value.toUpperCase()
  draft.body.country_code = code
  if (force || !/^[A-Z]{2}$/.test(code)) return undefined
  const problem = countryCodeProblem(code)
  return problem ? {flag: CUSTOMER_FIELD_FLAGS.country_code, field: 'country_code', message: problem} : undefined
}

export function missingRequiredCustomerFields(body: Record<string, unknown>): CustomerRequestField[] {
  return CUSTOMER_REQUIRED_FIELDS.filter((field) => body[field] === undefined || body[field] === '')
}

/** Keys of a --data object that are not customer fields of the spec. */
export function unknownCustomerKeys(body: Record<string, unknown>): string[] {
  return Object.keys(body).filter((key) => !(CUSTOMER_REQUEST_FIELDS as readonly string[]).includes(key))
}

/** Validation issues as problems naming the flag (and where the value came from, if not a flag). */
export function customerIssuesToProblems(issues: ValidationIssue[], sources: CustomerDraft['sources']): InputProblem[] {
  return issues.map((issue) => {
    const flag = (CUSTOMER_FIELD_FLAGS as Record<string, string>)[issue.path]
    const origin = sources[issue.path] === 'data' ? ` (field ${issue.path} of --data)` : sources[issue.path] === 'profile' ? ' (from the profile)' : ''
    return {flag: flag ?? '--data', field: issue.path, message: `${issue.message}${origin}`}
  })
}

export function asCustomerRequest(body: Record<string, unknown>): CustomerRequest {
  return body as CustomerRequest
}
