/**
 * The shape of `profiles.json`, checked on every read: a file edited by hand or by another tool
 * must be reported as the user's to fix (exit 2, naming the file and the field), never taken as
 * profiles that crash a renderer later. Hand-written rather than a schema library so that reading
 * the store stays cheap for fast read-only commands such as `paytx status`.
 */
import {InputError} from '../errors.js'
import {ENVIRONMENTS, type Profile} from './presets.js'

export interface StoreData {
  active?: string
  profiles: Record<string, Profile>
}

const OPTIONAL_TEXT_FIELDS = ['h2h_url', 'proxy_id', 'organisation', 'payment_profile', 'api_key_header', 'api_key', 'proxy_key', 'api_key_keychain', 'proxy_key_keychain', 'emulator_readings'] as const

/** Problems listed in one error; the rest are counted. A hand-broken file of thousands of profiles gets a message a terminal can show. */
const PROBLEMS_SHOWN = 20
/** Characters of a value or a profile name quoted in a message. */
const EXCERPT_CHARS = 40

function excerpt(text: string): string {
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'a list'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'string') return `string ${JSON.stringify(excerpt(value))}${value.length > EXCERPT_CHARS ? ` (${value.length} characters)` : ''}`
  return `${typeof value} ${excerpt(JSON.stringify(value) ?? String(value))}`
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function profileProblems(name: string, value: unknown): {field: string; message: string}[] {
  const at = `profiles.${excerpt(name)}`
  if (!isPlainObject(value)) return [{field: at, message: `must be an object with env and base_url (got ${describe(value)})`}]
  const problems: {field: string; message: string}[] = []
  if (!(ENVIRONMENTS as readonly unknown[]).includes(value.env)) {
    problems.push({field: `${at}.env`, message: `must be one of ${ENVIRONMENTS.join(', ')} (got ${value.env === undefined ? 'nothing' : describe(value.env)})`})
  }
  if (typeof value.base_url !== 'string') {
    problems.push({field: `${at}.base_url`, message: `must be the service's base URL as a string (got ${value.base_url === undefined ? 'nothing' : describe(value.base_url)})`})
  }
  for (const field of OPTIONAL_TEXT_FIELDS) {
    if (value[field] !== undefined && typeof value[field] !== 'string') {
      problems.push({field: `${at}.${field}`, message: `must be a string when present (got ${describe(value[field])})`})
    }
  }
  return problems
}

/**
 * The stored data in `text`, or an input error (exit 2) listing every field of the wrong shape.
 * Values of key fields are never quoted, so the error cannot echo a key.
 */
export function parseStoreText(text: string, path: string): StoreData {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    // Only the position: the parser's message quotes the text around it, which may hold a key.
    const where = /line \d+ column \d+|position \d+/.exec((error as Error).message)?.[0]
    throw new InputError(`The profile file ${path} is not valid JSON${where ? ` (at ${where})` : ''}.`, {remedy: {kind: 'fix-profile-file', path}})
  }
  const problems: {field: string; message: string}[] = []
  if (!isPlainObject(json)) {
    problems.push({field: '(top level)', message: `must be an object with "profiles" (got ${describe(json)})`})
  } else {
    if (json.active !== undefined && typeof json.active !== 'string') {
      problems.push({field: 'active', message: `must be a profile name (got ${describe(json.active)})`})
    }
    if (json.profiles !== undefined && !isPlainObject(json.profiles)) {
      problems.push({field: 'profiles', message: `must be an object of profiles by name (got ${describe(json.profiles)})`})
    } else if (json.profiles) {
      for (const [name, profile] of Object.entries(json.profiles)) problems.push(...profileProblems(name, profile))
    }
  }
  if (problems.length > 0) {
    const lines = problems.slice(0, PROBLEMS_SHOWN).map(({field, message}) => `  ${field}: ${/\.(api_key|proxy_key)$/.test(field) ? 'must be a string when present' : message}`)
    if (problems.length > PROBLEMS_SHOWN) lines.push(`  … and ${problems.length - PROBLEMS_SHOWN} more`)
    throw new InputError(`The profile file ${path} does not hold valid profiles:\n${lines.join('\n')}`, {remedy: {kind: 'fix-profile-file', path}})
  }
  const data = json as {active?: string; profiles?: Record<string, Profile>}
  return {...(data.active === undefined ? {} : {active: data.active}), profiles: data.profiles ?? {}}
}
