/**
 * Card fields written in text of unknown format, found by their names: `name=value`,
 * `name: value`, `"name": "value"` (forms, logs, YAML, JSON) and `<name>value</name>` (XML).
 */
import {maskPanRuns} from './card-numbers-in-text.js'
import {EditedText} from './edited-text.js'
import {MaskedText} from './masked-text.js'
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
 * before it). Read through noted card numbers (`maskFieldValues`), `floor` is where the last one
 * before the separator ends: the text before it is its mask, which ends in digits (0 if none).
 */
function nameBefore(text: string, separator: number, earliest: number, floor: number): boolean {
  let nameEnd = separator
  while (nameEnd > 0 && isBlank(text.charCodeAt(nameEnd - 1))) {
    if (separator - nameEnd >= Longest.Blanks) return false
    nameEnd--
  }
  const quote = text.charCodeAt(nameEnd - 1)
  const quoted = quote === Char.DoubleQuote || quote === Char.SingleQuote
  if (quoted) nameEnd--
  let nameStart = nameEnd
  // Not into a card number read through: a name would run on into its mask's last digits, and
  // start with a digit. Stopped at its end, it is none either (what follows a card number is no
  // letter). Blanks and a quote stop at a mask's last digit as at the card number's own.
  while (nameStart > floor && isNameChar(text.charCodeAt(nameStart - 1))) {
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

/** What `valueAfter` finds after a separator. */
const enum Value {
  None,
  /** A value, in `field`. */
  Found,
  /** A bare value that runs on into the mask of a card number read through: it starts at `field.valueStart`, and the text before the mask ends it. */
  IntoMask,
  /** A quoted value not closed before the mask of a card number read through: read on in the masked text. */
  Unread,
}

/**
 * Whether a value follows the `:` or `=` at `separator` (blanks between, at most eight, no line
 * break among them): up to 256 characters in quotes (no line break among them), or 1 to 256
 * characters of a bare value that does not end in `:`. A name with nothing after it on its line
 * (`card:` over the lines of the card, in YAML) or followed by another name (`note: pan: ...`)
 * has no value: the next line's or the next name's field is its own. Read through noted card
 * numbers (`maskFieldValues`), `high` is where the next one starts (the text's length if none
 * does): from there, the text read is its mask.
 */
function valueAfter(text: string, separator: number, high: number): Value {
  let start = separator + 1
  // A card number starts with a digit, as its mask starts with no blank or quote: either ends the blanks.
  for (const blanksEnd = Math.min(text.length, start + Longest.Blanks); start < blanksEnd; start++) {
    const code = text.charCodeAt(start)
    if (!isBlank(code)) break
    if (isLineBreak(code)) return Value.None
  }
  const quote = text.charCodeAt(start)
  if (quote === Char.DoubleQuote || quote === Char.SingleQuote) {
    const limit = Math.min(text.length, start + Longest.Value + 2)
    const end = Math.min(limit, high)
    for (let index = start + 1; index < end; index++) {
      const code = text.charCodeAt(index)
      if (code === Char.Newline) return Value.None
      if (code !== quote) continue
      return found(start + 1, index, index + 1)
    }
    return end < limit ? Value.Unread : Value.None
  }
  const limit = Math.min(text.length, start + Longest.Value)
  let end = start
  for (const stop = Math.min(limit, high); end < stop && isBareValueChar(text.charCodeAt(end)); ) end++
  if (end === high && high < limit) {
    field.valueStart = start
    return Value.IntoMask
  }
  if (end === start || text.charCodeAt(end - 1) === Char.Colon) return Value.None
  return found(start, end, end)
}

function found(valueStart: number, valueEnd: number, end: number): Value.Found {
  field.valueStart = valueStart
  field.valueEnd = valueEnd
  field.end = end
  return Value.Found
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

/** The text being masked as it reads with its card numbers masked, kept between calls. */
const cards = new MaskedText()

/**
 * How much of the masked text around a separator its field can be read in: blanks, a quote and a
 * name of 64 before it; blanks, quotes and a value of 256 after.
 */
const enum Around {
  Before = 80,
  After = 272,
}

/** The runs of digits of a card number field read in the masked text, noted (`maskFieldInMaskedText`). */
const panRuns = new EditedText()

/**
 * Masks the field of the separator at `separator`, whose value runs into the mask of the `card` th
 * card number (before which the masked text is `shift` longer than the text) and may read on past
 * it (a quoted value, `"pan": "4024 0071 0817 3153"`): read in a piece of the masked text cut out
 * around it. A piece for each such field costs: 1 MB of JSON text nested 100 deep, with two card
 * numbers in quoted values a chain, took 10% longer than when the masked text was made (Node 20).
 * Says where the next field may start (`from` in `maskFieldValues`): the end of the field in the
 * text, or that of the card number whose mask it ends in (no field starts in a mask).
 */
function maskFieldInMaskedText(separator: number, from: number, card: number, shift: number): number {
  const at = separator + shift
  const pieceStart = Math.max(0, at - Around.Before)
  const piece = cards.slice(pieceStart, at + Around.After, card, shift)
  if (valueAfter(piece, at - pieceStart, piece.length) !== Value.Found) return separator + 1
  if (!nameBefore(piece, at - pieceStart, cards.maskedPosition(from, card, shift) - pieceStart, 0)) return separator + 1
  const {nameStart, nameEnd, valueStart, valueEnd} = field
  const next = cards.textPosition(pieceStart + field.end, card, shift)
  if (!digitIn(piece, valueStart, valueEnd)) return next
  const kind = cardFieldKindAt(piece, nameStart, nameEnd)
  if (kind === undefined) return next
  if (kind === 'pan') {
    maskPanRuns(panRuns.begin(piece, true), valueStart, valueEnd)
    for (let run = 0; run < panRuns.noted; run++) cards.replace(pieceStart + panRuns.notedStarts[run], pieceStart + panRuns.notedEnds[run], panRuns.notedReplacements[run])
    return next
  }
  const value = piece.slice(valueStart, valueEnd)
  const redacted = redactString(kind, value)
  if (redacted !== value) cards.replace(pieceStart + valueStart, pieceStart + valueEnd, redacted)
  return next
}

/**
 * How far into `mask` a bare value runs, if it stops there with no digit and no `:` read: the
 * length of its plain start (`•••• ` of `•••• 3153`, where it always does); 0 if it does not.
 * Kept for the last mask asked about: the card numbers of a text are masked by a few masks,
 * the same strings again and again.
 */
function plainStart(mask: string): number {
  if (mask === lastMask) return lastPlainStart
  let length = 0
  for (let code = mask.charCodeAt(0); length < mask.length && isBareValueChar(code) && code !== Char.Colon && (code < 0x30 || code > 0x39); code = mask.charCodeAt(++length));
  lastMask = mask
  // Stopped by a digit or a `:`, or not stopped at all, the value would read on.
  return (lastPlainStart = length < mask.length && !isBareValueChar(mask.charCodeAt(length)) ? length : 0)
}

let lastMask = ''
let lastPlainStart = 0

/**
 * Masks the value of the field found (`field`) if it is a card field's, after the masks of the
 * card numbers before the `card` th: it lies between two card numbers, where the masked text is
 * the text.
 */
function maskValue(text: string, card: number): void {
  const {valueStart, valueEnd} = field
  // A card field's value without a digit stays as it is (a PAN or CVV is masked by its digits),
  // such as the mask the card number net left there.
  if (!digitIn(text, valueStart, valueEnd)) return
  const kind = cardFieldKindAt(text, field.nameStart, field.nameEnd)
  if (kind === undefined) return
  cards.writeBefore(card)
  if (kind === 'pan') {
    maskPanRuns(masked, valueStart, valueEnd)
    return
  }
  // A CVV alone (a form's `cvv=123`, the common case) is masked without a copy of it.
  if (kind === 'cvv' && digitsOnly(text, valueStart, valueEnd)) {
    masked.replace(valueStart, valueEnd, CVV_MASK)
    return
  }
  const value = text.slice(valueStart, valueEnd)
  const redacted = redactString(kind, value)
  if (redacted !== value) masked.replace(valueStart, valueEnd, redacted)
}

/**
 * Masks the value of the field found (`Value.IntoMask`) that runs from `field.valueStart` into the
 * mask of the `card` th card number, which starts at `high` (before it, the masked text is `shift`
 * longer than the text), if it stops in the mask's first bullets: `pan=•••• 3153`, as in a form.
 * Says where the next field may start; -1 if the value is to be read in the masked text.
 */
function maskValueIntoMask(text: string, card: number, shift: number, high: number): number {
  const {valueStart} = field
  const mask = cards.masks[card]
  // Where a value is cut (256 characters), it ends in the bullets too.
  const length = Math.min(plainStart(mask), valueStart + Longest.Value - high)
  if (length <= 0) return -1
  // No field starts in a mask: the next may start where the card number ends.
  const next = cards.ends[card]
  if (!digitIn(text, valueStart, high)) return next
  const kind = cardFieldKindAt(text, field.nameStart, field.nameEnd)
  if (kind === undefined) return next
  cards.writeBefore(card)
  // The bullets hold no digit: a PAN's runs of digits are those before them.
  if (kind === 'pan') {
    maskPanRuns(masked, valueStart, high)
    return next
  }
  const value = text.slice(valueStart, high) + mask.slice(0, length)
  const redacted = redactString(kind, value)
  if (redacted !== value) cards.replace(valueStart + shift, valueStart + shift + value.length, redacted)
  return next
}

/**
 * Masks the values of card fields written as `name=value`, `name: value` or `"name": "value"`,
 * in the text as it reads with the card numbers noted in `noted` masked, and writes those masks
 * too. A scan from one `:` or `=` to the next, looking a bounded way back for a name and forward
 * for a value: a pattern with a function called per match cost a call, an array and strings for
 * every field of a megabyte of form fields (72,000 of them), card field or not.
 */
function maskFieldValues(text: string, noted: EditedText): string {
  const edited = masked.begin(text)
  const {count, starts} = cards.begin(edited, noted)
  scanFrom = scanCard = scanShift = scanFloor = 0
  scanColon = scanEquals = -1
  scanHigh = count === 0 ? text.length : starts[0]
  while (maskFieldsOfSlice(text)) {
    // The next slice.
  }
  cards.writeBefore(count)
  return edited.finish()
}

/**
 * The separators of a text are tried a slice of them a call (`maskFieldsOfSlice`). V8 optimizes a
 * function called often as a whole; one whose loop runs long in a few calls is optimized while
 * that loop runs (on-stack replacement), and on Node 24 that code was thrown away and made again
 * at every call: tried in one call, a megabyte of form fields took 30-43 ms a time over 30 times
 * in a row (12.3 on Node 20); with the card number net's steps sliced too, 12.8-14.1 (median 13.4).
 */
const enum Slice {
  Separators = 256,
}

/**
 * Where the scan of `maskFieldValues` is between slices. `from`: where the next field may start,
 * after the `:` or `=` tried last, or after the last field found, card field or not (its value
 * may hold a `:` or `=`); the next `:` and `=` found (-1: none yet); `card`: the first card
 * number after the separator tried, where the masked text reads its mask (`high`); `floor`:
 * where the one before it ends; `shift`: how much longer the masked text is than the text before it.
 */
let scanFrom = 0
let scanColon = -1
let scanEquals = -1
let scanCard = 0
let scanShift = 0
let scanFloor = 0
let scanHigh = 0

/**
 * Tries the next slice of separators for `maskFieldValues`; true if the text goes on after it. Its
 * figures are taken as 32-bit integers (`| 0`): read as they are, V8 knows nothing of their type.
 */
function maskFieldsOfSlice(text: string): boolean {
  const {count: cardCount, starts: cardStarts, ends: cardEnds} = cards
  let card = scanCard | 0
  let shift = scanShift | 0
  let floor = scanFloor | 0
  let high = scanHigh | 0
  let from = scanFrom | 0
  let colon = scanColon | 0
  let equals = scanEquals | 0
  let more = true
  for (let tried = 0; ; tried++) {
    if (tried === Slice.Separators) break
    if (colon < from) colon = indexOrEnd(text, ':', from)
    if (equals < from) equals = indexOrEnd(text, '=', from)
    const separator = Math.min(colon, equals)
    if (separator === text.length) {
      more = false
      break
    }
    if (separator > high) {
      do shift += cards.lengthening(card++)
      while (card < cardCount && cardStarts[card] < separator)
      floor = cardEnds[card - 1]
      high = card < cardCount ? cardStarts[card] : text.length
    }
    // The value first: it is the cheaper to rule out (`"a":{` in JSON).
    let value = valueAfter(text, separator, high)
    if (value === Value.None || !nameBefore(text, separator, from, floor)) {
      from = separator + 1
      continue
    }
    if (value === Value.IntoMask) {
      const next = maskValueIntoMask(text, card, shift, high)
      if (next !== -1) {
        from = next
        continue
      }
      value = Value.Unread
    }
    if (value === Value.Unread) {
      from = maskFieldInMaskedText(separator, from, card, shift)
      continue
    }
    from = field.end
    maskValue(text, card)
  }
  scanCard = card
  scanShift = shift
  scanFloor = floor
  scanHigh = high
  scanFrom = from
  scanColon = colon
  scanEquals = equals
  return more
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

/** No card numbers noted. */
const noCards = new EditedText()

/**
 * Masks the values of card fields in text of unknown format, found by their names; with `noted`,
 * the card numbers noted in it (`noteCardNumbers`), in the text as it reads with those masked,
 * writing their masks too (`redactText`).
 */
export function maskCardFieldsInText(text: string, noted: EditedText = noCards): string {
  const edited = maskFieldValues(text, noted)
  // No text is held once read.
  noted.text = ''
  return maskXmlFieldValues(edited)
}
