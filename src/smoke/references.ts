/**
 * References from one case to the results of an earlier one, written `${cases.<name>.<field>}`
 * inside a string value (`customer: ${cases.first-payment.customerId}`). `$${` stands for a
 * literal `${`. A case that refers to another runs after it, whatever the concurrency.
 */

/** What a finished case offers to later ones. */
export const REFERENCE_FIELDS = ['customerId', 'cardId', 'transactionId'] as const
export type ReferenceField = (typeof REFERENCE_FIELDS)[number]

export interface Reference {
  /** Empty for `${transaction.id}`, the case's own transaction (`own`). */
  caseName: string
  field: ReferenceField
  /** The reference as written, e.g. `${cases.first.customerId}`. */
  text: string
  /** `${transaction.id}`: the id of the case's own transaction, known once it started (in `check` only). */
  own?: true
}

/** How the case's own transaction id is written. */
export const OWN_TRANSACTION_ID = '${transaction.id}'

export type TemplatePart = string | Reference

export interface ParsedTemplate {
  parts: TemplatePart[]
  problems: string[]
}

const REFERENCE_BODY = /^cases\.(.+)\.([A-Za-z]+)$/

export function parseTemplate(text: string): ParsedTemplate {
  const parts: TemplatePart[] = []
  const problems: string[] = []
  let literal = ''
  let index = 0
  while (index < text.length) {
    if (text.startsWith('$${', index)) {
      literal += '${'
      index += 3
      continue
    }
    if (!text.startsWith('${', index)) {
      literal += text[index]
      index++
      continue
    }
    const end = text.indexOf('}', index + 2)
    if (end === -1) {
      problems.push(`"${text.slice(index)}" is not closed; write \${cases.<name>.<field>}, or $\${ for a literal "\${"`)
      literal += text.slice(index)
      break
    }
    const written = text.slice(index, end + 1)
    const body = text.slice(index + 2, end).trim()
    const match = REFERENCE_BODY.exec(body)
    if (/^env\./.test(body)) {
      // An environment variable the file's check found unset (environment-values.ts said so): kept as written.
      literal += written
    } else if (body.startsWith('transaction.')) {
      if (body === 'transaction.id') {
        if (literal) parts.push(literal)
        literal = ''
        parts.push({caseName: '', field: 'transactionId', text: written, own: true})
      } else {
        problems.push(`"${written}" is not a value of the case's transaction; write ${OWN_TRANSACTION_ID}`)
      }
    } else if (!match) {
      problems.push(`"${written}" is not a reference; write \${cases.<name>.<field>} with <field> one of ${REFERENCE_FIELDS.join(', ')}`)
    } else if (!(REFERENCE_FIELDS as readonly string[]).includes(match[2])) {
      problems.push(`"${written}" refers to "${match[2]}", which a case does not offer; use one of ${REFERENCE_FIELDS.join(', ')}`)
    } else {
      if (literal) parts.push(literal)
      literal = ''
      parts.push({caseName: match[1], field: match[2] as ReferenceField, text: written})
    }
    index = end + 1
  }
  if (literal || parts.length === 0) parts.push(literal)
  return {parts, problems}
}

export interface FoundReference extends Reference {
  /** Path below the value where the string holding it is (empty for the value itself). */
  path: (string | number)[]
}

/** Every reference in a value (strings, and the strings inside arrays and objects). */
export function findReferences(value: unknown, path: (string | number)[] = []): {references: FoundReference[]; problems: {path: (string | number)[]; message: string}[]} {
  const references: FoundReference[] = []
  const problems: {path: (string | number)[]; message: string}[] = []
  const visit = (item: unknown, at: (string | number)[]) => {
    if (typeof item === 'string') {
      const parsed = parseTemplate(item)
      for (const part of parsed.parts) if (typeof part !== 'string') references.push({...part, path: at})
      for (const message of parsed.problems) problems.push({path: at, message})
    } else if (Array.isArray(item)) {
      item.forEach((element, index) => visit(element, [...at, index]))
    } else if (item && typeof item === 'object') {
      for (const [key, element] of Object.entries(item)) visit(element, [...at, key])
    }
  }
  visit(value, path)
  return {references, problems}
}

export function containsReference(value: unknown): boolean {
  return findReferences(value).references.length > 0
}

/** Raised when a case refers to a value its dependency did not produce (it failed early). */
export class UnresolvedReferenceError extends Error {
  readonly reference: Reference

  constructor(reference: Reference) {
    super(`${reference.text} has no value: case "${reference.caseName}" did not produce a ${reference.field}`)
    this.name = 'UnresolvedReferenceError'
    this.reference = reference
  }
}

/** The value with every reference replaced; `$${` becomes `${` in every string. */
export function resolveReferences<T>(value: T, lookup: (reference: Reference) => string | undefined): T {
  if (typeof value === 'string') {
    return parseTemplate(value)
      .parts.map((part) => {
        if (typeof part === 'string') return part
        const resolved = lookup(part)
        if (resolved === undefined) throw new UnresolvedReferenceError(part)
        return resolved
      })
      .join('') as T
  }
  if (Array.isArray(value)) return value.map((item) => resolveReferences(item, lookup)) as T
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveReferences(item, lookup)])) as T
  }
  return value
}
