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
  // A UUID's first dash comes 8 characters in: without one, no UUID to look for.
  if (text.indexOf('-', 8) === -1) return maskCardNumbersIn(text)
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
  // An index loop, not entries(): this runs at every dash, and a megabyte of `1-1-1...` has half a million.
  for (let group = 0; group < UUID_GROUPS.length; group++) {
    if (group > 0 && text.charCodeAt(index++) !== 0x2d) return false
    for (const end = index + UUID_GROUPS[group]; index < end; index++) if (!isHexDigit(text.charCodeAt(index))) return false
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

/** Where a separator joining two digit groups ends, if one starts at `index`: ` `, `+`, `-` or `%20`, then a digit; -1 if none. */
function separatorEnd(text: string, index: number): number {
  const code = text.charCodeAt(index)
  let end: number
  if (code === 0x20 || code === 0x2b || code === 0x2d) end = index + 1
  else if (code === 0x25 && text.charCodeAt(index + 1) === 0x32 && text.charCodeAt(index + 2) === 0x30) end = index + 3
  else return -1
  return isDigit(text.charCodeAt(end)) ? end : -1
}

/** Luhn's doubled digit, by digit. */
const DOUBLED = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9]

/**
 * The run of digit groups being scanned, with what the Luhn check of any span of whole groups
 * needs in O(1): digits counted from the run's start, and two Luhn sums (mod 10) of the digits so
 * far, one doubling the digits at even positions, the other those at odd ones. A span's check sum
 * is the difference of the sums at its ends, taken with the parity of its last digit: that digit
 * is the check digit, never doubled, so the sum that doubles the other parity is the one compared.
 *
 * Row `r` holds the figures after `r` groups (row 0: none yet, all zero) and where group `r - 1`
 * starts and ends, five numbers a row in one typed array kept between calls (redaction is
 * synchronous): a megabyte of `1 1 1 ...` is half a million groups, and arrays of objects would
 * cost more in allocation than the scan itself.
 */
const ROW = 5
const [START, END, DIGITS, EVEN_DOUBLED, ODD_DOUBLED] = [0, 1, 2, 3, 4]
let rows = new Int32Array(ROW * 1024)

const groupStart = (group: number) => rows[(group + 1) * ROW + START]
const groupEnd = (group: number) => rows[(group + 1) * ROW + END]
/** Digits in the run before group `group`, or up to its end with `group + 1`. */
const digitsBefore = (group: number) => rows[group * ROW + DIGITS]

/**
 * Reads the digit groups of the run that starts at `start` into `rows`, and says how many there
 * are. A run must not be glued to a word at either end: when its last group is, the run ends
 * before that group; a run of one such group is none.
 */
function readDigitRun(text: string, start: number): number {
  let data = rows
  let groups = 0
  let index = start
  let digits = 0
  let evenDoubled = 0
  let oddDoubled = 0
  for (;;) {
    if ((groups + 2) * ROW > data.length) {
      rows = new Int32Array(data.length * 2)
      rows.set(data)
      data = rows
    }
    const row = (groups + 1) * ROW
    data[row + START] = index
    // Summed as they come, brought back mod 10 once a group: a test per digit costs more.
    for (; index < text.length; index++) {
      const digit = text.charCodeAt(index) - 0x30
      if (digit < 0 || digit > 9) break
      if ((digits & 1) === 0) {
        evenDoubled += DOUBLED[digit]
        oddDoubled += digit
      } else {
        oddDoubled += DOUBLED[digit]
        evenDoubled += digit
      }
      digits++
    }
    evenDoubled %= 10
    oddDoubled %= 10
    data[row + END] = index
    data[row + DIGITS] = digits
    data[row + EVEN_DOUBLED] = evenDoubled
    data[row + ODD_DOUBLED] = oddDoubled
    groups++
    const next = separatorEnd(text, index)
    if (next === -1) break
    index = next
  }
  return index < text.length && isWordChar(text.charCodeAt(index)) ? groups - 1 : groups
}

/**
 * The mask of a card number ending with group `last`, from its last four digits, read without what
 * joins its groups (a `%20` holds digits of its own); a card number has twelve digits or more, so
 * four are there. Masks are kept by those digits (10,000 at most): a megabyte of card numbers is
 * fifty thousand masks, and a string for each would be garbage for the collector to sweep.
 */
function maskOfSpan(text: string, last: number): string {
  let lastFour = 0
  let scale = 1
  for (let group = last, found = 0; found < 4; group--) {
    for (let index = groupEnd(group) - 1; index >= groupStart(group) && found < 4; index--, found++, scale *= 10) {
      lastFour += (text.charCodeAt(index) - 0x30) * scale
    }
  }
  return (masksByLastFour[lastFour] ??= maskDigits(String(lastFour).padStart(4, '0')))
}

const masksByLastFour: string[] = []

/** Per Luhn sum to compare (parity of the digits so far, then the sum): the latest row that has it. */
const latestRow = new Int32Array(20)

/**
 * Masks the card numbers of the run just read (`groups` groups), adding to `out` the text since
 * `copied` and each mask, and says where copying resumes. From each group, the longest card number
 * starting there is taken (separators inside it go with it). The spans of 12 to 19 digits lie
 * between two pointers that only move forward; rows are entered in `latestRow` as the far one
 * passes them, so the longest Luhn-valid span from a group is two look-ups, not a check per span.
 * Nothing is copied group by group: a megabyte of `1 1 1 ...` holds no card number and costs no
 * string at all.
 */
