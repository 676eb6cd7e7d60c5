/**
 * Redaction of secrets for every place text leaves the process: output, --json, --verbose logs,
 * error messages and saved webhooks. Keys show at most their first and last four characters, a
 * PAN its last four digits, a CVV nothing at all.
 *
 * Three nets, from the most to the least informed: known secrets (what this command read),
 * card-like fields by name (`pan`, `card_number`, `cvv`, ... at any depth), and card numbers by
 * shape (12 to 19 digits, spaces or dashes allowed, Luhn-valid) in any text from outside.
 */
import {luhnValid} from './card-number.js'

/** An API or proxy key as `abcd…wxyz`; short keys show nothing of themselves. */
export function redactKey(key: string | undefined): string {
  if (!key) return '(not set)'
  if (key.length < 12) return '****'
  return `${key.slice(0, 4)}…${key.slice(-4)}`
}

export function maskPan(pan: string): string {
  const digits = pan.replace(/\D/g, '')
  return digits.length >= 4 ? `•••• ${digits.slice(-4)}` : '••••'
}

const CVV_MASK = '***'

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

type FieldKind = 'pan' | 'cvv' | 'key' | undefined

/**
 * Field names repeat from one body to the next (webhooks, answers): their kinds are kept, up to a
 * bound, so that a stream of bodies costs a lookup per field instead of three pattern matches.
 */
const knownFieldKinds = new Map<string, FieldKind>()
const MAX_KNOWN_FIELD_KINDS = 1000

function fieldKind(key: string): FieldKind {
  const known = knownFieldKinds.get(key)
  if (known !== undefined || knownFieldKinds.has(key)) return known
  const kind = classifyField(key)
  if (knownFieldKinds.size < MAX_KNOWN_FIELD_KINDS) knownFieldKinds.set(key, kind)
  return kind
}

function classifyField(key: string): FieldKind {
  const name = fieldName(key)
  if (PAN_FIELDS.has(name)) return 'pan'
  if (CVV_FIELD.test(name)) return 'cvv'
  if (KEY_FIELD.test(name)) return 'key'
  return undefined
}

/**
 * A run of digit groups joined by single spaces or dashes, as card numbers are written; `+` and
 * `%20` are spaces in URL-encoded text such as a form body.
 */
const DIGIT_RUN = /(?<![\dA-Za-z_])\d+(?:(?:[ +-]|%20)\d+)*(?![\dA-Za-z_])/g
/** Ids (UUIDs) hold digit runs that can pass the Luhn check by chance: they are never card numbers. */
const UUID = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/i
const GROUP_SEPARATOR = /([ +-]|%20)/
const MIN_PAN_DIGITS = 12
const MAX_PAN_DIGITS = 19

/**
 * Masks every card number in free text: 12 to 19 digits, written together or in groups joined
 * by single spaces or dashes (URL-encoded too), that pass the Luhn check. Within a longer run of groups (a card
 * number followed by an amount, say), the longest card number from the left is found.
 */
export function maskCardNumbers(text: string): string {
  // Most strings (ids, statuses, names) hold too few digits to be a card number: the common case costs one scan.
  if (!holdsDigits(text, MIN_PAN_DIGITS)) return text
  if (!UUID.test(text)) return maskCardNumbersIn(text)
  return text
    .split(UUID)
    .map((part, index) => (index % 2 === 1 ? part : maskCardNumbersIn(part)))
    .join('')
}

function holdsDigits(text: string, count: number): boolean {
  let found = 0
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index)
    if (char >= 0x30 && char <= 0x39 && ++found >= count) return true
  }
  return false
}

function maskCardNumbersIn(text: string): string {
  return text.replace(DIGIT_RUN, (run) => {
    const parts = run.split(GROUP_SEPARATOR)
    const groups = parts.filter((_, index) => index % 2 === 0)
    if (groups.join('').length < MIN_PAN_DIGITS) return run
    const out: string[] = []
    let start = 0
    while (start < groups.length) {
      const end = cardNumberEnd(groups, start)
      if (end === undefined) {
        out.push(groups[start], parts[2 * start + 1] ?? '')
        start++
        continue
      }
      out.push(maskPan(groups.slice(start, end + 1).join('')), parts[2 * end + 1] ?? '')
      start = end + 1
    }
    return out.join('')
  })
}

/** The last group of the longest card number that starts at group `start`, if any does. */
function cardNumberEnd(groups: string[], start: number): number | undefined {
  let digits = ''
  let found: number | undefined
  for (let end = start; end < groups.length; end++) {
    digits += groups[end]
    if (digits.length > MAX_PAN_DIGITS) break
    if (digits.length >= MIN_PAN_DIGITS && luhnValid(digits)) found = end
  }
  return found
}

/**
 * Every run of six or more digits under a card-number name, Luhn-valid or not (a mistyped PAN
 * is still a PAN); the rest of a message such as "4024 0071 0817 3154 is not valid" stays.
 */
function maskPanField(value: string): string {
  return value.replace(/(?<!\d)\d(?:[ -]?\d){5,}(?!\d)/g, (digits) => maskPan(digits))
}

/** A CVV under a CVV name: the whole value when it is one, any 3- or 4-digit number in a message. */
function maskCvvField(value: string): string {
  if (/^\s*\d*\s*$/.test(value)) return value.trim() === '' ? value : CVV_MASK
  return value.replace(/(?<!\d)\d{3,4}(?!\d)/g, CVV_MASK)
}

function redactString(kind: FieldKind, value: string): string {
  if (kind === 'pan') return maskPanField(value)
  if (kind === 'cvv') return maskCvvField(value)
  if (kind === 'key') return redactKey(value)
  return maskCardNumbers(value)
}

