/**
 * Card fields written in text of unknown format, found by their names: `name=value`,
 * `name: value`, `"name": "value"` (forms, logs, YAML, JSON) and `<name>value</name>` (XML).
 */
import {maskPanRuns} from './card-numbers-in-text.js'
import {EditedText} from './edited-text.js'
import {CVV_MASK, type FieldKind, fieldKind, redactString} from './secret-fields.js'

/**
 * Card fields only: keys in text are replaced as known secrets (`scrubSecrets`), and a key line
 * that is already redacted (`X-APIKEY: sk_l…XcR7`) must stay readable.
 */
function cardFieldKind(name: string): FieldKind {
  const kind = fieldKind(name)
  return kind === 'key' ? undefined : kind
}

/**
 * The names met last and their kinds, in 256 places chosen by the name's length and first,
 * second and last characters: the same few names come again and again (in every record of a
 * list, every field of a form), and comparing one where it stands costs less than a string cut
 * out of the text for it and a look-up (a megabyte of form fields has 72,000).
 */
const recentNames: string[] = Array.from({length: 256}, () => '')
const recentKinds: FieldKind[] = Array.from({length: 256}, () => undefined)

/** The kind of the card field named by the text from `start` to `end`, if it names one. */
function cardFieldKindAt(text: string, start: number, end: number): FieldKind {
  const length = end - start
  const place = Math.imul((length << 16) ^ (text.charCodeAt(start) << 8) ^ (text.charCodeAt(start + 1) << 4) ^ text.charCodeAt(end - 1), 0x9e3779b1) >>> 24
  const recent = recentNames[place]
  let same = recent.length === length
  for (let index = 0; same && index < length; index++) same = recent.charCodeAt(index) === text.charCodeAt(start + index)
  if (same) return recentKinds[place]
  const name = text.slice(start, end)
  recentNames[place] = name
  return (recentKinds[place] = cardFieldKind(name))
}

/**
 * Names, the blanks around `:` or `=` and values are bounded, so that hostile text cannot make
 * the scan read far from where it is. (The figures of this scan are const enums, which esbuild
 * writes as plain numbers: a module-level constant is read from memory at every use.)
 */
const enum Longest {
  Name = 64,
  Blanks = 8,
  Value = 256,
}

const enum Char {
  Newline = 0x0a,
  Return = 0x0d,
  DoubleQuote = 0x22,
  SingleQuote = 0x27,
  Colon = 0x3a,
  Equals = 0x3d,
}

/** What a regular expression's `\s` matches. */
function isBlank(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d)
  if (code < 0xa0) return false
  return code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff
}

/**
 * What each ASCII character is to the scan, one bit a class (a table look-up costs less than the
 * comparisons, and the name and value loops run for every character of every field).
 */
const enum Class {
  Letter = 1,
  NameChar = 2,
  BareValueChar = 4,
}

const ASCII_CLASSES = new Uint8Array(128).map((_, code) => {
  const char = String.fromCharCode(code)
  const letter = /[A-Za-z]/.test(char) ? Class.Letter : 0
  // A letter, digit, `_`, `.`, `[`, `]` or `-`: what a field name is made of (`body.card_number`, `card[cvc]`).
  const name = /[\w.[\]-]/.test(char) ? Class.NameChar : 0
  // Anything but a blank, a quote or `&,;<>{}()`: what an unquoted value is made of.
  const bare = /[^\s"'&,;<>{}()]/.test(char) ? Class.BareValueChar : 0
  return letter | name | bare
})

const isLetter = (code: number) => code < 128 && (ASCII_CLASSES[code] & Class.Letter) !== 0
const isNameChar = (code: number) => code < 128 && (ASCII_CLASSES[code] & Class.NameChar) !== 0
const isBareValueChar = (code: number) => (code < 128 ? (ASCII_CLASSES[code] & Class.BareValueChar) !== 0 : !isBlank(code))

/**
 * The field around one `:` or `=`, as the scan finds it: where its name and value are, and where
 * it ends. One instance kept between calls (redaction is synchronous).
 */
const field = {nameStart: 0, nameEnd: 0, valueStart: 0, valueEnd: 0, end: 0}

/**
 * Whether a field name ends just before the `:` or `=` at `separator` (blanks between, at most
 * eight): a letter, then name characters, 64 at most, not glued to a name character before it,
 * in matching quotes or none; the field may not start before `earliest` (the end of the field
 * before it).
 */
function nameBefore(text: string, separator: number, earliest: number): boolean {
  let nameEnd = separator
  while (nameEnd > 0 && isBlank(text.charCodeAt(nameEnd - 1))) {
    if (separator - nameEnd >= Longest.Blanks) return false
    nameEnd--
  }
  const quote = text.charCodeAt(nameEnd - 1)
  const quoted = quote === Char.DoubleQuote || quote === Char.SingleQuote
  if (quoted) nameEnd--
  let nameStart = nameEnd
  while (nameStart > 0 && isNameChar(text.charCodeAt(nameStart - 1))) {
    if (nameEnd - nameStart >= Longest.Name) return false
    nameStart--
  }
  if (nameStart === nameEnd || !isLetter(text.charCodeAt(nameStart))) return false
  // A quoted name opens with the same quote, itself not glued to a name.
  if (quoted && (text.charCodeAt(nameStart - 1) !== quote || (nameStart >= 2 && isNameChar(text.charCodeAt(nameStart - 2))))) return false
  if ((quoted ? nameStart - 1 : nameStart) < earliest) return false
  field.nameStart = nameStart
  field.nameEnd = nameEnd
  return true
}

/** A line break, as a regular expression's `\s` has them. */
const isLineBreak = (code: number) => code === Char.Newline || code === Char.Return || code === 0x2028 || code === 0x2029

/**
 * Whether a value follows the `:` or `=` at `separator` (blanks between, at most eight, no line
 * break among them): up to 256 characters in quotes (no line break among them), or 1 to 256
 * characters of a bare value that does not end in `:`. A name with nothing after it on its line
 * (`card:` over the lines of the card, in YAML) or followed by another name (`note: pan: ...`)
 * has no value: the next line's or the next name's field is its own.
 */
function valueAfter(text: string, separator: number): boolean {
  let start = separator + 1
  for (const blanksEnd = Math.min(text.length, start + Longest.Blanks); start < blanksEnd; start++) {
    const code = text.charCodeAt(start)
    if (!isBlank(code)) break
    if (isLineBreak(code)) return false
  }
  const quote = text.charCodeAt(start)
  if (quote === Char.DoubleQuote || quote === Char.SingleQuote) {
    for (let index = start + 1, end = Math.min(text.length, start + Longest.Value + 2); index < end; index++) {
      const code = text.charCodeAt(index)
      if (code === Char.Newline) return false
      if (code !== quote) continue
      return found(start + 1, index, index + 1)
    }
    return false
  }
  let end = start
  for (const limit = Math.min(text.length, start + Longest.Value); end < limit && isBareValueChar(text.charCodeAt(end)); ) end++
  if (end === start || text.charCodeAt(end - 1) === Char.Colon) return false
  return found(start, end, end)
}

function found(valueStart: number, valueEnd: number, end: number): true {
  field.valueStart = valueStart
  field.valueEnd = valueEnd
  field.end = end
  return true
}

/** Whether the text from `start` to `end` is digits only (and at least one). */
function digitsOnly(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index)
    if (code < 0x30 || code > 0x39) return false
  }
  return end > start
}

