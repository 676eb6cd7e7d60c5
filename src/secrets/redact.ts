/**
 * Redaction of secrets for every place text leaves the process: output, --json, --verbose logs,
 * error messages and saved webhooks. Keys show at most their first and last four characters, a
 * PAN its last four digits, a CVV nothing at all.
 *
 * Three nets, from the most to the least informed: known secrets (what this command read),
 * card-like fields by name (`pan`, `card_number`, `cvv`, ... at any depth), and card numbers by
 * shape (12 to 19 digits, spaces or dashes allowed, Luhn-valid) in any text from outside.
 */
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

/** A card number already known to be four digits or more, and nothing else. */
const maskDigits = (digits: string) => `•••• ${digits.slice(-4)}`

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

/** Ids (UUIDs) hold digit runs that can pass the Luhn check by chance: they are never card numbers. */
const UUID_GROUPS = [8, 4, 4, 4, 12]
const UUID_LENGTH = 36
const MIN_PAN_DIGITS = 12
const MAX_PAN_DIGITS = 19

/**
 * Masks every card number in free text: 12 to 19 digits, written together or in groups joined
 * by single spaces or dashes (`+` and `%20` too, as URL-encoded text writes a space), that pass
 * the Luhn check. Within a longer run of groups (a card number followed by an amount, say), the
 * longest card number from the left is found. One pass over the text, however hostile its shape.
 */
export function maskCardNumbers(text: string): string {
  // Most strings (ids, statuses, names) hold too few digits to be a card number: the common case costs one scan.
  if (!holdsDigits(text, MIN_PAN_DIGITS)) return text
  // The parts between UUIDs are masked on their own; the UUIDs stay as they are.
  const pieces: string[] = []
  let partStart = 0
  for (const uuidStart of uuidStarts(text)) {
    pieces.push(maskCardNumbersIn(text.slice(partStart, uuidStart)), text.slice(uuidStart, uuidStart + UUID_LENGTH))
    partStart = uuidStart + UUID_LENGTH
  }
  if (partStart === 0) return maskCardNumbersIn(text)
  pieces.push(maskCardNumbersIn(text.slice(partStart)))
  return pieces.join('')
}

const isHexDigit = (code: number) => isDigit(code) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66)

function isUuidAt(text: string, start: number): boolean {
  let index = start
  for (const [group, length] of UUID_GROUPS.entries()) {
    if (group > 0 && text.charCodeAt(index++) !== 0x2d) return false
    for (const end = index + length; index < end; index++) if (!isHexDigit(text.charCodeAt(index))) return false
  }
  return true
}

/**
 * Where each UUID starts, from the left, none overlapping: a UUID's first dash comes 8 characters
 * in, so only dashes are looked at, each once (a pattern would be tried at every character).
 */
function uuidStarts(text: string): number[] {
  const starts: number[] = []
  let earliest = 0
  for (let dash = text.indexOf('-', 8); dash !== -1; dash = text.indexOf('-', Math.max(dash + 1, earliest + 8))) {
    const start = dash - 8
    if (start >= earliest && isUuidAt(text, start)) {
      starts.push(start)
      earliest = start + UUID_LENGTH
    }
  }
  return starts
}

function holdsDigits(text: string, count: number): boolean {
  let found = 0
  for (let index = 0; index < text.length; index++) {
    if (isDigit(text.charCodeAt(index)) && ++found >= count) return true
  }
  return false
}

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39

/** A letter, digit or `_`: a number glued to one is part of a word (an id, a hex string), not a card number. */
function isWordChar(code: number): boolean {
  return isDigit(code) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f
}

/** Where a separator joining two digit groups ends, if one starts at `index`: ` `, `+`, `-` or `%20`, then a digit. */
function separatorEnd(text: string, index: number): number | undefined {
  const code = text.charCodeAt(index)
  let end: number
  if (code === 0x20 || code === 0x2b || code === 0x2d) end = index + 1
  else if (code === 0x25 && text.startsWith('20', index + 1)) end = index + 3
  else return undefined
  return isDigit(text.charCodeAt(end)) ? end : undefined
}

/** Luhn's doubled digit, by digit. */
const DOUBLED = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9]

/**
 * A run of digit groups, with what the Luhn check of any span of whole groups needs in O(1):
 * digits counted from the run's start, and two Luhn sums (mod 10) of the digits so far, one
 * doubling the digits at even positions, the other those at odd ones. A span's check sum is the
 * difference of the sums at its ends, taken with the parity of its last digit.
 *
 * Five numbers a group, in one typed array kept between calls (redaction is synchronous): a
 * megabyte of `1 1 1 ...` is half a million groups, and arrays of objects would cost more in
 * allocation than the scan itself.
 */
