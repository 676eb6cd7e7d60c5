import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {CUSTOMER_GENDERS, CUSTOMER_REQUEST_FIELDS, CUSTOMER_TITLES, type CustomerRequestField} from '../../api/contract.js'
import type {Customer, CustomerRequest} from '../../api/schemas.js'
import {InputErrors} from '../../errors.js'
import {BaseCommand, EXIT_CODES_HELP} from '../../cli/base-command.js'
import {
  CUSTOMER_FIELD_FLAGS,
  type CustomerDraft,
  asCustomerRequest,
  customerIssuesToProblems,
  draftCustomerRequest,
  missingRequiredCustomerFields,
  normalizeCountryCodeFlag,
  unknownCustomerKeys,
} from '../../input/customer-request.js'
import {countryCodeProblem} from '../../input/country-codes.js'
import {renderCustomer} from '../../output/customer.js'
import {lineWidth} from '../../output/wrap.js'

const FIELD_HELP: Record<CustomerRequestField, string> = {
  title: `Salutation: ${CUSTOMER_TITLES.join(' or ')}.`,
  gender: `${CUSTOMER_GENDERS.join(' or ')}.`,
  initials: 'Initials, e.g. "J.".',
  first_name: 'First name.',
  last_name: 'Last name.',
  date_of_birth: 'Date of birth, YYYY-MM-DD.',
  street_address: 'Street.',
  house_number: 'House number.',
  city: 'City.',
  region: 'Region or province.',
  postal_code: 'Postal code, e.g. "1234 AB".',
  country_code: 'Two-letter country code, e.g. NL.',
  phone_number: 'Phone number in E.164 with a leading +, e.g. +31612345678.',
  email_address: 'E-mail address.',
  organisation: 'Organisation UUID (default: the profile’s).',
}

const fieldFlags = Object.fromEntries(
  CUSTOMER_REQUEST_FIELDS.map((field) => [CUSTOMER_FIELD_FLAGS[field].slice(2), Flags.string({summary: FIELD_HELP[field], helpGroup: 'CUSTOMER'})]),
) as Record<string, ReturnType<typeof Flags.string>>

export default class CustomerCreate extends BaseCommand<typeof CustomerCreate, Customer> {
  static override summary = 'Create a customer (POST /v1/customer).'
  static override description = `Each of the 15 customer fields has a flag named as the field in kebab case. --data reads the
fields from a JSON file (or stdin with "-"); flags override the file. In a terminal, missing
required fields are asked; without one (or with --no-input) a missing field is an error naming
its flag. Values are checked before anything is sent; --force skips those checks for values the
service may accept that paytx does not know.

${EXIT_CODES_HELP}`

  static override examples = [
    '<%= config.bin %> customer create --title ms --first-name Jane --last-name Doe --email-address jane@example.com --phone-number +31612345678 --street-address Damrak --house-number 1 --postal-code "1012 LG" --city Amsterdam --country-code NL',
    '<%= config.bin %> customer create --data customer.json --email-address other@example.com --json',
    'cat customer.json | <%= config.bin %> customer create --data - --profile production --yes',
  ]

  static override flags = {
    ...fieldFlags,
    data: Flags.string({summary: 'JSON file with customer fields (snake_case), or "-" for stdin. Flags override it.'}),
    force: Flags.boolean({summary: 'Skip the local checks of formats and required fields; send the values as given.', default: false}),
    yes: Flags.boolean({char: 'y', summary: 'Confirm creating on a production profile without asking.', default: false}),
  }

  protected override fieldFlags: Record<string, string> = {...CUSTOMER_FIELD_FLAGS}

  public async run(): Promise<Customer> {
    const {flags} = this
    const env = {organisation: this.profile().profile.organisation}
    let data: Record<string, unknown> | undefined
    if (flags.data !== undefined) {
      const {readJsonObject} = await import('../../input/json-data.js')
      data = await readJsonObject(flags.data, '--data', this.ctx.io.stdin)
    }
    const answers = flags.force || !this.interactive() ? {} : await this.askMissing(customerDraft(flags, env, data).body)
    const options = await toCustomerCreateOptions(flags, env, {data, answers})
    for (const warning of options.warnings) this.warnUser(warning)

    await this.confirmProduction('create a customer', options.yes)
    const service = await this.service()
    const customer = await service.createCustomer(options.body)
    this.print(renderCustomer(customer, {width: lineWidth(this.ctx.io.stdout)}))
    return customer
  }