/** A value under a secret name that is not a container: masked whole. */
function redactScalar(kind: FieldKind, value: unknown): unknown {
  if (typeof value === 'string') return redactString(kind, value)
  if (kind === 'pan' && typeof value === 'number') return maskPan(String(value))
  if (kind === 'cvv' && value !== null && value !== undefined) return CVV_MASK
  return value
}

interface PendingCopy {
  value: unknown
  kind: FieldKind
  into: Record<string, unknown> | unknown[]
  key: string | number
}

function assign(into: Record<string, unknown> | unknown[], key: string | number, value: unknown): void {
  // A `__proto__` key from JSON.parse is an own property; plain assignment would set the prototype.
  if (key === '__proto__') Object.defineProperty(into, key, {value, enumerable: true, writable: true, configurable: true})
  else (into as Record<string | number, unknown>)[key] = value
}

/**
 * A deep copy of a JSON value with keys, PANs and CVVs redacted: by field name at any depth
 * (items of a list inherit the list's name), and card numbers by shape in every other string.
 * The walk is iterative, so no body is too deep for it.
 */
export function redactBody(value: unknown): unknown {
  const root: Record<string, unknown> = {}
  const pending: PendingCopy[] = [{value, kind: undefined, into: root, key: 'value'}]
  for (let next = pending.pop(); next; next = pending.pop()) {
    const {value: item, kind, into, key} = next
    if (Array.isArray(item)) {
      const copy: unknown[] = new Array(item.length)
      assign(into, key, copy)
      item.forEach((element, index) => pending.push({value: element, kind, into: copy, key: index}))
    } else if (item !== null && typeof item === 'object' && kind !== 'cvv') {
      const copy: Record<string, unknown> = {}
      assign(into, key, copy)
      for (const [name, element] of Object.entries(item)) {
        const shownName = maskCardNumbers(name)
        // Placed now, filled later: the copy keeps the original order of fields.
        assign(copy, shownName, undefined)
        pending.push({value: element, kind: fieldKind(name) ?? kind, into: copy, key: shownName})
      }
    } else {
      assign(into, key, redactScalar(kind, item))
    }
  }
  return root.value
}

/**
 * `name=value`, `name: value`, `"name": "value"` as found in forms, logs, YAML and JSON text.
 * Names and quoted values are bounded, so that hostile text cannot make a match scan far.
 */
const FIELD_IN_TEXT = /(?<![\w.[\]-])(["']?)([A-Za-z][\w.[\]-]{0,63})\1(\s{0,8}[:=]\s{0,8})(?:"([^"\n]{0,256})"|'([^'\n]{0,256})'|([^\s"'&,;<>{}()]{1,256}))/g
/** `<name>value</name>` as found in XML. */
const FIELD_IN_XML = /<([A-Za-z][\w.-]{0,63})>([^<]{0,256})<\/\1>/g

/**
 * Card fields only: keys in text are replaced as known secrets (`scrubSecrets`), and a key line
 * that is already redacted (`X-APIKEY: sk_l…XcR7`) must stay readable.
 */
function cardFieldKind(name: string): FieldKind {
  const kind = fieldKind(name)
  return kind === 'key' ? undefined : kind
}

/**
 * Text of unknown format from outside (a webhook body that is not JSON, a service message), with
 * card numbers masked by shape and the values of card-like fields masked by name.
 */
export function redactText(text: string): string {
  // Both nets look for digits only (card numbers, CVVs): text without any is left as it is.
  if (!holdsDigits(text, 1)) return text
  return maskCardNumbers(text)
    .replace(FIELD_IN_TEXT, (match, quote: string, name: string, separator: string, doubleQuoted?: string, singleQuoted?: string, bare?: string) => {
      const kind = cardFieldKind(name)
      if (kind === undefined) return match
      const field = `${quote}${name}${quote}${separator}`
      if (doubleQuoted !== undefined) return `${field}"${redactString(kind, doubleQuoted)}"`
      if (singleQuoted !== undefined) return `${field}'${redactString(kind, singleQuoted)}'`
      return `${field}${redactString(kind, bare!)}`
    })
    .replace(FIELD_IN_XML, (match, name: string, value: string) => {
      const kind = cardFieldKind(name)
      return kind === undefined ? match : `<${name}>${redactString(kind, value)}</${name}>`
    })
}

/** Header values redacted when they carry credentials, whatever the profile names the header. */
export function redactHeaders(headers: Record<string, string>, secretHeaderNames: readonly string[] = []): Record<string, string> {
  const secret = new Set(['authorization', 'tx-proxy-key', 'x-apikey', ...secretHeaderNames.map((h) => h.toLowerCase())])
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    out[name] = secret.has(name.toLowerCase()) ? redactKey(value.replace(/^(Basic|Bearer)\s+/i, '')) : redactText(value)
  }
  return out
}

/**
 * The last safety net for text leaving the process: replaces every occurrence of a known secret
 * (keys, PANs, CVVs), then masks what `redactText` finds by shape and by field name, such as a
 * service's error message that echoes the card back in groups.
 */
export function scrubSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text
  for (const secret of secrets) {
    if (!secret) continue
    if (/^\d{3,4}$/.test(secret)) {
      // A CVV: only as a number of its own, so that longer numbers around it survive.
      out = out.replace(new RegExp(`(?<!\\d)${secret}(?!\\d)`, 'g'), CVV_MASK)
      continue
    }
    if (secret.length < 6) continue
    const replacement = /^\d+$/.test(secret) ? maskPan(secret) : redactKey(secret)
    out = out.split(secret).join(replacement)
  }
  return redactText(out)
}