const GROUP_FIELDS = 5
const [START, END, DIGITS, EVEN_DOUBLED, ODD_DOUBLED] = [0, 1, 2, 3, 4]
let groupData = new Int32Array(GROUP_FIELDS * 1024)

interface DigitRun {
  groups: number
  data: Int32Array
}

const groupStart = (run: DigitRun, group: number) => run.data[group * GROUP_FIELDS + START]
const groupEnd = (run: DigitRun, group: number) => run.data[group * GROUP_FIELDS + END]
/** A figure before group `group` (0 for the first), or after it with `group + 1`. */
const before = (run: DigitRun, group: number, field: number) => (group === 0 ? 0 : run.data[(group - 1) * GROUP_FIELDS + field])

/** Adds a digit to a Luhn sum mod 10. */
const addMod10 = (sum: number, value: number) => (sum + value >= 10 ? sum + value - 10 : sum + value)

/**
 * The digit groups of the run that starts at `start`. A run must not be glued to a word at either
 * end: when its last group is, the run ends before that group; a run of one such group is none.
 */
function digitRun(text: string, start: number): DigitRun {
  let groups = 0
  let index = start
  let digits = 0
  let evenDoubled = 0
  let oddDoubled = 0
  for (;;) {
    if ((groups + 1) * GROUP_FIELDS > groupData.length) {
      const grown = new Int32Array(groupData.length * 2)
      grown.set(groupData)
      groupData = grown
    }
    const base = groups * GROUP_FIELDS
    groupData[base + START] = index
    for (let code = text.charCodeAt(index); isDigit(code); code = text.charCodeAt(++index)) {
      const digit = code - 0x30
      if (digits % 2 === 0) {
        evenDoubled = addMod10(evenDoubled, DOUBLED[digit])
        oddDoubled = addMod10(oddDoubled, digit)
      } else {
        oddDoubled = addMod10(oddDoubled, DOUBLED[digit])
        evenDoubled = addMod10(evenDoubled, digit)
      }
      digits++
    }
    groupData[base + END] = index
    groupData[base + DIGITS] = digits
    groupData[base + EVEN_DOUBLED] = evenDoubled
    groupData[base + ODD_DOUBLED] = oddDoubled
    groups++
    const next = separatorEnd(text, index)
    if (next === undefined) break
    index = next
  }
  if (index < text.length && isWordChar(text.charCodeAt(index))) groups--
  return {groups, data: groupData}
}

/** Whether groups `first` to `last` make a Luhn-valid number: its last digit is the check digit, never doubled. */
function luhnValidSpan(run: DigitRun, first: number, last: number): boolean {
  const lastDigit = before(run, last + 1, DIGITS) - 1
  const sums = lastDigit % 2 === 0 ? ODD_DOUBLED : EVEN_DOUBLED
  return before(run, last + 1, sums) === before(run, first, sums)
}

/** The digits of groups `first` to `last`, without what joins them (a `%20` holds digits of its own). */
function groupDigits(text: string, run: DigitRun, first: number, last: number): string {
  let digits = ''
  for (let group = first; group <= last; group++) digits += text.slice(groupStart(run, group), groupEnd(run, group))
  return digits
}

/**
 * The run with its card numbers masked, or undefined when it holds none. From each group, the
 * longest card number starting there is taken (separators inside it go with it); the spans tried
 * are those of 12 to 19 digits, found by a pointer that only moves forward.
 */
function maskRun(text: string, run: DigitRun): string | undefined {
  const {groups} = run
  // One group (a number written together) is the common case: no spans to try.
  if (groups === 1) {
    const digits = groupEnd(run, 0) - groupStart(run, 0)
    return digits <= MAX_PAN_DIGITS && luhnValidSpan(run, 0, 0) ? maskDigits(text.slice(groupStart(run, 0), groupEnd(run, 0))) : undefined
  }
  const separatorAfter = (group: number) => (group + 1 < groups ? text.slice(groupEnd(run, group), groupStart(run, group + 1)) : '')
  const digitsOf = (first: number, last: number) => before(run, last + 1, DIGITS) - before(run, first, DIGITS)
  let out: string[] | undefined
  let shortest = 0
  for (let group = 0; group < groups; ) {
    shortest = Math.max(shortest, group)
    while (shortest < groups && digitsOf(group, shortest) < MIN_PAN_DIGITS) shortest++
    let found: number | undefined
    for (let last = shortest; last < groups && digitsOf(group, last) <= MAX_PAN_DIGITS; last++) {
      if (luhnValidSpan(run, group, last)) found = last
    }
    if (found === undefined) {
      out?.push(text.slice(groupStart(run, group), groupEnd(run, group)), separatorAfter(group))
      group++
      continue
    }
    // The first card number found: what came before it in the run is copied as it was.
    out ??= [text.slice(groupStart(run, 0), groupStart(run, group))]
    out.push(maskDigits(groupDigits(text, run, group, found)), separatorAfter(found))
    group = found + 1
  }
  return out?.join('')
}

