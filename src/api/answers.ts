/**
 * Answers as the CLI reads them: only the fields paytx relies on are checked, so that a service
 * adding fields never breaks it, while one that answers 200 with something else is caught before
 * "(no id)" or "Status undefined" can be shown as a success. Extra fields are kept as they came.
 *
 * Checked with zod's mini build, apart from the contract's schemas (schemas.ts), so that reading
 * an answer loads no more: its schemas bind no methods as they are made (the full build binds
 * each of its methods to every schema) and parse without generating code. Checking an answer
 * costs a command a fraction of a millisecond as it starts, not two and a half.
 */
import * as zm from 'zod/mini'

import {type ValidationIssue, issuesOf, once} from './checks.js'

const answerString = () =>
  zm.string({error: (issue) => (issue.input === undefined ? 'is missing (a string)' : 'must be a string')}).check(zm.minLength(1, {error: 'must not be empty'}))
const optionalAnswerString = () => zm.nullish(zm.string({error: 'must be a string'}))

const customerAnswerSchema = once(() => zm.looseObject({id: optionalAnswerString(), _id: optionalAnswerString()}))

const cardAnswerSchema = once(() => zm.looseObject({id: optionalAnswerString(), _id: optionalAnswerString(), token: optionalAnswerString()}))

const transactionAnswerSchema = once(() =>
  zm.looseObject({
    id: optionalAnswerString(),
    _id: optionalAnswerString(),
    status: answerString(),
    status_reason: optionalAnswerString(),
    amount: zm.nullish(zm.union([zm.string(), zm.number()], {error: 'must be a string of minor units'})),
    details: zm.nullish(zm.looseObject({approval_url: optionalAnswerString(), redirect_url: optionalAnswerString()}, {error: 'must be an object'})),
  }),
)

const checkoutSuccessAnswerSchema = once(() =>
  zm.looseObject({status: answerString(), status_reason: optionalAnswerString(), success: zm.boolean({error: 'must be true or false'})}),
)

/** Each answer's schema, and the fields of which one must name the object (`id` or `_id`, as in the spec's examples). */
const ANSWER_SCHEMAS = {
  customer: {schema: customerAnswerSchema, idKeys: ['id', '_id']},
  card: {schema: cardAnswerSchema, idKeys: ['id', '_id', 'token']},
  transaction: {schema: transactionAnswerSchema, idKeys: ['id', '_id']},
  checkoutsuccess: {schema: checkoutSuccessAnswerSchema, idKeys: []},
}

export type AnswerKind = keyof typeof ANSWER_SCHEMAS

/** What in a 2xx answer paytx cannot use, by field path (`status`, `details.approval_url`); none when it fits. */
export function answerIssues(kind: AnswerKind, body: unknown): ValidationIssue[] {
  const {schema, idKeys} = ANSWER_SCHEMAS[kind]
  const issues = issuesOf(schema(), body)
  const record = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined
  if (record && idKeys.length > 0 && !idKeys.some((key) => typeof record[key] === 'string' && record[key] !== '')) {
    issues.unshift({path: idKeys[0], message: `is missing (a string; ${idKeys.join(', ')} accepted)`})
  }
  return issues
}

