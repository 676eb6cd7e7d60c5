/**
 * Redaction of secrets for every place text leaves the process: output, --json, --verbose logs
 * and error messages. Keys show at most their first and last four characters, a PAN its last
 * four digits, a CVV nothing at all.
 */
import {luhnValid} from '../api/contract.js'

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

const PAN_KEYS = /^(pan|card_number|cardnumber|number)$/i
const CVV_KEYS = /(cvv|cvc|cvn|security_code)/i
const KEY_KEYS = /(api[_-]?key|proxy[_-]?key|secret|password|authorization)/i

/** Masks anything in free text shaped like a card number (12-19 digits, spaces or dashes allowed, Luhn-valid). */
export function maskCardNumbers(text: string): string {
  return text.replace(/(?<!\d)\d(?:[ -]?\d){11,18}(?!\d)/g, (match) => (luhnValid(match.replace(/\D/g, '')) ? maskPan(match) : match))
}

/** A deep copy of a JSON value with PANs, CVVs and keys redacted by field name. */
export function redactBody(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => redactBody(item))
  if (!value || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (typeof item === 'string' && PAN_KEYS.test(key)) out[key] = maskPan(item)
    else if (CVV_KEYS.test(key) && item !== undefined && item !== null && item !== '') out[key] = '***'
    else if (typeof item === 'string' && KEY_KEYS.test(key)) out[key] = redactKey(item)
    else out[key] = redactBody(item)
  }
  return out
}

/** Header values redacted when they carry credentials, whatever the profile names the header. */
export function redactHeaders(headers: Record<string, string>, secretHeaderNames: readonly string[] = []): Record<string, string> {
  const secret = new Set(['authorization', 'tx-proxy-key', 'x-apikey', ...secretHeaderNames.map((h) => h.toLowerCase())])
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    out[name] = secret.has(name.toLowerCase()) ? redactKey(value.replace(/^(Basic|Bearer)\s+/i, '')) : value
  }
  return out
}

/**
 * The last safety net: replaces every occurrence of a known secret (keys, PANs, CVVs) in free
 * text, such as a service's error message that echoes a field back.
 */
export function scrubSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text
  for (const secret of secrets) {
    if (!secret) continue
    if (/^\d{3,4}$/.test(secret)) {
      // A CVV: only as a number of its own, so that longer numbers around it survive.
      out = out.replace(new RegExp(`(?<!\\d)${secret}(?!\\d)`, 'g'), '***')
      continue
    }
    if (secret.length < 6) continue
    const replacement = /^\d+$/.test(secret) ? maskPan(secret) : redactKey(secret)
    out = out.split(secret).join(replacement)
  }
  return out
}
