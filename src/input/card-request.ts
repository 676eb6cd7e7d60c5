/** Turns `paytx card tokenize` input into a card request, and its problems into messages naming the flags. */
import type {CardAnswerField, ValidationIssue} from '../api/schemas.js'
import type {InputProblem} from './customer-request.js'

export type PanSource = '--pan-stdin' | 'prompt'

export const CARD_FIELD_FLAGS: Record<string, string> = {
  customer: '--customer',
  expiry_month: '--expiry-month',
  expiry_year: '--expiry-year',
  holder_name: '--holder-name',
  organisation: '--organisation',
}

/** How a prompt names each field, in its problems: the user typed no flag for it. */
export const CARD_FIELD_NAMES: Record<string, string> = {
  customer: 'Customer id',
  expiry_month: 'Expiry month',
  expiry_year: 'Expiry year',
  holder_name: 'Name on the card',
  pan: 'Card number',
}

/** `1` and `01` mean the same month; the service gets two digits. */
export function normalizeExpiryMonth(month: string): string {
  return /^[1-9]$/.test(month.trim()) ? `0${month.trim()}` : month.trim()
}

/** Problems named by the flag that gave the value, or by the field when it was answered at a prompt. */
export function cardIssuesToProblems(issues: ValidationIssue[], sources: {panSource: PanSource; prompted: ReadonlySet<string>}): InputProblem[] {
  return issues.map((issue) => ({
    flag: sources.prompted.has(issue.path) || (issue.path === 'pan' && sources.panSource === 'prompt')
      ? (CARD_FIELD_NAMES[issue.path] ?? issue.path)
      : issue.path === 'pan'
        ? sources.panSource
        : (CARD_FIELD_FLAGS[issue.path] ?? issue.path),
    field: issue.path,
    message: issue.message,
  }))
}

/** A prompt's check of its answer: true, or the problem to show under the prompt. */
export type AnswerCheck = (value: string) => true | string

/**
 * The checks of card values typed at prompts (`card tokenize`, and `flow` on production), each
 * answer checked as it is typed, by the rules the request is checked by before sending; problems
 * name the field asked for, as no flag was typed. The year's check needs the month answered before it.
 */
export async function cardAnswerChecks(now: Date = new Date()): Promise<{
  pan: AnswerCheck
  expiryMonth: AnswerCheck
  expiryYear: (month: string) => AnswerCheck
  holderName: AnswerCheck
}> {
  const [{cardExpiryIssue, cardFieldIssue}, {normalizePan}] = await Promise.all([import('../api/schemas.js'), import('../secrets/card-number.js')])
  const checked =
    (field: CardAnswerField, extra?: (value: string) => string | undefined): AnswerCheck =>
    (value) => {
      const problem = cardFieldIssue(field, value) ?? extra?.(value)
      return problem ? `${CARD_FIELD_NAMES[field]} ${problem}` : true
    }
  const pan = checked('pan')
  return {
    pan: (value) => pan(normalizePan(value)),
    expiryMonth: checked('expiry_month'),
    expiryYear: (month) =>
      checked('expiry_year', (answer) => {
        const issue = cardExpiryIssue(month, answer, now)
        return issue && (issue.path === 'expiry_year' ? issue.message : `is, with expiry month ${normalizeExpiryMonth(month)}, in the past: the card has expired`)
      }),
    holderName: checked('holder_name'),
  }
}
