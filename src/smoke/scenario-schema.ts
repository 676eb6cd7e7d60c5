/**
 * The shape of a scenario file, defined once in zod: the loader checks files against it, and
 * `scenarioJsonSchema()` turns it into the JSON Schema shipped as
 * schemas/smoke-scenario.schema.json (for editors and other tools). Rules that span fields (an
 * outcome the product's page offers, references to earlier cases, ...) are in scenario.ts.
 */
import * as z from 'zod'

import {CUSTOMER_REQUEST_FIELDS, PRODUCTS, STATUSES} from '../api/contract.js'
import {faultRuleSchema} from '../emulator/faults/index.js'
import {APPROVAL_OUTCOMES, type TestCard} from '../test-mode/outcomes.js'
import {durationSchema, statusSchema} from '../input/value-schemas.js'

/** Test card aliases: the word names what paying with the card leads to (TEST_CARDS). */
export const TEST_CARD_ALIASES = {
  approve: 'SETTLEMENT_COMPLETED',
  decline: 'DECLINED',
  fail: 'FAILED',
  pending: 'PENDING',
} as const satisfies Record<string, TestCard['outcome']>
export type TestCardAlias = keyof typeof TEST_CARD_ALIASES

export const MANUAL_OUTCOME = 'manual'
/** Every outcome some approval page offers; which product offers which is checked per case. */
export const ALL_OUTCOMES = [...new Set(Object.values(APPROVAL_OUTCOMES).flat())]


export const CASE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/
export const WEBHOOK_MODES = ['local', 'none'] as const


const cardObjectSchema = z.union(
  [
    z.strictObject({id: z.string({error: 'must be a string (a card id)'}).min(1)}).meta({description: 'An existing card, by id.'}),
    z
      .strictObject({
        pan: z.string({error: 'must be a string of digits (quote it in YAML)'}).min(1),
        expiry_month: z.string({error: 'must be a string such as "12"'}).optional(),
        expiry_year: z.string({error: 'must be a string such as "2030"'}).optional(),
        holder_name: z.string({error: 'must be a string'}).optional(),
      })
      .meta({description: 'A card number to tokenize (never shown in reports).'}),
  ],
  {error: 'must be {id: <card id>} or {pan: <card number>, expiry_month, expiry_year, holder_name}'},
)

const cardSchema = z
  .union([z.string().min(1), cardObjectSchema], {
    error: `must be a test card alias (${Object.keys(TEST_CARD_ALIASES).join(', ')}), a reference such as \${cases.<name>.cardId}, {id: ...} or {pan: ...}`,
  })
  .meta({
    id: 'card',
    description: `card product only: a test card alias (${Object.keys(TEST_CARD_ALIASES).join(', ')}), a reference \${cases.<name>.cardId}, {id} or {pan, expiry_month, expiry_year, holder_name}.`,
  })

const customerDataSchema = z.strictObject(
  Object.fromEntries(CUSTOMER_REQUEST_FIELDS.map((field) => [field, z.string({error: 'must be a string'}).optional()])) as Record<
    (typeof CUSTOMER_REQUEST_FIELDS)[number],
    z.ZodOptional<z.ZodString>
  >,
)

const customerSchema = z
  .union([z.string().min(1), z.strictObject({id: z.string().min(1)}), customerDataSchema], {
    error: 'must be a customer id (or a reference such as ${cases.<name>.customerId}), {id: ...}, or a mapping of customer fields',
  })
  .meta({id: 'customer', description: 'An existing customer id (or a reference ${cases.<name>.customerId}), {id}, or the fields of a customer to create.'})

const webhookCountSchema = z.number({error: 'must be a whole number of webhooks'}).int({error: 'must be a whole number of webhooks'}).min(0)

const webhooksExpectationSchema = z
  .union(
    [
      webhookCountSchema.meta({description: 'Exactly this many webhooks (duplicates not counted).'}),
      z.array(statusSchema).meta({description: 'Exactly these statuses, in this order.'}),
      z
        .strictObject({
          count: webhookCountSchema.optional().meta({description: 'Exactly this many webhooks (duplicates not counted).'}),
          min: webhookCountSchema.optional().meta({description: 'At least this many webhooks.'}),
          max: webhookCountSchema.optional().meta({description: 'At most this many webhooks.'}),
          statuses: z.array(statusSchema).optional().meta({description: 'Exactly these statuses, in this order.'}),
          contains: z.array(statusSchema).optional().meta({description: 'These statuses, in any order, among others.'}),
        })
        .meta({description: 'Several conditions on the webhooks, all of which must hold.'}),
    ],
    {error: 'must be a count, a list of statuses, or {count, min, max, statuses, contains}'},
  )
  .meta({id: 'webhooksExpectation', description: 'Webhooks the local listener must receive: a count, the statuses in order, or {count, min, max, statuses, contains}.'})

