/**
 * Answers as the CLI reads them: only the fields paytx relies on are checked, so that a service
 * adding fields never breaks it, while one that answers 200 with something else is caught before
 * "(no id)" or "Status undefined" can be shown as a success. Extra fields are kept as they came.
 *
 * Checked by the few rules below, not by a schema library: every command that calls the service
 * reads answers, and loading and building zod (even its mini build) was about 4 ms of every
 * `paytx status`, more than the whole check of its answer. The contract's schemas (schemas.ts)
 * stay zod's: they check requests and answer `paytx api schema`.
 */
import type {ValidationIssue} from './checks.js'

/** What one field must be; a field that is absent or null is fine unless the rule says otherwise. */
type FieldRule =
  | {kind: 'text'; required?: boolean}
  | {kind: 'amount'}
  | {kind: 'boolean'}
  | {kind: 'object'; fields: Fields}
type Fields = Readonly<Record<string, FieldRule>>

const text: FieldRule = {kind: 'text'}
const requiredText: FieldRule = {kind: 'text', required: true}

/** Each answer's fields, in the order their issues are reported, and the fields of which one must name the object (`id` or `_id`, as in the spec's examples). */
const ANSWER_RULES = {
  customer: {fields: {id: text, _id: text}, idKeys: ['id', '_id']},
  card: {fields: {id: text, _id: text, token: text}, idKeys: ['id', '_id', 'token']},
  transaction: {
    fields: {id: text, _id: text, status: requiredText, status_reason: text, amount: {kind: 'amount'}, details: {kind: 'object', fields: {approval_url: text, redirect_url: text}}},
    idKeys: ['id', '_id'],
  },
  checkoutsuccess: {fields: {status: requiredText, status_reason: text, success: {kind: 'boolean'}}, idKeys: []},
} satisfies Record<string, {fields: Fields; idKeys: string[]}>

export type AnswerKind = keyof typeof ANSWER_RULES

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)

/** What is wrong with a field's value under its rule, or undefined. */
function fieldProblem(rule: FieldRule, value: unknown, path: string, issues: ValidationIssue[]): string | undefined {
  if (rule.kind === 'text' && rule.required) {
    if (value === undefined) return 'is missing (a string)'
    if (typeof value !== 'string') return 'must be a string'
    return value === '' ? 'must not be empty' : undefined
  }
  if (rule.kind === 'boolean') return typeof value === 'boolean' ? undefined : 'must be true or false'
  if (value === undefined || value === null) return undefined
  if (rule.kind === 'text') return typeof value === 'string' ? undefined : 'must be a string'
  if (rule.kind === 'amount') return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) ? undefined : 'must be a string of minor units'
  if (!isRecord(value)) return 'must be an object'
  collectIssues(rule.fields, value, `${path}.`, issues)
  return undefined
}

function collectIssues(fields: Fields, record: Record<string, unknown>, prefix: string, issues: ValidationIssue[]): void {
  for (const [name, rule] of Object.entries(fields)) {
    const path = `${prefix}${name}`
    const problem = fieldProblem(rule, record[name], path, issues)
    if (problem) issues.push({path, message: problem})
  }
}

/** What in a 2xx answer paytx cannot use, by field path (`status`, `details.approval_url`); none when it fits. */
export function answerIssues(kind: AnswerKind, body: unknown): ValidationIssue[] {
  if (!isRecord(body)) return [{path: '(body)', message: `must be a JSON object, not ${body === null ? 'null' : Array.isArray(body) ? 'an array' : `a ${typeof body}`}`}]
  const {fields, idKeys} = ANSWER_RULES[kind]
  const issues: ValidationIssue[] = []
  collectIssues(fields, body, '', issues)
  if (idKeys.length > 0 && !idKeys.some((key) => typeof body[key] === 'string' && body[key] !== '')) {
    issues.unshift({path: idKeys[0], message: `is missing (a string; ${idKeys.join(', ')} accepted)`})
  }
  return issues
}
