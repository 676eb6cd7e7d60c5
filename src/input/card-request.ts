/** Turns `paytx card tokenize` input into a card request, and its problems into messages naming the flags. */
import type {ValidationIssue} from '../api/schemas.js'
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
