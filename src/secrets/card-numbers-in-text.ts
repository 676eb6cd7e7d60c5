/**
 * Card numbers found by shape in any text from outside: 12 to 19 digits, written together or in
 * groups, that pass the Luhn check. Every webhook body, error message and --verbose line goes
 * through this, so it is one pass over the text whatever its shape, allocating nothing per digit
 * group and no string per mask (bench/redact.js measures it on hostile shapes).
 */
import {EditedText} from './edited-text.js'

/** A card number as `•••• 3153`, from its digits alone (four or more). */
export const maskDigits = (digits: string) => `•••• ${digits.slice(-4)}`

/** Ids (UUIDs) hold digit runs that can pass the Luhn check by chance: they are never card numbers. */
const UUID_GROUPS = [8, 4, 4, 4, 12]
const UUID_LENGTH = 36

/**
 * Masks every card number in free text: 12 to 19 digits, written together or in groups joined
 * by single spaces or dashes (`+` and `%20` too, as URL-encoded text writes a space), that pass
 * the Luhn check. Within a longer run of groups (a card number followed by an amount, say), every
 * span that could be a card number is masked, and spans that overlap are masked as one, showing
 * the last four digits of the last: no card number shows more than its last four, whatever digits
 * come before it (in `1006 4024 0071 0817 3153`, both `1006 4024 0071` and the card number after it
 * pass the check). One pass over the text, however hostile its shape.
 */
export function maskCardNumbers(text: string): string {
  // Most strings (ids, statuses, names) hold too few digits to be a card number: the common case
  // costs one scan, and is short enough for the compiler to write it into its callers.
  const first = firstDigit(text)
  if (first === -1 || (first > 0 && !holdsDigits(text, PanDigits.Fewest, first))) return text
  return maskCardNumbersFrom(text, first)
}

/**
 * `maskCardNumbers` of a text whose first digit is at `first`, and that holds enough digits for a
 * card number unless it starts with one.
 */
function maskCardNumbersFrom(text: string, first: number): string {
  // A UUID's first dash comes 8 characters in: without one, no UUID to look for.
  const uuids = text.indexOf('-', 8) !== -1
  if (first === 0) {
    // A text that starts with a digit starts with a run: one that is the whole text (a card
    // number alone, as in a list; an amount) is told by reading that run.
    if (!uuids) {
      const run = readShortRun(text, 0, text.length)
      if (run === text.length) return text
      if (run === -2 - text.length) return maskOfSpanBefore(text, text.length)
    }
    if (!holdsDigits(text, PanDigits.Fewest, 0)) return text
  }
  maskCardNumbersInto(masked.begin(text), first, uuids)
  return masked.finish()
}

/**
 * Notes where `maskCardNumbers` would mask card numbers in a text whose first digit is at
 * `first`, and by what, without making a text of it: in `notedCardNumbers`, begun on the text
 * (`EditedText`'s noting). `redactText` has the field net read the text through them and make
 * both nets' replacements in one text (src/secrets/masked-text.ts).
 */
export function noteCardNumbers(text: string, first: number): EditedText {
  notedCardNumbers.begin(text, true)
  if (first !== -1 && holdsDigits(text, PanDigits.Fewest, first)) maskCardNumbersInto(notedCardNumbers, first, text.indexOf('-', 8) !== -1)
  return notedCardNumbers
}

const notedCardNumbers = new EditedText()

/** Masks the card numbers of `edited`'s text, whose first digit is at `first`, and which holds a UUID's dash if `uuids`. */
function maskCardNumbersInto(edited: EditedText, first: number, uuids: boolean): void {
  const {text} = edited
  if (!uuids) {
    maskCardNumbersIn(edited, 0, text.length, first)
    return
  }
  // The parts between UUIDs are masked on their own; the UUIDs stay as they are.
  let partStart = 0
  for (let uuidStart = nextUuid(text, 0); uuidStart !== -1; uuidStart = nextUuid(text, partStart)) {
    maskCardNumbersIn(edited, partStart, uuidStart, first)
    partStart = uuidStart + UUID_LENGTH
  }
  maskCardNumbersIn(edited, partStart, text.length, first)
}

