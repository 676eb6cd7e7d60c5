/**
 * Redaction of secrets for every place text leaves the process: output, --json, --verbose logs,
 * error messages and saved webhooks. Keys show at most their first and last four characters, a
 * PAN its last four digits, a CVV nothing at all.
 *
 * Three nets, from the most to the least informed: known secrets (what this command read),
 * card-like fields by name (`pan`, `card_number`, `cvv`, ... at any depth), and card numbers by
 * shape (12 to 19 digits, spaces or dashes allowed, Luhn-valid) in any text from outside.
 */
import {firstDigit, maskCardNumbers, noteCardNumbers} from './card-numbers-in-text.js'
import {maskCardFieldsInText} from './fields-in-text.js'
import {CVV_MASK, type FieldKind, fieldKind, maskCvvsInWords, maskPan, redactKey, redactString} from './secret-fields.js'

export {maskCardNumbers} from './card-numbers-in-text.js'
export {maskPan, redactKey} from './secret-fields.js'

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
 * Containers still to walk, for `maskBody`, level by level: those of the level being walked
 * (`walking`) and those found in it, one level deeper (`found`), each with the kind of field it
 * sits under, in two arrays side by side rather than a record each (1 MB of nesting is 160,000
 * containers). Level by level follows a parsed body the way it lies in memory once collected: the
 * collector copies what is still alive breadth first, so that each level of 1,400 chains nested
 * 100 deep lies together, and the walk down one chain at a time (a stack) waited on memory at
 * every step (visiting those chains took 2 to 3 times as long, Node 20 and 24). The arrays are
 * kept between calls (redaction is synchronous) with their room: emptied by their length, they
 * grew again from nothing in every call. A slot is cleared when taken, so no body is held after
 * its walk.
 */
interface Level {
  containers: (object | undefined)[]
  kinds: FieldKind[]
  held: number
}

let walking: Level = {containers: [], kinds: [], held: 0}
let found: Level = {containers: [], kinds: [], held: 0}

/**
 * What `withMaskedBody` wrote over, to put back once the body has been used: per write, the
 * container, the field (or index) and what it held, three slots in a row, in the order written
 * (each noted once written, so that a write refused is not put back). A record whose field names
 * were masked puts back all its fields under their old names (`RENAMED`, the old fields as
 * pairs). Kept with its room between calls, like the stacks; 1 MB of card numbers in a list is
 * 50,000 writes.
 */
const written: unknown[] = []
let writtenSlots = 0
const RENAMED = Symbol('renamed')

/**
 * Masks the secrets of a JSON value where they are, by field name at any depth (items of a list
 * inherit the list's name) and card numbers by shape in every other string; with `keep`, notes
 * what it wrote over so that `putBack` can undo it. Returns the value (a secret scalar masked).
 * The walk is iterative, so no body is too deep for it.
 */
function maskBody(value: unknown, keep: boolean): unknown {
  // Left empty by the walk, unless one was cut short by an exception.
  for (const level of [walking, found]) while (level.held > 0) level.containers[--level.held] = undefined
  if (value === null || typeof value !== 'object') return redactScalar(undefined, value)
  hold(value, undefined)
  while (found.held > 0) {
    const level = found
    found = walking
    walking = level
    for (let at = 0; at < level.held; at++) {
      const container = level.containers[at]!
      level.containers[at] = undefined
      maskContainer(container, level.kinds[at], keep)
    }
    level.held = 0
  }
  return value
}

/** Masks the fields or items of one container, holding the containers among them for the next level. */
function maskContainer(container: object, kind: FieldKind, keep: boolean): void {
  if (Array.isArray(container)) {
    for (let from = 0; from < container.length; from += Slice.Items) maskItems(container, from, kind, keep)
    return
  }
  const record = container as Record<string, unknown>
  let renamed = false
  // for...in with an own-property check is Object.keys without an array for every object.
  for (const name in record) {
    if (!Object.hasOwn(record, name)) continue
    const field = record[name]
    const masked = maskedElement(field, fieldKind(name) ?? kind)
    renamed ||= maskCardNumbers(name) !== name
    if (masked === field) continue
    assign(record, name, masked)
    if (keep) wrote(record, name, field)
  }
  if (renamed) maskFieldNames(record, keep)
}

/**
 * A long list's items are masked, and what was written over put back, a slice a call. V8
 * optimizes a function called often as a whole; one whose loop runs long in a few calls is
 * optimized while that loop runs (on-stack replacement), and on Node 24 that code was thrown away
 * and made again at every call: with one call for all its items, a list of 50,000 card numbers
 * (1 MB) took 5.5 ms a time in one process and 13.5 in the next.
 */
const enum Slice {
  Items = 256,
  Writes = 256,
}

/** Masks the items of a list from `from` on, a slice of them. */
function maskItems(list: unknown[], from: number, kind: FieldKind, keep: boolean): void {
  const end = Math.min(list.length, from + Slice.Items)
  for (let index = from; index < end; index++) {
    const item: unknown = list[index]
    const masked = maskedElement(item, kind)
    if (masked === item) continue
    list[index] = masked
    if (keep) wrote(list, index, item)
  }
}

/** An element of a container as masked: a scalar masked, a container pushed to be walked. */
function maskedElement(element: unknown, kind: FieldKind): unknown {
  if (element === null || typeof element !== 'object') return redactScalar(kind, element)
  // Whatever sits under a CVV name is masked whole, but a list of them is still a list.
  if (kind === 'cvv' && !Array.isArray(element)) return CVV_MASK
  hold(element, kind)
  return element
}