const deliveredSchema = z
  .union(
    [
      z.literal(true).meta({description: 'Every webhook of the transaction was delivered and answered 2xx.'}),
      z
        .strictObject({
          to: z.string({error: 'must be the http(s) address the webhooks must go to'}).optional().meta({description: 'The address every webhook must have gone to.'}),
          min: webhookCountSchema.optional().meta({description: 'At least this many webhooks (default 1).'}),
        })
        .meta({description: 'Every webhook delivered and answered 2xx, with conditions on the address and the count.'}),
    ],
    {error: 'must be true or {to: <address>, min: <count>}'},
  )
  .meta({
    id: 'deliveredExpectation',
    description:
      "From the emulator's delivery log: every webhook of the transaction reached its address (the merchant's endpoint) and was answered 2xx at its first attempt.",
  })

export const expectationSchema = z
  .strictObject({
    status: z
      .union([statusSchema, z.array(statusSchema).min(1, {error: 'must list at least one status'})], {
        error: `must be a status or a list of statuses (${STATUSES.join(', ')})`,
      })
      .optional()
      .meta({description: 'The status the case must end in, or a list of acceptable ones.'}),
    final: z.boolean({error: 'must be true or false'}).optional().meta({description: 'Whether the status must be final.'}),
    success: z.boolean({error: 'must be true or false'}).optional().meta({description: 'Whether checkoutsuccess must report success.'}),
    status_reason: z.string({error: 'must be a regular expression (a string)'}).optional().meta({
      description: 'A regular expression the status_reason must match; /pattern/flags is accepted.',
    }),
    webhooks: webhooksExpectationSchema.optional(),
    delivered: deliveredSchema.optional(),
    max_duration: durationSchema.optional().meta({description: 'The whole case must take at most this long.'}),
  })
  .meta({id: 'expectation', description: 'What the case must end with. Without any, a case expects success: true.'})

export const START_METHODS = ['POST', 'PUT', 'PATCH', 'GET'] as const

const headersSchema = z
  .record(z.string(), z.string({error: 'must be a string (quote numbers in YAML)'}), {error: 'must be a mapping of header names to values'})
  .meta({description: 'Request headers; ${env.NAME} allowed in values.'})

const stepTimeoutSchema = durationSchema.meta({description: 'How long the request (or, for check, the whole polling) may take; default 10s.'})

export const startStepSchema = z
  .strictObject({
    method: z
      .enum(START_METHODS, {error: (issue) => `must be one of ${START_METHODS.join(', ')}; got ${JSON.stringify(issue.input)}`})
      .optional()
      .meta({description: 'Default POST.'}),
    url: z.string({error: 'must be an absolute http(s) URL'}).meta({description: "The merchant's endpoint that starts a payment."}),
    headers: headersSchema.optional(),
    body: z.unknown().optional().meta({description: 'The JSON body sent.'}),
    transaction_id: z
      .string({error: 'must be a JSON path ($.payment.id) or pointer (/payment/id) into the answer'})
      .meta({description: "Where the answer holds the transaction id: a JSON path ($.payment.id) or pointer (/payment/id)."}),
    timeout: stepTimeoutSchema.optional(),
  })
  .meta({
    id: 'startStep',
    description: "Start the payment through the merchant's own endpoint instead of paytx: an HTTP request whose JSON answer holds the transaction id.",
  })

export const checkStepSchema = z
  .strictObject({
    url: z
      .string({error: 'must be an absolute http(s) URL'})
      .meta({description: "The merchant's endpoint to read (GET); ${transaction.id} is the case's transaction id."}),
    headers: headersSchema.optional(),
    expect: z
      .strictObject({
        status: z
          .number({error: 'must be an HTTP status code such as 200'})
          .int({error: 'must be an HTTP status code such as 200'})
          .min(100, {error: 'must be an HTTP status code such as 200'})
          .max(599, {error: 'must be an HTTP status code such as 200'})
          .optional()
          .meta({description: 'The status code; default: any 2xx.'}),
        json: z
          .record(z.string(), z.unknown(), {error: 'must be a mapping of JSON paths to values, e.g. {"$.order.state": paid}'})
          .optional()
          .meta({description: 'Values the JSON answer must hold, by JSON path ($.order.state) or pointer (/order/state).'}),
      })
      .meta({description: 'What the answer must be.'}),
    timeout: stepTimeoutSchema.optional(),
  })
  .meta({
    id: 'checkStep',
    description: "After the payment, read the merchant's own endpoint until it answers as expected (it handles webhooks asynchronously) or the timeout ends.",
  })

const CVV_HINT = 'must be 3 or 4 digits (quote it in YAML: cvv: "012"), or none to leave it out so the approval page asks for it'