/** The text being masked, kept between calls (redaction is synchronous). */
const masked = new EditedText()

const DIGIT = /\d/g
const NOT_DIGIT = /\D/g

/** Where the digits from `from` on end: the text's length if nothing else ends them. */
function digitsEnd(text: string, from: number): number {
  NOT_DIGIT.lastIndex = from
  return NOT_DIGIT.test(text) ? NOT_DIGIT.lastIndex - 1 : text.length
}

/**
 * Where the first digit from `from` on is, or -1. In long text by a regular expression, whose
 * scan is many times faster than a test per character (a megabyte without digits: 0.5 ms against
 * 1.9 on Node 20, 0.04 on Node 24); in short text (most strings of a body) by the test, which
 * costs no call.
 */
export function firstDigit(text: string, from = 0): number {
  if (text.length - from > 256) {
    DIGIT.lastIndex = from
    return DIGIT.test(text) ? DIGIT.lastIndex - 1 : -1
  }
  for (let index = from; index < text.length; index++) if (isDigit(text.charCodeAt(index))) return index
  return -1
}

/** Whether the text holds `count` digits from `from` on. */
function holdsDigits(text: string, count: number, from: number): boolean {
  let found = 0
  for (let index = from; index < text.length; index++) {
    if (isDigit(text.charCodeAt(index)) && ++found >= count) return true
  }
  return false
}

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39

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
 * Where the first UUID from `from` on starts, or -1. A UUID's first dash comes 8 characters in,
 * so only dashes are looked at (a pattern would be tried at every character), and not those
 * fewer than 9 after the one before: the 8 hex digits before a first dash hold no dash. One at a
 * time, as the parts between them are masked: a list of the 300,000 UUIDs of 10 MB of JSON was
 * memory for the collector to mark.
 */
function nextUuid(text: string, from: number): number {
  for (let dash = text.indexOf('-', from + 8); dash !== -1; dash = text.indexOf('-', dash + 9)) {
    if (isUuidAt(text, dash - 8)) return dash - 8
  }
  return -1
}

/** A letter, digit or `_`: a number glued to one is part of a word (an id, a hex string), not a card number. */
function isWordChar(code: number): boolean {
  return isDigit(code) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f
}

/**
 * Where a separator joining two digit groups ends, if one starts at `index` (before `limit`;
 * `code` is the character there): ` `, `+`, `-` or `%20`, then a digit; -1 if none. `maskRun`
 * writes the same rule out in its loop: change both together.
 */
function separatorEnd(text: string, index: number, limit: number, code = text.charCodeAt(index)): number {
  let end: number
  if (code === 0x20 || code === 0x2b || code === 0x2d) end = index + 1
  else if (code === 0x25 && text.charCodeAt(index + 1) === 0x32 && text.charCodeAt(index + 2) === 0x30) end = index + 3
  else return -1
  return end < limit && isDigit(text.charCodeAt(end)) ? end : -1
}

/** Luhn's doubled digit, by digit. */
const DOUBLED = [0, 2, 4, 6, 8, 1, 3, 5, 7, 9]

// The figures of the scan below are const enums, which esbuild writes as plain numbers: a
// module-level constant is read from memory at every use, and cost the scan of a run 40% more.
const enum PanDigits {
  Fewest = 12,
  Most = 19,
}

/**
 * Row `r` of a run of digit groups holds the figures after `r` groups (row 0: none yet) and where
 * group `r - 1` starts: the digits so far, and two Luhn sums (mod 10) of them, one doubling the
 * digits at even positions, the other those at odd ones, in one number (`Sums`: the first times
 * 16, plus the second). A span's check sum is the difference of the sums at its ends, taken with
 * the parity of its last digit: that digit is the check digit, never doubled, so the sum that
 * doubles the other parity is the one compared. Where a group ends follows from where it starts
 * and its digits (`groupEnd`). Digits are counted on from one run to the next (`runDigits`), so
 * that a count of an earlier run, still in `latestDigits`, is below any of this one.
 */