function maskRun(text: string, groups: number, out: string[], copied: number): number {
  const data = rows
  latestRow.fill(-1)
  let shortest = 0
  let longest = 0
  for (let group = 0; group < groups; ) {
    const row = group * ROW
    const fewest = data[row + DIGITS] + MIN_PAN_DIGITS
    const most = data[row + DIGITS] + MAX_PAN_DIGITS
    if (shortest < group) shortest = group
    while (shortest < groups && data[(shortest + 1) * ROW + DIGITS] < fewest) shortest++
    while (longest < groups && data[(longest + 1) * ROW + DIGITS] <= most) {
      longest++
      const odd = data[longest * ROW + DIGITS] & 1
      latestRow[odd * 10 + data[longest * ROW + (odd === 1 ? ODD_DOUBLED : EVEN_DOUBLED)]] = longest
    }
    // A span ending with row `end` is Luhn-valid when the sums compared at its parity are equal.
    const end = Math.max(latestRow[data[row + EVEN_DOUBLED]], latestRow[10 + data[row + ODD_DOUBLED]])
    if (end <= shortest) {
      group++
      continue
    }
    const found = end - 1
    out.push(text.slice(copied, groupStart(group)), maskOfSpan(text, found))
    copied = groupEnd(found)
    group = found + 1
  }
  return copied
}

/** The pieces of the text being masked, in one array kept between calls (redaction is synchronous). */
const maskedPieces: string[] = []

function maskCardNumbersIn(text: string): string {
  let copied = 0
  let index = 0
  while (index < text.length) {
    if (!isDigit(text.charCodeAt(index)) || (index > 0 && isWordChar(text.charCodeAt(index - 1)))) {
      index++
      continue
    }
    const groups = readDigitRun(text, index)
    if (groups === 0) {
      // One group glued to a word: no run starts inside it either.
      while (isDigit(text.charCodeAt(index))) index++
      continue
    }
    // Too few digits for a card number: nothing to mask, nothing to copy.
    if (digitsBefore(groups) >= MIN_PAN_DIGITS) copied = maskRun(text, groups, maskedPieces, copied)
    index = groupEnd(groups - 1)
  }
  if (copied === 0) return text
  // A value that is one card number (a list of them, say) is its mask, without a join.
  const whole = copied === text.length && maskedPieces.length === 2 && maskedPieces[0] === ''
  if (!whole) maskedPieces.push(text.slice(copied))
  const masked = whole ? maskedPieces[1] : maskedPieces.join('')
  maskedPieces.length = 0
  return masked
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

function assign(into: Record<string, unknown>, key: string, value: unknown): void {
  // A `__proto__` key from JSON.parse is an own property; plain assignment would set the prototype.
  if (key === '__proto__') Object.defineProperty(into, key, {value, enumerable: true, writable: true, configurable: true})
  else into[key] = value
}

/**
 * A deep copy of a JSON value with keys, PANs and CVVs redacted: by field name at any depth
 * (items of a list inherit the list's name), and card numbers by shape in every other string.
 * The walk is iterative, so no body is too deep for it.
 */
export function redactBody(value: unknown): unknown {
  // Containers still to fill: each copy is made and placed in its parent when met (so the copy
  // keeps the original order of fields), and filled when its turn comes. Three stacks side by
  // side rather than a record each: 1 MB of nesting is 175,000 containers.
  const sources: object[] = []
  const copies: (Record<string, unknown> | unknown[])[] = []
  const kinds: FieldKind[] = []
  const copyOf = (element: unknown, kind: FieldKind): unknown => {
    if (element === null || typeof element !== 'object') return redactScalar(kind, element)
    const list = Array.isArray(element)
    // Whatever sits under a CVV name is masked whole, but a list of them is still a list.
    if (kind === 'cvv' && !list) return CVV_MASK
    const copy = list ? new Array(element.length) : {}
    sources.push(element)
    copies.push(copy)
    kinds.push(kind)
    return copy
  }
  const result = copyOf(value, undefined)
  while (sources.length > 0) {
    const source = sources.pop()!
    const copy = copies.pop()!
    const kind = kinds.pop()
    if (Array.isArray(copy)) {
      const items = source as unknown[]
      for (let index = 0; index < items.length; index++) copy[index] = copyOf(items[index], kind)
    } else {
      const record = source as Record<string, unknown>
      // for...in with an own-property check is Object.keys without an array for every object.
      for (const name in record) {
        if (Object.hasOwn(record, name)) assign(copy, maskCardNumbers(name), copyOf(record[name], fieldKind(name) ?? kind))
      }
    }
  }
  return result
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
      const value = doubleQuoted ?? singleQuoted ?? bare!
      const redacted = redactString(kind, value)
      // Already masked (the card number net ran first): the match stays as it is, with no new string.
      if (redacted === value) return match
      const closing = doubleQuoted !== undefined || singleQuoted !== undefined ? 1 : 0
      return `${match.slice(0, match.length - value.length - closing)}${redacted}${match.slice(match.length - closing)}`
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
