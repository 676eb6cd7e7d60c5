/**
 * The shape of a fault rule and of a fault file, defined once in zod: the file loader, the
 * `/_emulator/faults` endpoint and the smoke scenario's `faults:` check against it, and
 * `faultFileJsonSchema()` turns it into schemas/emulator-faults.schema.json.
 *
 * A rule names what it matches (`request:` for API calls, `webhook:` for deliveries), its
 * `fault`, and how often it applies: the next `times` matches, each with `probability`.
 */
import * as z from 'zod'

import {PRODUCTS} from '../../api/contract.js'
import {statusSchema} from '../../input/value-schemas.js'
import {FAULT_KINDS, FAULT_KIND_TABLE, type FaultKind, type FaultKindTable} from './fault-kinds.js'

export {FAULT_KINDS, REQUEST_FAULTS, WEBHOOK_FAULTS, type FaultKind} from './fault-kinds.js'

const GLOB_HINT = '`*` matches any run of characters'

const productSchema = z.enum(PRODUCTS, {error: (issue) => `must be one of ${PRODUCTS.join(', ')}; got ${JSON.stringify(issue.input)}`})
const amountSchema = z
  .number({error: 'must be a whole number of minor units, e.g. 1499'})
  .int({error: 'must be a whole number of minor units, e.g. 1499'})
  .positive({error: 'must be greater than 0 (minor units)'})
const transactionFacts = {
  transaction: z.string({error: 'must be a transaction id'}).min(1).optional().meta({description: 'The transaction id.'}),
  product: productSchema.optional().meta({description: "The transaction's payment product."}),
  amount: amountSchema.optional().meta({description: "The transaction's amount in minor units."}),
  merchant_reference: z
    .string({error: 'must be a string'})
    .optional()
    .meta({description: `The transaction's merchant_reference; ${GLOB_HINT}.`}),
}

export const requestMatchSchema = z
  .strictObject({
    method: z
      .enum(['GET', 'POST'], {error: (issue) => `must be GET or POST; got ${JSON.stringify(issue.input)}`})
      .optional()
      .meta({description: 'The HTTP method.'}),
    path: z
      .string({error: 'must be a path such as /v1/transaction/*'})
      .regex(/^\//, {error: 'must start with / (such as /v1/transaction/*)'})
      .optional()
      .meta({description: 'The request path without its query; `*` matches within one segment, `**` across segments.'}),
    ...transactionFacts,
  })
  .meta({
    id: 'requestMatch',
    description:
      'API requests the rule matches (all, when empty; never /_emulator/). product, amount and merchant_reference come from a start request\'s body, or from the stored transaction for /v1/transaction/<id>/…',
  })

export const webhookMatchSchema = z
  .strictObject({...transactionFacts, status: statusSchema.optional().meta({description: 'The status the webhook announces.'})})
  .meta({id: 'webhookMatch', description: 'Webhook deliveries the rule matches (all, when empty), by their transaction and status.'})

const ruleCommon = {
  name: z.string({error: 'must be a string'}).min(1).max(100).optional().meta({description: 'A name to recognise the rule by in logs and `faults list`.'}),
  times: z
    .number({error: 'must be a whole number greater than 0'})
    .int({error: 'must be a whole number greater than 0'})
    .positive({error: 'must be a whole number greater than 0'})
    .optional()
    .meta({description: 'Apply to the next N matches only (default: every match).'}),
  probability: z
    .number({error: 'must be a number from 0 (exclusive) to 1'})
    .gt(0, {error: 'must be greater than 0'})
    .max(1, {error: 'must be at most 1'})
    .optional()
    .meta({description: 'Apply to each match with this probability (drawn from the seeded generator; default 1).'}),
}

const onRequest = {request: requestMatchSchema.optional()}
const onWebhook = {webhook: webhookMatchSchema.optional()}

/** The schema of one kind's rule: the kind, what it matches, the kind's own fields, how often. */
function kindRuleSchema(kind: FaultKind) {
  const entry = FAULT_KIND_TABLE[kind]
  return z
    .strictObject({fault: z.literal(kind), ...(entry.on === 'request' ? onRequest : onWebhook), ...entry.fields, ...ruleCommon})
    .meta({description: entry.description})
}

const ruleUnion = z
  .discriminatedUnion('fault', FAULT_KINDS.map((kind) => kindRuleSchema(kind)) as [ReturnType<typeof kindRuleSchema>, ...ReturnType<typeof kindRuleSchema>[]], {
    error: (issue) => {
      const given = (issue.input as {fault?: unknown} | undefined)?.fault
      return `must be one of ${FAULT_KINDS.join(', ')}${given === undefined ? '' : `; got ${JSON.stringify(given)}`}`
    },
  })
  .meta({id: 'faultRule', description: 'What to match (request: or webhook:), the fault to apply, and how often.'})

type RuleCommon = z.infer<z.ZodObject<typeof ruleCommon>>
type MatchOf<K extends FaultKind> = FaultKindTable[K]['on'] extends 'request' ? z.infer<z.ZodObject<typeof onRequest>> : z.infer<z.ZodObject<typeof onWebhook>>

/** A rule of one kind: written out from the table, since the union above is built from it at run time. */
export type FaultRuleOf<K extends FaultKind> = {fault: K} & MatchOf<K> & FieldsOf<FaultKindTable[K]['fields']> & RuleCommon
// A kind with no fields of its own adds nothing (z.infer of an empty shape would forbid every key).
type FieldsOf<F extends z.ZodRawShape> = keyof F extends never ? unknown : z.infer<z.ZodObject<F>>

export type FaultRule = {[K in FaultKind]: FaultRuleOf<K>}[FaultKind]

export const faultRuleSchema = ruleUnion as unknown as z.ZodType<FaultRule>

export const faultFileSchema = z
  .strictObject({
    $schema: z.string().optional().meta({description: 'Path or URL of this JSON Schema, for editors.'}),
    version: z.literal(1, {error: 'must be 1 (the only version of the fault file format)'}).optional(),
    seed: z
      .number({error: 'must be a whole number'})
      .int({error: 'must be a whole number'})
      .min(0, {error: 'must be 0 or more'})
      .max(2 ** 32 - 1, {error: `must be at most ${2 ** 32 - 1}`})
      .optional()
      .meta({description: 'Seed of the generator behind `probability` (same seed, same faults); --seed overrides it.'}),
    rules: z.array(faultRuleSchema, {error: 'must be a list of rules'}).meta({description: 'The rules, tried in this order; the first that applies wins.'}),
  })
  .meta({title: 'paytx emulator faults', description: 'Faults for `paytx emulator start --faults <file>`: rules that break requests and webhooks on purpose.'})

export type FaultFile = z.infer<typeof faultFileSchema>

/** The fields a mapping at this path of a fault file may hold, for "unknown field" messages. */
export function faultFileKeysAt(path: readonly (string | number)[], data: unknown): string[] {
  const last = path.at(-1)
  if (path.length === 0) return Object.keys(faultFileSchema.shape)
  if (last === 'request') return Object.keys(requestMatchSchema.shape)
  if (last === 'webhook') return Object.keys(webhookMatchSchema.shape)
  if (typeof last === 'number') {
    const fault = (data as {fault?: unknown} | undefined)?.fault
    const option = ruleUnion.options.find((candidate) => candidate.shape.fault.value === fault)
    return option ? Object.keys(option.shape) : ['fault', 'name', 'times', 'probability']
  }
  return []
}

export function faultFileJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(faultFileSchema, {target: 'draft-2020-12'}) as Record<string, unknown>
}