  /** A person at the terminal is asked for each required field the flags and --data leave out. */
  private async askMissing(body: Record<string, unknown>): Promise<CustomerAnswers> {
    const {customerFieldProblem} = await import('../../api/schemas.js')
    const answers: CustomerAnswers = {}
    for (const field of missingRequiredCustomerFields(body)) {
      // A country code is taken in upper case (nl is NL) and must be one ISO 3166-1 assigns.
      const country = field === 'country_code'
      answers[field] = await this.requireValue(CUSTOMER_FIELD_FLAGS[field], undefined, {
        message: `${FIELD_HELP[field].replace(/\.$/, '')} (${field})`,
        normalize: country ? (value) => value.toUpperCase() : undefined,
        validate: (value) => customerFieldProblem(field, value) ?? (country ? countryCodeProblem(value) : undefined) ?? true,
      })
    }
    return answers
  }
}

export type CustomerCreateFlags = Interfaces.InferredFlags<typeof CustomerCreate.flags>

/** Required fields answered at prompts, by field. */
export type CustomerAnswers = Partial<Record<CustomerRequestField, string>>

export interface CustomerCreateOptions {
  body: CustomerRequest
  /** Fields the spec does not list, or left out under --force: said on stderr, sent as given. */
  warnings: string[]
  yes: boolean
}

/** The --data file's fields, the flags over them, the profile's organisation as the default. */
function customerDraft(flags: CustomerCreateFlags, env: {organisation?: string}, data: Record<string, unknown> | undefined): CustomerDraft {
  const values = flags as Record<string, unknown>
  const flagValues = Object.fromEntries(CUSTOMER_REQUEST_FIELDS.map((field) => [field, values[CUSTOMER_FIELD_FLAGS[field].slice(2)] as string | undefined]))
  return draftCustomerRequest(data, flagValues, env.organisation)
}

/**
 * The flags, the --data object and any prompt answers of `customer create` as the request to
 * send, checked as the service would (unless --force); an InputErrors (exit 2) names every flag
 * that is missing or wrong. Sends nothing.
 */
export async function toCustomerCreateOptions(
  flags: CustomerCreateFlags,
  env: {organisation?: string},
  stdin: {data?: Record<string, unknown>; answers?: CustomerAnswers},
): Promise<CustomerCreateOptions> {
  const draft = customerDraft(flags, env, stdin.data)
  for (const [field, answer] of Object.entries(stdin.answers ?? {})) {
    draft.body[field] = answer
    draft.sources[field] = 'prompt'
  }
  const countryProblem = normalizeCountryCodeFlag(draft, flags.force)
  const warnings: string[] = []
  const unknown = unknownCustomerKeys(draft.body)
  if (unknown.length > 0) warnings.push(`--data has fields the spec does not list; sent as given: ${unknown.join(', ')}`)

  const missing = missingRequiredCustomerFields(draft.body)
  if (flags.force) {
    if (missing.length > 0) warnings.push(`sending without fields the service has required so far: ${missing.map((f) => CUSTOMER_FIELD_FLAGS[f]).join(', ')}`)
  } else if (missing.length > 0) {
    throw new InputErrors(
      missing.map((field) => ({flag: CUSTOMER_FIELD_FLAGS[field], field, message: `is required (${FIELD_HELP[field].replace(/\.$/, '')})`})),
      'Pass the missing fields as flags or in --data; --force sends without them.',
    )
  }

  const {validateCustomerRequest} = await import('../../api/schemas.js')
  const issues = validateCustomerRequest(draft.body, {mode: flags.force ? 'forced' : 'cli'})
  const problems = [...customerIssuesToProblems(issues, draft.sources), ...(countryProblem ? [countryProblem] : [])]
  if (problems.length > 0) {
    throw new InputErrors(problems, flags.force ? undefined : 'Fix the values, or pass --force to send them unchecked.')
  }
  return {body: asCustomerRequest(draft.body), warnings, yes: flags.yes}
}