const enum Row {
  Start,
  Digits,
  Sums,
  /** Four numbers a row, the fourth unused: a row is found by a shift. */
  Size = 4,
}

/**
 * A card number spans at most 19 groups, so the scan never needs a row more than 20 behind the
 * one it reads: rows are kept in a ring of 32, in one typed array that stays in the CPU's cache
 * (a megabyte of `1 1 1 ...` is half a million groups). Each run numbers its rows from 0.
 */
const enum Ring {
  Rows = 32,
}

const enum Count {
  /**
   * Digits counted up to here before a run, the count starts again from 0 (and `latestDigits` is
   * cleared): with a run of the longest string V8 makes (2^29 characters), it stays below
   * `PastAnyRun`.
   */
  LastStart = 2 ** 29,
  /** More digits than any run counts up to. */
  PastAnyRun = 2 ** 30,
}

const rows = new Int32Array(Ring.Rows * Row.Size)
/**
 * Per Luhn sum to compare (parity of the digits so far, then the sum): the digits counted at the
 * latest row read that has it. A span from a group passes the check up to that row, so whether
 * it holds twelve digits or more is one subtraction; the row itself is looked for only then.
 */
const latestDigits = new Int32Array(20).fill(-1)
/** The digits counted before the next run. */
let runDigits = 0
/** Where the run last read ends (after its last group), or -1 if it has none. */
let runEnd = -1

/**
 * Masks the card numbers of the run of digit groups that starts at `start`; `runEnd` says where
 * the run ends. From each group, the longest card number starting there is found (separators
 * inside it go with it), and those that overlap are joined into one mask: showing the last four of
 * a span that ends inside another card number would show more of that one than its last four (the
 * longest from the left alone showed 12 digits of `4024 0071 0817 3153` after `1006`, whose first
 * 12 digits with `1006` pass the check). A run must not be glued to a word at either end: when its last group is,
 * the run ends before that group. Groups are read one at a time, each entered in `latestDigits` once the
 * groups it would end too long a card number from are tried (all of them after the last group),
 * so that the longest Luhn-valid span from a group is two look-ups, not a check per span. Nothing
 * is copied group by group: a megabyte of `1 1 1 ...` holds no card number and costs no string.
 * The groups are read in slices (`readGroups`), so that no call runs long: see `Slice`.
 */
function maskRun(edited: EditedText, start: number, limit: number): void {
  // Nothing is pending from an earlier text (one cut short by an exception, say).
  pendingStart = pendingEnd = pendingEndRow = -1
  scanRead = scanUntried = 0
  scanIndex = start
  scanDigits = runDigits
  scanEvenDoubled = scanOddDoubled = 0
  scanDigit = edited.text.charCodeAt(start) - 0x30
  rows[Row.Digits] = runDigits
  rows[Row.Sums] = 0
  while (readGroups(edited, limit)) {
    // The next slice.
  }
  const read = scanRead
  // A run of fewer digits than a card number (an amount, a date) has none to try.
  if (scanDigits - runDigits >= PanDigits.Fewest) maskFrom(edited, scanUntried, read, Count.PastAnyRun)
  maskPending(edited)
  runEnd = read > 0 ? groupEnd(read) : -1
  startNextRun(scanDigits)
}

/**
 * A long run is read a slice of groups a call. V8 optimizes a function called often as a whole;
 * one whose loop runs long in a few calls is optimized while that loop runs (on-stack
 * replacement), and on Node 24 that code was thrown away and made again at every call: read in
 * one call, a megabyte of `1 1 1 ...` took 15-25 ms a time over 30 times in a row, where it now
 * takes 7.7-8.0 (in the bench, 8.3 ms in one run and 15.6 in another).
 */
const enum Slice {
  Groups = 256,
  /** The steps of `maskCardNumbersIn` a call. */
  Steps = 256,
}

