/**
 * What HTTP/1.1 lets a header value carry (RFC 9110 5.5): visible ASCII, spaces and tabs, and
 * bytes 0x80-0xFF. Node refuses anything else when the request is built (ERR_INVALID_CHAR), which
 * without this check reads as a connection that failed, three times.
 */
const FORBIDDEN_IN_VALUE = /[^\t\x20-\x7E\x80-\xFF]/u

/** Which character of the value a header cannot carry and where, without showing the value (it may be a key). */
export function headerValueProblem(value: string): string | undefined {
  const found = FORBIDDEN_IN_VALUE.exec(value)
  if (!found) return undefined
  const code = found[0].codePointAt(0)!
  const name = code === 0x7f ? 'DEL' : code < 0x20 ? 'a control character' : 'a character outside Latin-1'
  return `holds ${name} (U+${code.toString(16).toUpperCase().padStart(4, '0')}) at position ${found.index + 1}, which an HTTP header cannot carry`
}
