/**
 * Redaction of secrets for every place text leaves the process: output, --json, --verbose logs,
 * error messages and saved webhooks. Keys show at most their first and last four characters, a
 * PAN its last four digits, a CVV nothing at all.
 *
 * Three nets, from the most to the least informed: known secrets (what this command read),
 * card-like fields by name (`pan`, `card_number`, `cvv`, ... at any depth), and card numbers by
 * shape (12 to 19 digits, spaces or dashes allowed, Luhn-valid) in any text from outside.
 */
import {firstDigit, maskCardNumbers} from './card-numbers-in-text.js'
import {maskCardFieldsInText} from './fields-in-text.js'
import {CVV_MASK, type FieldKind, fieldKind, maskPan, redactKey, redactString} from './secret-fields.js'

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
 * Containers still to fill, for `redactBody`: each copy is made and placed in its parent when met
 * (so the copy keeps the original order of fields), and filled when its turn comes. Three stacks
 * side by side rather than a record each (1 MB of nesting is 175,000 containers), kept between
 * calls (redaction is synchronous), as is the function that copies: made anew in every call, it
 * was a new call target each time, and V8 on Node 24 threw away the compiled walk for it.
 */
const sources: object[] = []
const copies: (Record<string, unknown> | unknown[])[] = []
const kinds: FieldKind[] = []

function copyOf(element: unknown, kind: FieldKind): unknown {
  if (element === null || typeof element !== 'object') return redactScalar(kind, element)
  const list = Array.isArray(element)
  // Whatever sits under a CVV name is masked whole, but a list of them is still a list.
  if (kind === 'cvv' && !list) return CVV_MASK
  // A copy of the container as it is, its own size (the objects of JSON.parse have room for
  // their fields and no more; an empty literal has room for four): what changes is written
  // over it when it is filled. 10 MB of nesting is 1.7 million copies, and at 56 bytes each
  // rather than 32 they took three times as many collections of the young generation.
  const copy = list ? (element as unknown[]).slice() : {...(element as Record<string, unknown>)}
  sources.push(element)
  copies.push(copy)
  kinds.push(kind)
  return copy
}

/**
 * A deep copy of a JSON value with keys, PANs and CVVs redacted: by field name at any depth
 * (items of a list inherit the list's name), and card numbers by shape in every other string.
 * The walk is iterative, so no body is too deep for it.
 */
export function redactBody(value: unknown): unknown {
  // Left empty by the walk, unless one was cut short by an exception.
  if (sources.length > 0) sources.length = copies.length = kinds.length = 0
  const result = copyOf(value, undefined)
  while (sources.length > 0) {
    const source = sources.pop()!
    const copy = copies.pop()!
    const kind = kinds.pop()
    if (Array.isArray(copy)) {
      const items = source as unknown[]
      for (let index = 0; index < items.length; index++) {
        const item = items[index]
        const redacted = copyOf(item, kind)
        if (redacted !== item) copy[index] = redacted
      }
    } else {
      const record = source as Record<string, unknown>
      let renamed = false
      // for...in with an own-property check is Object.keys without an array for every object.
      for (const name in record) {
        if (!Object.hasOwn(record, name)) continue
        const field = record[name]
        const redacted = copyOf(field, fieldKind(name) ?? kind)
        if (redacted !== field) assign(copy, name, redacted)
        renamed ||= maskCardNumbers(name) !== name
      }
      if (renamed) maskFieldNames(copy)
    }
  }
  return result
}

/** A record whose field names hold card numbers, with those masked, its fields in their order. */
function maskFieldNames(record: Record<string, unknown>): void {
  const fields = Object.keys(record).map((name) => [maskCardNumbers(name), record[name]] as const)
  for (const name of Object.keys(record)) delete record[name]
  for (const [name, field] of fields) assign(record, name, field)
}

/**
 * Text of unknown format from outside (a webhook body that is not JSON, a service message), with
 * card numbers masked by shape and the values of card-like fields masked by name.
 */
export function redactText(text: string): string {
  // Both nets look for digits only (card numbers, CVVs): text without any is left as it is.
  if (firstDigit(text) === -1) return text
  return maskCardFieldsInText(maskCardNumbers(text))
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