/** The scan of a run between slices: the rows read and tried, where it is, and its figures. */
let scanRead = 0
let scanUntried = 0
let scanIndex = 0
let scanDigits = 0
let scanEvenDoubled = 0
let scanOddDoubled = 0
/** The first digit of the group at `scanIndex` (-1 past the text). */
let scanDigit = 0

/**
 * Reads the next slice of groups of the run `maskRun` scans; true if the run goes on after it.
 * Its figures are local variables while it reads: this loop is the whole cost of such text. They
 * are taken as 32-bit integers (`| 0`): read as they are, V8 knows nothing of their type and
 * keeps them as any value in the loop, which took 9.1 ms on a megabyte of `1 1 1 ...` against 7.8.
 * A group is read whole, however long: a megabyte of one digit (one group, so one long loop in
 * one call) takes 10-12 ms on Node 24, 3.1 on Node 20. Reading at most 20 digits of a group and
 * only counting the rest (no card number holds a longer group) took it to 0.7 ms, but made every
 * group's read 8% slower (a megabyte of `1 1 1 ...`: 7.9 -> 8.5-8.9 ms), and that shape sits
 * nearer its target.
 */
function readGroups(edited: EditedText, limit: number): boolean {
  const text = edited.text
  const ring = rows
  let read = scanRead | 0
  let untried = scanUntried | 0
  let index = scanIndex | 0
  let digits = scanDigits | 0
  let evenDoubled = scanEvenDoubled | 0
  let oddDoubled = scanOddDoubled | 0
  let digit = scanDigit | 0
  const lastRow = read + Slice.Groups
  let next = -1
  for (;;) {
    const groupStart = index
    // A group has a digit at least. Summed as they come, brought back mod 10 once a group (a test
    // per digit costs more); each character is read once. A digit doubled is 2d, less 9 from 5 on
    // (`DOUBLED` without a load and its checks).
    do {
      const twice = (digit << 1) - (((4 - digit) >> 31) & 9)
      if ((digits & 1) === 0) {
        evenDoubled += twice
        oddDoubled += digit
      } else {
        oddDoubled += twice
        evenDoubled += digit
      }
      digits++
      digit = ++index < limit ? text.charCodeAt(index) - 0x30 : -1
    } while (digit >= 0 && digit <= 9)
    // Where the next group starts (after ` `, `+`, `-` or `%20`), or -1, its digit kept: the rule of
    // `separatorEnd` written out, as a call made this loop 3-5% slower (change both together).
    const code = digit + 0x30
    next = code === 0x20 || code === 0x2b || code === 0x2d ? index + 1 : code === 0x25 && text.charCodeAt(index + 1) === 0x32 && text.charCodeAt(index + 2) === 0x30 ? index + 3 : -1
    if (next !== -1) {
      digit = next < limit ? text.charCodeAt(next) - 0x30 : -1
      if (digit < 0 || digit > 9) next = -1
    }
    // The last group, glued to a word (a letter or `_`: `code` is no digit), is not part of the
    // run; `isWordChar` written out, as the compiler left that call in the loop (change both together).
    if (next === -1 && index < limit && (((code | 0x20) - 0x61) >>> 0 < 26 || code === 0x5f)) break
    const row = (++read & (Ring.Rows - 1)) * Row.Size
    ring[row + Row.Start] = groupStart
    ring[row + Row.Digits] = digits
    // Taken as unsigned (they are never below 0), `% 10` is a multiplication with no sign to mind.
    evenDoubled = (evenDoubled >>> 0) % 10
    oddDoubled = (oddDoubled >>> 0) % 10
    ring[row + Row.Sums] = (evenDoubled << 4) | oddDoubled
    // The groups whose longest card number ends before this row are tried before it is entered.
    untried = maskFrom(edited, untried, read, digits)
    latestDigits[(digits & 1) * 10 + ((digits & 1) === 1 ? oddDoubled : evenDoubled)] = digits
    if (next === -1) break
    index = next
    if (read === lastRow) break
  }
  keepScan(read, untried, index, digits, evenDoubled, oddDoubled, digit)
  return next !== -1
}