function maskCardNumbersIn(text: string): string {
  const pieces: string[] = []
  let copied = 0
  let index = 0
  while (index < text.length) {
    if (!isDigit(text.charCodeAt(index)) || (index > 0 && isWordChar(text.charCodeAt(index - 1)))) {
      index++
      continue
    }
    const run = digitRun(text, index)
    if (run.groups === 0) {
      // One group glued to a word: no run starts inside it either.
      while (isDigit(text.charCodeAt(index))) index++
      continue
    }
    const runEnd = groupEnd(run, run.groups - 1)
    // Too few digits for a card number: nothing to mask, nothing to copy.
    const masked = before(run, run.groups, DIGITS) < MIN_PAN_DIGITS ? undefined : maskRun(text, run)
    if (masked !== undefined) {
      pieces.push(text.slice(copied, index), masked)
      copied = runEnd
    }
    index = runEnd
  }
  if (copied === 0) return text
  pieces.push(text.slice(copied))
  return pieces.join('')
}

/**
 * Every run of six or more digits under a card-number name (single spaces or dashes between
 * them allowed), Luhn-valid or not (a mistyped PAN is still a PAN); the rest of a message such as
 * "4024 0071 0817 3154 is not valid" stays. A scan, not a pattern: a pattern's backtracking
 * stack grows with the run and overflows on a long one.
 */
function maskPanField(value: string): string {
  const pieces: string[] = []
  let copied = 0
  let index = 0
  while (index < value.length) {
    if (!isDigit(value.charCodeAt(index))) {
      index++
      continue
    }
    const start = index
    let digits = 0
    for (;;) {
      while (isDigit(value.charCodeAt(index))) {
        index++
        digits++
      }
      const separator = value.charCodeAt(index)
      if ((separator === 0x20 || separator === 0x2d) && isDigit(value.charCodeAt(index + 1))) index++
      else break
    }
    if (digits >= 6) {
      pieces.push(value.slice(copied, start), maskPan(value.slice(start, index)))
      copied = index
    }
  }
  if (copied === 0) return value
  pieces.push(value.slice(copied))
  return pieces.join('')
}

/** A CVV under a CVV name: the whole value when it is one, any 3- or 4-digit number in a message. */
function maskCvvField(value: string): string {
  // Trimmed first: /^\s*\d*\s*$/ would try every split of a long run of spaces between its two \s*.
  const trimmed = value.trim()
  if (trimmed === '') return value
  if (/^\d*$/.test(trimmed)) return CVV_MASK
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
  // Scalars are copied where they are met; only containers wait their turn, placed in their
  // parent already so that the copy keeps the original order of fields.
  const copyInto = (into: Record<string, unknown> | unknown[], key: string | number, element: unknown, kind: FieldKind) => {
    if (element !== null && typeof element === 'object') {
      assign(into, key, undefined)
      pending.push({value: element, kind, into, key})
    } else {
      assign(into, key, redactScalar(kind, element))
    }
  }
  for (let next = pending.pop(); next; next = pending.pop()) {
    const {value: item, kind, into, key} = next
    if (Array.isArray(item)) {
      const copy: unknown[] = new Array(item.length)
      assign(into, key, copy)
      for (let index = 0; index < item.length; index++) copyInto(copy, index, item[index], kind)
    } else if (item !== null && typeof item === 'object' && kind !== 'cvv') {
      const copy: Record<string, unknown> = {}
      assign(into, key, copy)
      const record = item as Record<string, unknown>
      for (const name of Object.keys(record)) copyInto(copy, maskCardNumbers(name), record[name], fieldKind(name) ?? kind)
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
 * The values a request body holds under card and key field names (`cvv`, `card[number]`,
 * `api_key`, at any depth; fields as `key=value` text too), to scrub from what comes back: a
 * service may quote a CVV in its error text, where no field name marks it.
 */
export function secretValuesOf(value: unknown, depth = 0): string[] {
  if (depth > 64 || value === null || typeof value !== 'object') return []
  return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) => {
    if (fieldKind(key) && (typeof item === 'string' || typeof item === 'number')) return [String(item).trim()]
    return secretValuesOf(item, depth + 1)
  })
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
