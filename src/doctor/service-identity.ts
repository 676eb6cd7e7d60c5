/**
 * Whether what answers at the profile's address is the payment service: asked a transaction that
 * cannot exist, the service answers with its error object (JSON with a `message`); the emulator
 * also says who it is on its health route. Anything else (a web server's 404 page, another API's
 * JSON, a redirect) is described as it looks, with what to do about it, fitted to where the
 * address points (a program on this machine, the local emulator's port, a stored or a variable's
 * address).
 */
import {type Answer, bodySnippet, headerValue, htmlHeadline, isHtml} from '../api/answer.js'
import {ENVIRONMENT_PRESETS} from '../profiles/presets.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import {scrubSecrets} from '../secrets/redact.js'
import {redactUrl} from '../secrets/redact-url.js'
import {EMULATOR_DEFAULTS, emulatorBaseUrl} from '../test-mode/emulator-defaults.js'
import {visibleText} from '../terminal/visible-text.js'
import {type PortOwner, describeOwner} from './port-checks.js'

/** A shown piece of a foreign body: short enough for one line of doctor's. */
const SHOWN_CHARS = 60

function shown(text: string, secrets: readonly (string | undefined)[]): string {
  const flat = visibleText(scrubSecrets(bodySnippet(text), secrets))
  return flat.length > SHOWN_CHARS ? `${flat.slice(0, SHOWN_CHARS - 1)}…` : flat
}

function plainObject(answer: Answer): Record<string, unknown> | undefined {
  const {body} = answer
  return answer.isJson && body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined
}

/** The body, as it looks to a person: an HTML page and its title, text, JSON and its fields. */
function describeBody(answer: Answer, secrets: readonly (string | undefined)[]): string {
  if (answer.text.trim() === '') return 'an empty body (the service sends an error object with a message)'
  if (answer.tooDeep) return 'JSON nested deeper than any answer of the service'
  if (!answer.isJson) return isHtml(answer.headers, answer.text) ? `an HTML page ("${shown(htmlHeadline(answer.text), secrets)}")` : `text ("${shown(answer.text, secrets)}")`
  const object = plainObject(answer)
  if (!object) return `JSON that is not an object (${Array.isArray(answer.body) ? 'a list' : typeof answer.body})`
  const keys = Object.keys(object)
  const fields = keys.length === 0 ? 'no fields' : `fields ${shown(keys.slice(0, 4).join(', '), secrets)}${keys.length > 4 ? ` and ${keys.length - 4} more` : ''}`
  return `JSON without the service's "message" (${fields})`
}

/**
 * What the answer looks like when it is not the service's, for "does not look like the payment
 * service: it sent …"; undefined when it does look like the service's.
 */
export function foreignAnswer(answer: Answer, secrets: readonly (string | undefined)[]): string | undefined {
  const {status} = answer
  if (status >= 200 && status < 300) return `a success for a transaction that cannot exist, with ${describeBody(answer, secrets)}`
  if (status >= 300 && status < 400) {
    const location = headerValue(answer.headers.location)
    return location ? `a redirect to ${visibleText(redactUrl(location))}` : 'a redirect'
  }
  if (typeof plainObject(answer)?.message === 'string') return undefined
  return describeBody(answer, secrets)
}

/** A word as the shell reads it: quoted when it holds anything but plain characters. */
export function shellWord(word: string): string {
  return /^[\w.@%+=:,/-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`
}

export interface ForeignContext {
  resolved: ResolvedProfile
  /** The address asked, parsed. */
  url: URL
  /** The address is on this machine (then the program holding its port is named). */
  loopback: boolean
  owner?: PortOwner
  /** A free port to start the emulator on instead. */
  freePort: number
}

/** The program holding the address's port, as a sentence's end: `; port 4010 is held by python3 (pid 42)`. */
export function ownerClause({url, loopback, owner}: Pick<ForeignContext, 'url' | 'loopback' | 'owner'>): string {
  if (!loopback) return ''
  return `; port ${portOf(url)} is held by ${describeOwner(owner)}`
}

export function portOf(url: URL): number {
  return Number(url.port) || (url.protocol === 'https:' ? 443 : 80)
}

/** What to do when the address answers, but not as the service: each way a command line to paste. */
export function foreignRemedy({resolved, url, loopback, owner, freePort}: ForeignContext): string {
  const {name, profile, overrides} = resolved
  const ways: string[] = []
  if (loopback) ways.push(owner ? `Stop ${visibleText(owner.name)} (\`kill ${owner.pid}\`)` : `Stop the program that holds port ${portOf(url)}`)
  if (profile.env === 'local') {
    const address = emulatorBaseUrl(EMULATOR_DEFAULTS.host, freePort)
    ways.push(`start the emulator on another port (\`paytx emulator start --port ${freePort}\`) and point paytx at it (\`export PAYTX_BASE_URL=${address} PAYTX_H2H_URL=${address}${EMULATOR_DEFAULTS.proxyBasePath}\`)`)
  }
  if (overrides.includes('PAYTX_BASE_URL')) {
    ways.push('stop overriding the profile’s base URL (`unset PAYTX_BASE_URL`)')
  } else if (profile.env !== 'local') {
    ways.push(`set the profile’s base URL to the service’s (\`paytx profile add ${shellWord(name)} --base-url ${ENVIRONMENT_PRESETS[profile.env].base_url}\` for the ${profile.env} service)`)
  }
  const [first, ...rest] = ways
  const sentence = rest.length === 0 ? first : `${first}, ${rest.slice(0, -1).map((way) => `${way}, `).join('')}or ${rest.at(-1)}`
  return `${sentence[0].toUpperCase()}${sentence.slice(1)}.`
}
