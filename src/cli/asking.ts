/**
 * Asking a person, for the base command: a value the command cannot do without (each answer
 * checked as it is typed, so a wrong one is asked again at once and no earlier answer is lost),
 * and a yes to a change (the production guard). Without a person at the terminal nothing is
 * asked: a missing value names its flag, a missing yes names --yes (exit 2, nothing sent).
 */
import {InputError} from '../errors.js'
import {requireFlag} from '../input/required-flag.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import {productionAddressShown, productionWhy} from '../terminal/production-banner.js'
import type {AnswerCheck, Prompter} from '../terminal/prompts.js'

/** How to ask for one value. */
export interface ValueQuestion {
  message: string
  secret?: boolean
  /** Checks the answer (trimmed, and normalized when `normalize` is given) as it is typed. */
  validate?: AnswerCheck
  /** The allowed values, said when the flag is missing without a terminal. */
  allowed?: string
  /** The answer as it is used: `nl` → `NL` for a country code. The check sees it so too. */
  normalize?: (answer: string) => string
}

/**
 * What a required answer is called when it is left empty: the question without its parenthesis,
 * its example or its list of values (`Two-letter country code, e.g. NL (country_code)` → `Two-letter
 * country code`).
 */
export function askedName(message: string): string {
  return message
    .replace(/\s*\(.*\)\s*:?$|:$/, '')
    .replace(/,\s*e\.g\..*$/, '')
    .replace(/:\s.*$/, '')
    .trim()
}

/** `flag`'s value when given, else asked when `prompter` is there (a person at the terminal), else an input error naming the flag. */
export async function requireAnswer(prompter: Prompter | undefined, flag: string, value: string | undefined, question: ValueQuestion): Promise<string> {
  if ((value !== undefined && value !== '') || !prompter) return requireFlag(flag, value, question.allowed)
  // A person at a prompt typed no flag: problems name what was asked.
  const asked = askedName(question.message)
  const normalize = (answer: string) => (question.normalize ? question.normalize(answer.trim()) : answer.trim())
  const validate = (answer: string) => (answer.trim() === '' ? `${asked} is required` : (question.validate?.(normalize(answer)) ?? true))
  const answer = question.secret ? await prompter.askSecret(question.message, {validate}) : await prompter.ask(question.message, {validate})
  return normalize(answer)
}

/** What to say when a change needs a yes. */
export interface Confirmation {
  yes: boolean
  refusal: string
  question: string
  cancelled: string
  hint?: string
}

/**
 * A change that needs a yes: --yes gives it; a person at the terminal (`prompter`) is asked;
 * otherwise the command refuses (exit 2, naming --yes). A "no" is an input error too.
 */
export async function confirmOrRefuse(prompter: Prompter | undefined, ask: Confirmation): Promise<void> {
  if (ask.yes) return
  if (!prompter) {
    throw new InputError(ask.refusal, ask.hint ? {hint: ask.hint} : {flag: '--yes', hint: 'Pass --yes to confirm, or run it in a terminal to be asked.'})
  }
  if (!(await prompter.confirm(ask.question))) throw new InputError(ask.cancelled)
}

/** The production guard's words for `action` on `resolved` (production by label or by address, see profiles/production.ts). */
export function productionConfirmation(resolved: ResolvedProfile, action: string, yes: boolean): Confirmation {
  const {name} = resolved
  const why = productionWhy(resolved)
  return {
    yes,
    refusal: `Refusing to ${action} on production profile "${name}" without confirmation${why ? ` (${why})` : ''}.`,
    question: `This will ${action} on PRODUCTION (profile "${name}", ${productionAddressShown(resolved)}${why ? `; ${why}` : ''}). Continue?`,
    cancelled: 'Cancelled; nothing was sent.',
  }
}
