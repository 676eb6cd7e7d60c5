/**
 * Where two answers to the same request differ: the HTTP status code, fields only one side has,
 * JSON types, enumeration values, and the value rules of rules.ts (forms, agreeing booleans,
 * echoes). Ids and times are compared by form, never by value. Each difference is classified
 * (breaking, additive, value) and names the listed assumption it touches (attribution.ts), or
 * none.
 */
import {attribute} from './attribution.js'
import {ENUM_FIELDS, type RuleBreak, ruleBreaks, shownValue} from './rules.js'

export type JsonType = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array' | 'absent'

export interface SideAnswer {
  status: number
  /** The parsed JSON body; undefined when the body was empty or not JSON. */
  body: unknown
}

/**
 * - `http-status`: the HTTP status codes differ (never a body field named `status`);
 * - `only-real` / `only-emulator`: a field one side alone sends;
 * - `type`: the field's JSON types differ;
 * - `enum`: an enumeration field (a status, a product) holds another value;
 * - `value`: a value rule the service's answer breaks and the emulator's keeps (or an error `code`
 *   of another value);
 * - `behaviour`: what a side did beside its answers (webhooks, retries, the key's header).
 */
export type DifferenceKind = 'http-status' | 'only-real' | 'only-emulator' | 'type' | 'enum' | 'value' | 'behaviour'

/** breaking: code written against the emulator may break on the service; additive: only the service sends it, harmless to readers; value: a value rule differs. */
export type DifferenceClass = 'breaking' | 'additive' | 'value'

export interface Difference {
  probe: string
  /** The field's path (`details.approval_url`, `cards[].id`); empty for an HTTP status or a behaviour. */
  path: string
  kind: DifferenceKind
  class: DifferenceClass
  real: string
  emulator: string
  /** Ids of listed assumptions (`paytx emulator assumptions`) this difference touches; empty when none does. */
  assumptions: string[]
}

export const CLASS_OF: Record<DifferenceKind, DifferenceClass> = {
  'http-status': 'breaking',
  'only-real': 'additive',
  'only-emulator': 'breaking',
  type: 'breaking',
  enum: 'breaking',
  value: 'value',
  behaviour: 'breaking',
}

export function jsonType(value: unknown): JsonType {
  if (value === undefined) return 'absent'
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value as JsonType
}

/** Every field path with its type; an array's items are described by its first one (`path[]`). */
export function fieldTypes(value: unknown, path = '', out = new Map<string, JsonType>(), depth = 0): Map<string, JsonType> {
  const type = jsonType(value)
  if (path) out.set(path, type)
  if (depth > 16) return out
  if (type === 'object') {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) fieldTypes(item, path ? `${path}.${key}` : key, out, depth + 1)
  } else if (type === 'array' && (value as unknown[]).length > 0) {
    fieldTypes((value as unknown[])[0], `${path}[]`, out, depth + 1)
  }
  return out
}

/** The value at a dotted path (no arrays), or undefined. */
export function valueAt(body: unknown, path: string): unknown {
  let current: unknown = body
  for (const key of path.split('.')) {
    if (!current || typeof current !== 'object' || Array.isArray(current)) return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return current
}

export function makeDifference(probe: string, path: string, kind: DifferenceKind, real: string, emulator: string, assumptions?: string[]): Difference {
  return {probe, path, kind, class: CLASS_OF[kind], real, emulator, assumptions: assumptions ?? attribute(probe, path, kind)}
}

function shapeDifferences(probe: string, real: SideAnswer, emulator: SideAnswer): Difference[] {
  const differences: Difference[] = []
  const realFields = fieldTypes(real.body)
  const emulatorFields = fieldTypes(emulator.body)
  for (const [path, type] of realFields) {
    const other = emulatorFields.get(path)
    if (other === undefined) differences.push(makeDifference(probe, path, 'only-real', type, 'absent'))
    else if (other !== type) differences.push(makeDifference(probe, path, 'type', type, other))
  }
  for (const [path, type] of emulatorFields) if (!realFields.has(path)) differences.push(makeDifference(probe, path, 'only-emulator', 'absent', type))
  // A field missing on one side says nothing more about the fields under it.
  return differences.filter((difference) => !differences.some((outer) => outer !== difference && outer.kind === difference.kind && outer.kind !== 'type' && difference.path.startsWith(`${outer.path}.`)))
}

function enumDifferences(probe: string, real: SideAnswer, emulator: SideAnswer): Difference[] {
  const out: Difference[] = []
  for (const path of ENUM_FIELDS) {
    const [a, b] = [valueAt(real.body, path), valueAt(emulator.body, path)]
    if (typeof a === 'string' && typeof b === 'string' && a !== b) out.push(makeDifference(probe, path, 'enum', JSON.stringify(a), JSON.stringify(b)))
  }
  return out
}

/** Rules the service's answer breaks and the emulator's keeps; an error `code` of another value. */
function valueDifferences(probe: string, real: SideAnswer, emulator: SideAnswer, sent: unknown): Difference[] {
  const emulatorBreaks = new Set(ruleBreaks(probe, emulator.body, sent).map((broken) => `${broken.path}\u0000${broken.rule}`))
  const out = ruleBreaks(probe, real.body, sent)
    .filter((broken: RuleBreak) => !emulatorBreaks.has(`${broken.path}\u0000${broken.rule}`))
    .map((broken) => makeDifference(probe, broken.path, 'value', `${broken.shown}, not ${broken.rule}`, shownValue(valueAt(emulator.body, broken.path))))
  const [realCode, emulatorCode] = [valueAt(real.body, 'code'), valueAt(emulator.body, 'code')]
  if (typeof realCode === 'string' && typeof emulatorCode === 'string' && realCode !== emulatorCode && !out.some((d) => d.path === 'code')) {
    out.push(makeDifference(probe, 'code', 'value', JSON.stringify(realCode), JSON.stringify(emulatorCode)))
  }
  return out
}

/** Every difference between the two answers to one request; `sent` is the request body (echo rules). */
export function compareAnswers(probe: string, real: SideAnswer, emulator: SideAnswer, sent?: unknown): Difference[] {
  const differences: Difference[] = []
  if (real.status !== emulator.status) differences.push(makeDifference(probe, '', 'http-status', String(real.status), String(emulator.status)))
  const shape = shapeDifferences(probe, real, emulator)
  const typed = new Set(shape.map((difference) => difference.path))
  return [
    ...differences,
    ...shape,
    ...enumDifferences(probe, real, emulator).filter((difference) => !typed.has(difference.path)),
    ...valueDifferences(probe, real, emulator, sent).filter((difference) => !typed.has(difference.path)),
  ]
}
