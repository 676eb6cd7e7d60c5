/**
 * The parts of a scenario that test the merchant's own service, checked as the file is read:
 * `start` (an HTTP step of the merchant's that starts the payment and answers its transaction
 * id), `check` (the merchant's endpoint read after the webhooks) and `expect.delivered` (the
 * emulator's delivery log). Each problem is reported at its value's line, like every other.
 */
import {readDuration} from '../duration.js'
import {headerValueProblem} from '../http/header-value.js'
import {isAbsoluteHttpUrl} from '../http/url.js'
import type {ValuePath} from '../input/scenario-source.js'
import {type JsonPathStep, parseJsonPath} from './json-path.js'
import {resolveReferences} from './references.js'
import type {checkStepSchema, startStepSchema} from './scenario-schema.js'
import type {z} from 'zod'

/** A request's and a check's default time. */
export const DEFAULT_STEP_TIMEOUT_MS = 10_000

export interface StartStep {
  method: string
  /** May hold references to earlier cases, resolved when the case starts. */
  url: string
  headers: Record<string, string>
  body?: unknown
  /** Where the answer holds the transaction id. */
  transactionId: {written: string; steps: JsonPathStep[]}
  timeoutMs: number
}

export interface CheckStep {
  /** Holds ${transaction.id} (and maybe references), resolved once the transaction started. */
  url: string
  headers: Record<string, string>
  /** Undefined: any 2xx. */
  status?: number
  json: {path: string; steps: JsonPathStep[]; value: unknown}[]
  timeoutMs: number
}

export interface DeliveredExpectation {
  /** The address every delivery must have gone to. */
  to?: string
  /** At least this many webhooks. */
  min: number
}

type Report = (path: ValuePath, message: string) => void

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const PLACEHOLDER_ID = '00000000-0000-4000-8000-000000000000'

/** A URL that may hold references is checked with stand-ins for them; one holding an unset ${env.X} was reported already. */
function checkUrl(url: string, path: ValuePath, note: string, report: Report): boolean {
  if (/\$\{\s*env\./.test(url)) return false
  let shown: string
  try {
    shown = resolveReferences(url, () => PLACEHOLDER_ID)
  } catch {
    return false
  }
  if (isAbsoluteHttpUrl(shown)) return true
  report(path, `must be an absolute http(s) URL, such as \${env.SHOP_URL}/checkout; got ${JSON.stringify(url)}${note}`)
  return false
}

function checkHeaders(headers: Record<string, string> | undefined, path: ValuePath, report: Report): boolean {
  let ok = true
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!HEADER_NAME.test(name)) {
      report([...path, name], `"${name}" is not an HTTP header name (letters, digits and !#$%&'*+.^_\`|~-)`)
      ok = false
    }
    const problem = headerValueProblem(value)
    if (problem) {
      report([...path, name], problem)
      ok = false
    }
  }
  return ok
}

function timeoutOf(value: number | string | undefined, path: ValuePath, report: Report): number | undefined | false {
  if (value === undefined) return DEFAULT_STEP_TIMEOUT_MS
  const ms = readDuration(String(value))
  if (ms !== undefined && ms > 0) return ms
  report(path, 'must be a duration greater than 0')
  return false
}

export function checkStartStep(raw: z.infer<typeof startStepSchema>, path: ValuePath, note: string, report: Report): StartStep | false {
  // ${transaction.id} in it is reported with the other references (scenario.ts).
  let ok = checkUrl(raw.url, [...path, 'url'], note, report)
  ok = checkHeaders(raw.headers, [...path, 'headers'], report) && ok
  const steps = parseJsonPath(raw.transaction_id)
  if (typeof steps === 'string') {
    report([...path, 'transaction_id'], `${steps}${note}`)
    ok = false
  }
  const timeoutMs = timeoutOf(raw.timeout, [...path, 'timeout'], report)
  if (!ok || typeof steps === 'string' || timeoutMs === false || timeoutMs === undefined) return false
  return {
    method: raw.method ?? 'POST',
    url: raw.url,
    headers: raw.headers ?? {},
    ...(raw.body === undefined ? {} : {body: raw.body}),
    transactionId: {written: raw.transaction_id, steps},
    timeoutMs,
  }
}

export function checkCheckStep(raw: z.infer<typeof checkStepSchema>, path: ValuePath, note: string, report: Report): CheckStep | false {
  let ok = checkUrl(raw.url, [...path, 'url'], note, report)
  ok = checkHeaders(raw.headers, [...path, 'headers'], report) && ok
  const json: CheckStep['json'] = []
  for (const [written, value] of Object.entries(raw.expect.json ?? {})) {
    const steps = parseJsonPath(written)
    if (typeof steps === 'string') {
      report([...path, 'expect', 'json', written], `${JSON.stringify(written)} ${steps}${note}`)
      ok = false
    } else {
      json.push({path: written, steps, value})
    }
  }
  if (raw.expect.status === undefined && json.length === 0 && ok) {
    report([...path, 'expect'], `must name a status or json values to wait for${note}`)
    ok = false
  }
  const timeoutMs = timeoutOf(raw.timeout, [...path, 'timeout'], report)
  if (!ok || timeoutMs === false || timeoutMs === undefined) return false
  return {url: raw.url, headers: raw.headers ?? {}, ...(raw.expect.status === undefined ? {} : {status: raw.expect.status}), json, timeoutMs}
}

export function checkDelivered(raw: true | {to?: string; min?: number}, path: ValuePath, note: string, report: Report): DeliveredExpectation | false {
  if (raw === true) return {min: 1}
  if (raw.to !== undefined && !checkUrl(raw.to, [...path, 'to'], note, report)) return false
  if (raw.to?.includes('${')) {
    report([...path, 'to'], `must be an address without references${note}`)
    return false
  }
  return {...(raw.to === undefined ? {} : {to: raw.to}), min: raw.min ?? 1}
}

/** Fields that describe a transaction paytx starts itself: a case whose merchant starts it cannot set them. */
export const FIELDS_PAYTX_STARTS_WITH = ['card', 'customer', 'descriptor', 'merchant_reference', 'extra_fields', 'webhook', 'faults'] as const
