/**
 * Fields that hold secrets, known by their names (`pan`, `card_number`, `cvv`, `api_key`, ...),
 * and how a value under each is shown: a key at most its first and last four characters, a PAN
 * its last four digits, a CVV nothing at all.
 */
import {maskCardNumbers, maskDigits, maskPanRuns} from './card-numbers-in-text.js'
import {EditedText} from './edited-text.js'

/** An API or proxy key as `abcd…wxyz`; short keys show nothing of themselves. */
export function redactKey(key: string | undefined): string {
  if (!key) return '(not set)'
  if (key.length < 12) return '****'
  return `${key.slice(0, 4)}…${key.slice(-4)}`
}

export function maskPan(pan: string): string {
  const digits = pan.replace(/\D/g, '')
  return digits.length >= 4 ? maskDigits(digits) : '••••'
}

export const CVV_MASK = '***'

/**
 * A field's own name, compared without case or separators: `body.card_number`, `card[cvv]`,
 * `cardNumber` and `Card-Number` name the same things as `card_number` and `cvv`.
 */
function fieldName(key: string): string {
  const segments = key.split(/[.[\]]/).filter(Boolean)
  return (segments.at(-1) ?? key).toLowerCase().replace(/[^a-z0-9]/g, '')
}

const PAN_FIELDS = new Set(['pan', 'cardnumber', 'cardno', 'cardnum', 'ccnumber', 'creditcardnumber', 'primaryaccountnumber', 'number'])
const CVV_FIELD = /cvv|cvc|cvn|^(securitycode|cardsecuritycode|csc)$/
const KEY_FIELD = /apikey|proxykey|secret|password|authorization/

export type FieldKind = 'pan' | 'cvv' | 'key' | undefined

/**
 * A CVV named in words, as a service's message may quote one with no field around it:
 * `cvv 7391`, `CVC2 is 123`, `security code: 123`. (Blanks are bounded: hostile text cannot make
 * the scan go back and forth.)
 */
const CVV_IN_WORDS = /\b(cvv2?|cvc2?|cvn|csc|security code)(\s{1,8}(?:is\s{1,8}|of\s{1,8})?|\s{0,8}[#:=]\s{0,8})\d{3,4}(?!\d)/gi

/** Free text with every CVV named in words masked (`cvv ***`); a CVV the command knows is scrubbed as a known secret. */
export function maskCvvsInWords(text: string): string {
  return text.replace(CVV_IN_WORDS, (_, name: string, between: string) => `${name}${between}${CVV_MASK}`)
}

/**
 * Field names repeat from one body to the next (webhooks, answers): their kinds are kept, up to a
 * bound, so that a stream of bodies costs a lookup per field instead of three pattern matches.
 */
const knownFieldKinds = new Map<string, FieldKind | null>()
const MAX_KNOWN_FIELD_KINDS = 1000

export function fieldKind(key: string): FieldKind {
  // A name known to be no secret field is kept as null: one look-up, where undefined took two.
  const known = knownFieldKinds.get(key)
  if (known !== undefined) return known ?? undefined
  const kind = classifyField(key)
  if (knownFieldKinds.size < MAX_KNOWN_FIELD_KINDS) knownFieldKinds.set(key, kind ?? null)
  return kind
}

function classifyField(key: string): FieldKind {
  const name = fieldName(key)
  if (PAN_FIELDS.has(name)) return 'pan'
  if (CVV_FIELD.test(name)) return 'cvv'
  if (KEY_FIELD.test(name)) return 'key'
  return undefined
}

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39

/** A string under a card-number name, its digit runs masked (`maskPanRuns`). */
function maskPanField(value: string): string {
  maskPanRuns(panField.begin(value), 0, value.length)
  return panField.finish()
}

/** The value being masked, kept between calls (redaction is synchronous). */
const panField = new EditedText()

function allDigits(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (!isDigit(text.charCodeAt(index))) return false
  return true
}

/** A CVV under a CVV name: the whole value when it is one, any 3- or 4-digit number in a message. */
function maskCvvField(value: string): string {
  // Trimmed first: /^\s*\d*\s*$/ would try every split of a long run of spaces between its two \s*.
  const trimmed = value.trim()
  if (trimmed === '') return value
  if (allDigits(trimmed)) return CVV_MASK
  return value.replace(/(?<!\d)\d{3,4}(?!\d)/g, CVV_MASK)
}

/** A string under a field of kind `kind`, as shown; card numbers by shape under any other name. */
export function redactString(kind: FieldKind, value: string): string {
  if (kind === 'pan') return maskPanField(value)
  if (kind === 'cvv') return maskCvvField(value)
  if (kind === 'key') return redactKey(value)
  return maskCardNumbers(value)
}
