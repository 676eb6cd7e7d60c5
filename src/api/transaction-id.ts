/**
 * What can be a transaction id in a URL, and how an id is shown in messages. The service promises
 * only that an id is a non-empty string (api-notes), so the shape is lenient: anything that can
 * stand alone as one path segment.
 */
/** Longer than any id a service hands out (UUIDs are 36, Mongo-style ids 24). */
export const MAX_ID_LENGTH = 200


/** Why a (trimmed) value cannot be a transaction id, or undefined when it can. */
export function idShapeProblem(id: string): string | undefined {
  if (id === '') return 'it is empty'
  // URLs resolve these as steps between folders: /v1/transaction/.. would ask for /v1/.
  if (id === '.' || id === '..') return `it is "${id}", which a URL reads as a step between folders, not as an id`
  if (id.length > MAX_ID_LENGTH) return `it is longer than ${MAX_ID_LENGTH} characters`
  if (/\s/u.test(id)) return 'it contains whitespace (one id per line)'
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001F\u007F]/u.test(id)) return 'it contains a control character'
  const reserved = /[/?#\\]/u.exec(id)
  if (reserved) return `it contains "${reserved[0]}", which cannot be part of an id in the URL`
  return undefined
}

/** Ids echoed in messages longer than this are cut: a 10 MB line is reported, not printed back. */
const SHOWN_ID_LENGTH = 60

/**
 * An id as messages show it: cut to its first characters (with its full length) when long, and
 * with control characters escaped, so a junk line can neither flood nor drive the terminal.
 */
export function shownId(id: string): string {
  const cut = id.length > SHOWN_ID_LENGTH ? `${id.slice(0, SHOWN_ID_LENGTH - 20)}… (${id.length} characters)` : id
  // eslint-disable-next-line no-control-regex
  return cut.replaceAll(/[\u0000-\u001F\u007F]/gu, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