/** Keeps where the scan of a run is, for its next slice. */
function keepScan(read: number, untried: number, index: number, digits: number, evenDoubled: number, oddDoubled: number, digit: number): void {
  scanRead = read
  scanUntried = untried
  scanIndex = index
  scanDigits = digits
  scanEvenDoubled = evenDoubled
  scanOddDoubled = oddDoubled
  scanDigit = digit
}

/**
 * The span being masked, not yet replaced: spans found later that overlap it join it. Where it
 * starts and ends in the text (-1: none), and the row of its last group.
 */
let pendingStart = -1
let pendingEnd = -1
let pendingEndRow = -1

/**
 * Tries the groups of the run from `untried` on, up to row `read`, whose longest card number
 * ends before the `horizon` th digit (so that all rows that may end it are in `latestDigits`, and
 * none further), joining the card numbers found to the pending span, or masking that span and
 * starting the next; says which group is the first untried then. Every group is tried, also those
 * inside a span: a span from one of them may reach further.
 */
function maskFrom(edited: EditedText, untried: number, read: number, horizon: number): number {
  const ring = rows
  const latest = latestDigits
  for (; untried < read; untried++) {
    const row = (untried & (Ring.Rows - 1)) * Row.Size
    const digitsBefore = ring[row + Row.Digits]
    if (digitsBefore + PanDigits.Most >= horizon) break
    // The digits up to the latest row closing a Luhn-valid span from here, if it is twelve digits
    // or more away (a count of an earlier run, or of a row before this one, is below this row's).
    const sums = ring[row + Row.Sums]
    const endDigits = Math.max(latest[sums >> 4], latest[10 + (sums & 15)])
    if (endDigits - digitsBefore < PanDigits.Fewest) continue
    // That row, found at most 19 back only now: when the latest rows themselves were kept, each
    // group tried took one more look-up (the row's digits), and most groups close no span (a
    // megabyte of `1 1 1 ...` took 4% longer). The search stops at this row all the same: a count
    // that no row has must not stop the scan.
    let end = read
    while (end > untried && ring[(end & (Ring.Rows - 1)) * Row.Size + Row.Digits] !== endDigits) end--
    if (end === untried) continue
    // The span covers the groups after this row up to row `end`: it overlaps the pending one if
    // it starts before that one's last group ends.
    if (untried < pendingEndRow) {
      if (end > pendingEndRow) {
        pendingEndRow = end
        pendingEnd = groupEnd(end)
      }
      continue
    }
    maskPending(edited)
    pendingStart = ring[((untried + 1) & (Ring.Rows - 1)) * Row.Size + Row.Start]
    pendingEnd = groupEnd(end)
    pendingEndRow = end
  }
  return untried
}

/** Where the group of row `row` ends: its start and its digits (a group is digits alone). */
function groupEnd(row: number): number {
  const at = (row & (Ring.Rows - 1)) * Row.Size
  return rows[at + Row.Start] + rows[at + Row.Digits] - rows[((row - 1) & (Ring.Rows - 1)) * Row.Size + Row.Digits]
}

/** Masks the pending span, if there is one, by the last four digits of its end. */
function maskPending(edited: EditedText): void {
  if (pendingStart === -1) return
  edited.replace(pendingStart, pendingEnd, maskOfSpanBefore(edited.text, pendingEnd))
  pendingStart = pendingEnd = pendingEndRow = -1
}

/**
 * Counts the digits of the next run from `count` on: for tests, which start the count near where
 * it starts again (`DIGIT_COUNT_RESTARTS_AT`), as no test reads 2^29 digits.
 */
export function countDigitsFrom(count: number): void {
  runDigits = count
}

/** Where the count of digits starts again from 0 (`Count.LastStart`), for tests. */
export const DIGIT_COUNT_RESTARTS_AT: number = Count.LastStart