function digitIn(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index)
    if (code >= 0x30 && code <= 0x39) return true
  }
  return false
}

/** Where `char` comes next from `from` on, or the end of the text. indexOf is many times faster than a test per character. */
function indexOrEnd(text: string, char: string, from: number): number {
  const found = text.indexOf(char, from)
  return found === -1 ? text.length : found
}

/** The text being masked, kept between calls (redaction is synchronous). */
const masked = new EditedText()

/**
 * Masks the values of card fields written as `name=value`, `name: value` or `"name": "value"`.
 * A scan from one `:` or `=` to the next, looking a bounded way back for a name and forward for
 * a value: a pattern with a function called per match cost a call, an array and strings for
 * every field of a megabyte of form fields (72,000 of them), card field or not.
 */
function maskFieldValues(text: string): string {
  const edited = masked.begin(text)
  // `from`: where the next field may start, after the `:` or `=` tried last, or after the last
  // field found, card field or not (its value may hold a `:` or `=`).
  for (let from = 0, colon = -1, equals = -1; ; ) {
    if (colon < from) colon = indexOrEnd(text, ':', from)
    if (equals < from) equals = indexOrEnd(text, '=', from)
    const separator = Math.min(colon, equals)
    if (separator === text.length) break
    // The value first: it is the cheaper to rule out (`"a":{` in JSON).
    if (!valueAfter(text, separator) || !nameBefore(text, separator, from)) {
      from = separator + 1
      continue
    }
    from = field.end
    // A card field's value without a digit stays as it is (a PAN or CVV is masked by its digits),
    // such as the mask the card number net left there.
    if (!digitIn(text, field.valueStart, field.valueEnd)) continue
    const kind = cardFieldKindAt(text, field.nameStart, field.nameEnd)
    if (kind === undefined) continue
    if (kind === 'pan') {
      maskPanRuns(edited, field.valueStart, field.valueEnd)
      continue
    }
    // A CVV alone (a form's `cvv=123`, the common case) is masked without a copy of it.
    if (kind === 'cvv' && digitsOnly(text, field.valueStart, field.valueEnd)) {
      edited.replace(field.valueStart, field.valueEnd, CVV_MASK)
      continue
    }
    const value = text.slice(field.valueStart, field.valueEnd)
    const redacted = redactString(kind, value)
    if (redacted === value) continue
    edited.replace(field.valueStart, field.valueEnd, redacted)
  }
  return edited.finish()
}


/** `<name>value</name>` as found in XML. */
const FIELD_IN_XML = /<([A-Za-z][\w.-]{0,63})>([^<]{0,256})<\/\1>/g

function maskXmlFieldValues(text: string): string {
  // No closing tag, no field: text without one is not searched.
  if (!text.includes('</')) return text
  return text.replace(FIELD_IN_XML, (match, name: string, value: string) => {
    const kind = cardFieldKind(name)
    return kind === undefined ? match : `<${name}>${redactString(kind, value)}</${name}>`
  })
}

/** Masks the values of card fields in text of unknown format, found by their names. */
export function maskCardFieldsInText(text: string): string {
  return maskXmlFieldValues(maskFieldValues(text))
}
