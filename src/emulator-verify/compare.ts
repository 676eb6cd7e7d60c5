/**
 * Where two answers to the same request differ, field by field: the status code, fields only one
 * side has, and fields whose JSON types differ. Values are not compared (ids, times and
 * references differ by nature); error answers are compared the same way, so their shapes are too.
 * Each difference names the emulator assumptions it touches.
 */
export type JsonType = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array' | 'absent'

export interface SideAnswer {
  status: number
  /** The parsed JSON body; undefined when the body was empty or not JSON. */
  body: unknown
}

export interface Difference {
  probe: string
  /** `status`, or the field's path (`details.approval_url`, `cards[].id`). */
  path: string
  kind: 'status' | 'only-real' | 'only-emulator' | 'type'
  real: string
  emulator: string
  /** Ids of listed assumptions (`paytx emulator assumptions`) this difference touches. */
  assumptions: string[]
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

const CUSTOMER_OPTIONAL_FIELDS = new Set(['fax_number', 'house_number_suffix', 'social_security_number', 'segment'])
const ERROR_PROBES = new Set(['invalid-amount', 'invalid-customer', 'unknown-transaction', 'wrong-key'])

/** The listed assumptions a difference in this probe's answer, at this path, touches. */
export function assumptionsFor(probe: string, path: string): string[] {
  const found = new Set<string>()
  const last = path.split('.').pop()!.replace(/\[\]$/, '')
  if (last === 'id' || last === '_id') found.add('id-keys')
  if (probe === 'card') found.add('card-record')
  if (probe === 'customer' && CUSTOMER_OPTIONAL_FIELDS.has(path)) found.add('customer-optional-fields')
  if (probe === 'customer' && path === 'status_reason') found.add('customer-status-reason')
  if (path.startsWith('details.sender')) found.add('sofort-sender')
  if (ERROR_PROBES.has(probe)) found.add('error-statuses')
  if (probe === 'wrong-key') found.add('api-key-header')
  return [...found]
}

export function compareAnswers(probe: string, real: SideAnswer, emulator: SideAnswer): Difference[] {
  const differences: Difference[] = []
  const add = (path: string, kind: Difference['kind'], realText: string, emulatorText: string) =>
    differences.push({probe, path, kind, real: realText, emulator: emulatorText, assumptions: assumptionsFor(probe, path === 'status' ? '' : path)})
  if (real.status !== emulator.status) add('status', 'status', String(real.status), String(emulator.status))
  const realFields = fieldTypes(real.body)
  const emulatorFields = fieldTypes(emulator.body)
  for (const [path, type] of realFields) {
    const other = emulatorFields.get(path)
    if (other === undefined) add(path, 'only-real', type, 'absent')
    else if (other !== type) add(path, 'type', type, other)
  }
  for (const [path, type] of emulatorFields) if (!realFields.has(path)) add(path, 'only-emulator', 'absent', type)
  // A field missing on one side says nothing more about the fields under it.
  return differences.filter((difference) => !differences.some((outer) => outer !== difference && outer.kind === difference.kind && difference.kind !== 'status' && outer.kind !== 'type' && difference.path.startsWith(`${outer.path}.`)))
}