/** Counts the digits of the next run on from `lastDigits`, or from 0 again with `latestDigits` cleared. */
function startNextRun(lastDigits: number): void {
  runDigits = lastDigits + 1
  if (runDigits < Count.LastStart) return
  runDigits = 0
  latestDigits.fill(-1)
}

/**
 * The mask of the card number that ends at `end`, from its last four digits, read back over what
 * joins its groups (` `, `+`, `-`, and `%20`, which holds digits of its own); a card number has
 * twelve digits or more, so four are there. Masks are kept by those digits (10,000 at most): a
 * megabyte of card numbers is fifty thousand masks, and a string for each would be garbage.
 */
function maskOfSpanBefore(text: string, end: number): string {
  let lastFour = 0
  for (let at = end - 1, scale = 1; scale < 10_000; at--) {
    const code = text.charCodeAt(at)
    if (!isDigit(code)) continue
    if (code === 0x30 && text.charCodeAt(at - 1) === 0x32 && text.charCodeAt(at - 2) === 0x25) {
      at -= 2
      continue
    }
    lastFour += (code - 0x30) * scale
    scale *= 10
  }
  return maskOfLastFour(lastFour)
}

/** The mask of a card number whose last four digits, read as a number, are `lastFour`. */
export function maskOfLastFour(lastFour: number): string {
  if (masksByLastFour[lastFour] === '') masksByLastFour[lastFour] = maskDigits(String(lastFour).padStart(4, '0'))
  return masksByLastFour[lastFour]
}

/** Filled from the start (with '' for a mask not made yet): a sparse array is a hash table, slower to look in. */
const masksByLastFour: string[] = Array.from({length: 10_000}, () => '')

/**
 * Reads the run of digit groups starting at `start` as a short one, and says what it is: where it
 * ends when it holds no card number (too few digits, or digits written together that fail the
 * check); `-2 - end` when it is one card number from `start` to `end`; -1 when it is a run for
 * `maskRun` (more than 19 digits, or groups that fail the check as a whole). Most runs are short:
 * numbers written together (amounts, years, ports), dates, and card numbers alone, together or in
 * groups. A run of at most 19 digits that passes the Luhn check as a whole is one card number: the
 * longest from its first group. One of fewer than 12 digits holds none. Those are told apart
 * without the rows of `maskRun`.
 */
function readShortRun(text: string, start: number, limit: number): number {
  let index = start
  let digits = 0
  let evenDoubled = 0
  let oddDoubled = 0
  let groups = 0
  for (let next = start; next !== -1; next = separatorEnd(text, index, limit)) {
    for (index = next, groups++; index < limit; index++) {
      const digit = text.charCodeAt(index) - 0x30
      if (digit < 0 || digit > 9) break
      if (++digits > PanDigits.Most) return -1
      if ((digits & 1) === 1) {
        evenDoubled += DOUBLED[digit]
        oddDoubled += digit
      } else {
        oddDoubled += DOUBLED[digit]
        evenDoubled += digit
      }
    }
  }
  // Glued to a word, the last group is not part of the run: one group alone is no run at all.
  const glued = index < limit && isWordChar(text.charCodeAt(index))
  if (digits < PanDigits.Fewest || (glued && groups === 1)) return index
  // The check digit matches (Luhn, with the sums of `maskRun`), or the rows find what is there;
  // but digits written together are one span: they are a card number or hold none.
  const valid = ((digits & 1) === 0 ? evenDoubled : oddDoubled) % 10 === 0
  if (!valid && groups === 1) return index
  return glued || !valid ? -1 : -2 - index
}

/**
 * Masks the run of digit groups starting at `start` if it is short (`readShortRun`), and says
 * where it ends; -1 if it is a run for `maskRun`.
 */
function maskShortRun(edited: EditedText, start: number, limit: number): number {
  const run = readShortRun(edited.text, start, limit)
  if (run >= -1) return run
  const end = -2 - run
  edited.replace(start, end, maskOfSpanBefore(edited.text, end))
  return end
}