const caseFields = {
  product: z.enum(PRODUCTS, {error: (issue) => `must be one of ${PRODUCTS.join(', ')}; got ${JSON.stringify(issue.input)}`}).meta({description: 'The payment product.'}),
  amount: z
    .number({error: 'must be a whole number of minor units, e.g. 1499 for 14.99'})
    .int({error: 'must be a whole number of minor units, e.g. 1499 for 14.99'})
    .positive({error: 'must be greater than 0 (minor units)'})
    .meta({description: 'Amount in minor units (1499 is 14.99).'}),
  outcome: z
    .enum([MANUAL_OUTCOME, ...ALL_OUTCOMES], {
      error: (issue) => `must be an outcome of the approval page (${ALL_OUTCOMES.join(', ')}) or ${MANUAL_OUTCOME}; got ${JSON.stringify(issue.input)}`,
    })
    .meta({description: `What to choose on the emulator's approval page, or "${MANUAL_OUTCOME}": a person completes it in the browser.`}),
  card: cardSchema,
  cvv: z
    .union([z.string().regex(/^(\d{3,4}|none)$/, {error: CVV_HINT}), z.number().int({error: CVV_HINT}).min(100, {error: CVV_HINT}).max(9999, {error: CVV_HINT})], {
      error: CVV_HINT,
    })
    .meta({description: 'card only: the CVV sent with the transaction, or "none" so the approval page asks for it. Default: the test CVV.'}),
  customer: customerSchema,
  descriptor: z.string({error: 'must be a string'}).meta({description: 'dynamic_descriptor; references allowed.'}),
  merchant_reference: z.string({error: 'must be a string'}).meta({description: 'merchant_reference; references allowed.'}),
  extra_fields: z
    .record(z.string(), z.unknown(), {error: 'must be a mapping of field names to values'})
    .meta({description: 'More fields for the transaction start request; references allowed in string values.'}),
  webhook: z.string({error: 'must be local, none or an http(s) URL'}).meta({
    description: 'local (a listener paytx starts per case; default), none, or a URL the service should send webhooks to.',
  }),
  wait_timeout: durationSchema.meta({description: 'How long to wait for the final status (default 60s; manual cases 10m).'}),
  until_settled: z.boolean({error: 'must be true or false'}).meta({
    description: 'Wait through SETTLEMENT_REQUESTED to a final status. Default: true when the expected status is SETTLEMENT_COMPLETED.',
  }),
  start: startStepSchema,
  check: checkStepSchema,
}

export const caseSchema = z
  .strictObject({
    name: z
      .string({error: 'must be a string'})
      .regex(CASE_NAME_PATTERN, {error: 'must start with a letter or digit and hold only letters, digits, _ . - (at most 100)'})
      .meta({description: 'Unique name of the case: letters, digits, _ . -'}),
    ...Object.fromEntries(Object.entries(caseFields).map(([key, schema]) => [key, schema.optional()])),
    expect: expectationSchema.optional(),
    faults: z
      .array(faultRuleSchema, {error: 'must be a list of fault rules'})
      .optional()
      .meta({
        description:
          "Emulator fault rules for this case only (local profiles): scoped to the case's transaction by its merchant_reference (one is generated when the case sets none), removed when the case ends.",
      }),
  } as {name: z.ZodString} & {[K in keyof typeof caseFields]: z.ZodOptional<(typeof caseFields)[K]>} & {
    expect: z.ZodOptional<typeof expectationSchema>
    faults: z.ZodOptional<z.ZodArray<typeof faultRuleSchema>>
  })
  .meta({id: 'case', description: 'One flow with its expected outcome.'})

export const defaultsSchema = z
  .strictObject({
    ...Object.fromEntries(Object.entries(caseFields).map(([key, schema]) => [key, schema.optional()])),
    expect: expectationSchema.optional(),
  } as {[K in keyof typeof caseFields]: z.ZodOptional<(typeof caseFields)[K]>} & {expect: z.ZodOptional<typeof expectationSchema>})
  .meta({description: 'Values every case takes unless it sets its own (expect is merged field by field). No references.'})

export const scenarioSchema = z
  .strictObject({
    $schema: z.string().optional().meta({description: 'Path or URL of this JSON Schema, for editors.'}),
    version: z.literal(1, {error: 'must be 1 (the only version of the scenario format)'}).optional(),
    defaults: defaultsSchema.optional(),
    cases: z.array(caseSchema, {error: 'must be a list of cases'}).min(1, {error: 'must list at least one case'}),
  })
  .meta({
    title: 'paytx smoke scenario',
    description: 'A scenario for `paytx smoke run`: payment flows with their expected outcomes.',
  })

export type RawCase = z.infer<typeof caseSchema>
export type RawDefaults = z.infer<typeof defaultsSchema>
export type RawExpectation = z.infer<typeof expectationSchema>
export type RawScenario = z.infer<typeof scenarioSchema>

export function scenarioJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(scenarioSchema, {target: 'draft-2020-12'}) as Record<string, unknown>
}