function hold(container: object, kind: FieldKind): void {
  found.containers[found.held] = container
  found.kinds[found.held] = kind
  found.held++
}

function wrote(container: object, at: string | number | typeof RENAMED, was: unknown): void {
  written[writtenSlots] = container
  written[writtenSlots + 1] = at
  written[writtenSlots + 2] = was
  writtenSlots += 3
}

/** A record whose field names hold card numbers, with those masked, its fields in their order. */
function maskFieldNames(record: Record<string, unknown>, keep: boolean): void {
  // Checked before anything is moved, so that a record that cannot be changed is left whole.
  if (!Object.isExtensible(record)) throw new TypeError('the record cannot be changed')
  const names = Object.keys(record)
  if (keep) wrote(record, RENAMED, names.map((name) => [name, record[name]]))
  const fields = names.map((name) => [maskCardNumbers(name), record[name]] as const)
  for (const name of names) delete record[name]
  for (const [name, field] of fields) assign(record, name, field)
}

/** Undoes what `maskBody` wrote, the last write first (a value met twice gets its first back). */
function putBack(): void {
  while (writtenSlots > 0) putBackSlice(Math.max(0, writtenSlots - 3 * Slice.Writes))
}

/** Puts back the last writes, down to the slot `down`. */
function putBackSlice(down: number): void {
  while (writtenSlots > down) {
    writtenSlots -= 3
    const container = written[writtenSlots] as Record<string | number, unknown>
    const at = written[writtenSlots + 1] as string | number | typeof RENAMED
    const was = written[writtenSlots + 2]
    written[writtenSlots] = written[writtenSlots + 2] = undefined
    if (at === RENAMED) {
      for (const name of Object.keys(container)) delete container[name]
      for (const [name, field] of was as [string, unknown][]) assign(container, name, field)
    } else if (typeof at === 'number') container[at] = was
    else assign(container, at, was)
  }
}

/**
 * Masks the secrets of a parsed JSON body that the caller owns and will not show unmasked (a
 * webhook as received): in place, with no copy. Returns the body, or the masked value when the
 * body is a scalar.
 */
export function maskBodyInPlace(value: unknown): unknown {
  return maskBody(value, false)
}

/**
 * Calls `use` with a body's secrets masked (keys, PANs, CVVs), and puts the body back as it was
 * before returning: the body is masked where it is, not copied. A copy of every container on the
 * way to a secret took up to four times the walk (1 MB of bodies nested 100 deep), and what is
 * shown of a body is written once and dropped. A body that cannot be written to (frozen, say) is
 * masked on a copy instead. `use` must not keep the masked body, nor leave anything to run later.
 */
export function withMaskedBody<T>(value: unknown, use: (masked: unknown) => T): T {
  // Empty, unless `use` ran another redaction of a body (then that one put back its own).
  if (writtenSlots > 0) throw new Error('withMaskedBody cannot be called while a masked body is in use')
  let masked: unknown
  try {
    masked = maskBody(value, true)
  } catch (error) {
    putBack()
    if (!(error instanceof TypeError)) throw error
    const copy: unknown = JSON.parse(JSON.stringify(value) ?? 'null')
    return use(maskBody(copy, false))
  }
  try {
    return use(masked)
  } finally {
    putBack()
  }
}

/** The JSON text of a body with its secrets masked, as `JSON.stringify` writes it; the body stays as it was. */
export function redactedJson(value: unknown, space?: number): string {
  return withMaskedBody(value, (masked) => JSON.stringify(masked, undefined, space))
}

/**
 * Text of unknown format from outside (a webhook body that is not JSON, a service message), with
 * card numbers masked by shape and the values of card-like fields masked by name.
 */
export function redactText(text: string): string {
  // Both nets look for digits only (card numbers, CVVs): text without any is left as it is.
  const first = firstDigit(text)
  if (first === -1) return text
  // The field net reads the text as the card number net masks it, without that text being made.
  return maskCardFieldsInText(text, noteCardNumbers(text, first))
}

/** Header values redacted when they carry credentials, whatever the profile names the header. */
export function redactHeaders(headers: Record<string, string>, secretHeaderNames: readonly string[] = []): Record<string, string> {
  return headerRedactor(secretHeaderNames)(headers)
}

/**
 * redactHeaders for one list of secret header names, made once for a caller that redacts the
 * headers of every request (`webhook listen`). It also takes Node's parsed headers as they are: a
 * header sent more than once is one value, joined with `, `.
 */
export function headerRedactor(secretHeaderNames: readonly string[] = []): (headers: Record<string, string | string[] | undefined>) => Record<string, string> {
  const secret = new Set(['authorization', 'tx-proxy-key', 'x-apikey', ...secretHeaderNames.map((h) => h.toLowerCase())])
  return (headers) => {
    const out: Record<string, string> = {}
    for (const name in headers) {
      if (!Object.hasOwn(headers, name)) continue
      const given = headers[name]
      if (given === undefined) continue
      const value = Array.isArray(given) ? given.join(', ') : given
      out[name] = secret.has(name.toLowerCase()) ? redactKey(value.replace(/^(Basic|Bearer)\s+/i, '')) : redactText(value)
    }
    return out
  }
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
 * service's error message that echoes the card back in groups, and a CVV named in words
 * (`cvv 7391`): a command such as `card tokenize` knows no CVV to look for.
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
  return redactText(maskCvvsInWords(out))
}
