/**
 * How deep JSON text nests, found by one scan of the text: no parse, no recursion. A body from
 * outside nested deeper than any real message is refused before anything walks it, so that no
 * later step (saving, printing, colouring, schema checks) can run out of stack on it.
 */

/** Far deeper than any webhook or service answer, far shallower than any stack limit. */
export const MAX_JSON_NESTING = 100

export function jsonNestingDepth(text: string): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index)
    if (inString) {
      if (char === 0x5c) index++ // backslash: the next character is escaped
      else if (char === 0x22) inString = false
    } else if (char === 0x22) {
      inString = true
    } else if (char === 0x7b || char === 0x5b) {
      depth++
      if (depth > deepest) deepest = depth
    } else if (char === 0x7d || char === 0x5d) {
      depth--
    }
  }
  return deepest
}