/**
 * Masks the card numbers in the part of the text from `from` to `limit`, where no digit comes
 * before `earliestDigit`. The part is read on its own: a number at either end of it is not glued to
 * what lies beyond (a UUID, between parts). Read a slice of steps a call (`maskCardNumbersOfSlice`),
 * as the groups of a long run are (`Slice`): in one call, on Node 24, a megabyte of form fields took
 * 30-43 ms a time over 30 times in a row, with the field net's scan in one call too.
 */
function maskCardNumbersIn(edited: EditedText, from: number, limit: number, earliestDigit: number): void {
  for (let index = Math.max(from, earliestDigit); index < limit; ) index = maskCardNumbersOfSlice(edited, from, index, limit)
}

/**
 * Takes the next steps of `maskCardNumbersIn` from `index` (a run, or a stretch without digits),
 * `Slice.Steps` at most, and says where it stopped.
 */
function maskCardNumbersOfSlice(edited: EditedText, from: number, index: number, limit: number): number {
  const text = edited.text
  for (let step = 0; step < Slice.Steps && index < limit; step++) {
    if (!isDigit(text.charCodeAt(index))) {
      // The next digit: a few characters on by a test each, past those by a regular expression,
      // whose scan is many times faster than a test per character but costs a call.
      const tested = Math.min(limit, index + 16)
      do index++
      while (index < tested && !isDigit(text.charCodeAt(index)))
      if (index < tested || index === limit) continue
      const next = firstDigit(text, index)
      index = next === -1 || next > limit ? limit : next
      continue
    }
    if (index > from && isWordChar(text.charCodeAt(index - 1))) {
      // A group glued to a word: no run starts inside it either.
      do index++
      while (index < limit && isDigit(text.charCodeAt(index)))
      continue
    }
    const shortEnd = maskShortRun(edited, index, limit)
    if (shortEnd !== -1) {
      index = shortEnd
      continue
    }
    maskRun(edited, index, limit)
    if (runEnd !== -1) index = runEnd
    else while (index < limit && isDigit(text.charCodeAt(index))) index++
  }
  return index
}

/**
 * Masks the value of a card-number field from `start` to `end`: every run of six or more digits
 * (single spaces or dashes between them allowed), Luhn-valid or not (a mistyped PAN is still a
 * PAN), by its last four; the rest of a message such as "4024 0071 0817 3154 is not valid" stays.
 * Where it stands, with no copy of the value: in text, most such values are already masked by the
 * card number net, and a megabyte of form fields has 36,000 of them. A scan, not a pattern: a
 * pattern's backtracking stack grows with the run and overflows on a long one.
 */
export function maskPanRuns(edited: EditedText, start: number, end: number): void {
  const {text} = edited
  for (let index = start; index < end; ) {
    if (!isDigit(text.charCodeAt(index))) {
      index++
      continue
    }
    const runStart = index
    let digits = 0
    let lastFour = 0
    for (;;) {
      const readEnd = Math.min(end, index + 32)
      for (let digit = text.charCodeAt(index) - 0x30; digit >= 0 && digit <= 9 && index < readEnd; digit = text.charCodeAt(++index) - 0x30) {
        lastFour = (lastFour * 10 + digit) % 10_000
        digits++
      }
      if (index === readEnd && index < end && isDigit(text.charCodeAt(index))) {
        // A long group: to its end by a regular expression (one loop over a megabyte of digits in
        // one call is optimized while it runs, and on Node 24 that was slow), then its last four.
        const groupEnd = Math.min(end, digitsEnd(text, index))
        digits += groupEnd - index
        index = groupEnd
        lastFour = Number(text.slice(index - 4, index))
      }
      const separator = text.charCodeAt(index)
      if (index + 1 < end && (separator === 0x20 || separator === 0x2d) && isDigit(text.charCodeAt(index + 1))) index++
      else break
    }
    if (digits >= 6) edited.replace(runStart, index, maskOfLastFour(lastFour))
  }
}
