/**
 * Where a value sits in a JSON answer, written as a JSON path of names and indexes
 * (`$.payment.id`, `$.items[0].id`, `$['order-state']`) or a JSON pointer (`/payment/id`, RFC
 * 6901). No wildcards, filters or slices: a smoke step reads one value.
 */

export type JsonPathStep = string | number

/** The steps of a path, or a sentence saying why it is not one. */
export function parseJsonPath(written: string): JsonPathStep[] | string {
  const text = written.trim()
  if (text.startsWith('/') || text === '') return parsePointer(text)
  if (!text.startsWith('$')) return 'must be a JSON path starting with $ (such as $.payment.id) or a JSON pointer starting with / (such as /payment/id)'
  const steps: JsonPathStep[] = []
  let index = 1
  while (index < text.length) {
    const rest = text.slice(index)
    const name = /^\.([A-Za-z_$][\w$-]*)/.exec(rest)
    const position = /^\[(\d+)\]/.exec(rest)
    const quoted = /^\[(['"])((?:(?!\1)[^\\]|\\.)*)\1\]/.exec(rest)
    if (name) steps.push(name[1])
    else if (position) steps.push(Number(position[1]))
    else if (quoted) steps.push(quoted[2].replace(/\\(.)/g, '$1'))
    else return `cannot read "${rest}" at character ${index + 1}; write .name, [0] or ['name'] (no wildcards or filters)`
    index += (name ?? position ?? quoted)![0].length
  }
  return steps
}

function parsePointer(text: string): JsonPathStep[] {
  if (text === '') return []
  return text
    .slice(1)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
}

/** The value at the path, or `found: false` when some step is not there. */
export function readJsonPath(value: unknown, steps: readonly JsonPathStep[]): {found: true; value: unknown} | {found: false} {
  let current = value
  for (const step of steps) {
    if (Array.isArray(current)) {
      const position = typeof step === 'number' ? step : /^\d+$/.test(step) ? Number(step) : Number.NaN
      if (!(position >= 0 && position < current.length)) return {found: false}
      current = current[position]
    } else if (current !== null && typeof current === 'object' && Object.hasOwn(current, String(step))) {
      current = (current as Record<string, unknown>)[String(step)]
    } else {
      return {found: false}
    }
  }
  return {found: true, value: current}
}
