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

/** `1` and `01` mean the same month; the service gets two digits. */
export function normalizeExpiryMonth(month: string): string {
  return /^[1-9]$/.test(month.trim()) ? `0${month.trim()}` : month.trim()
}

export function cardIssuesToProblems(issues: ValidationIssue[], panSource: PanSource): InputProblem[] {
  return issues.map((issue) => ({
    flag: issue.path === 'pan' ? (panSource === 'prompt' ? 'card number' : panSource) : (CARD_FIELD_FLAGS[issue.path] ?? issue.path),
    field: issue.path,
    message: issue.message,
  }))
}
