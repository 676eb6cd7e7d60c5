/**
 * Long lines for people, fitted to the terminal: broken at spaces with a hanging indent, as the
 * flow's step lines are. The one rule every view that is not a table follows (errors, hints,
 * live lines, doctor, emulator verify): a word is never cut (an id or an address stays whole on a
 * line of its own), and with no width (a pipe, a file) a line stays one line.
 */
import {stripVTControlCharacters} from 'node:util'

/** The width to fit lines written to `stream` to: its columns on a terminal; undefined in a pipe. */
export function lineWidth(stream: {isTTY?: boolean; columns?: number}): number | undefined {
  if (!stream.isTTY) return undefined
  return stream.columns && stream.columns > 0 ? stream.columns : 80
}

/**
 * `text` (one line; colour codes allowed, they take no room) as lines of at most `width - 1`
 * visible characters (the last column is left free, so a terminal never wraps on its own).
 * Continuation lines start with `hang` (spaces, or a number of them). No width: `[text]`.
 */
export function wrapHanging(text: string, width: number | undefined, hang: string | number = 2): string[] {
  const indent = typeof hang === 'number' ? ' '.repeat(hang) : hang
  if (width === undefined || visibleLength(text) < width) return [text]
  const room = Math.max(1, width - 1)
  const lead = /^ */.exec(text)?.[0] ?? ''
  const lines: string[] = []
  let current = lead
  let currentLength = lead.length
  for (const word of text.slice(lead.length).split(' ')) {
    const length = visibleLength(word)
    const prefix = lines.length === 0 ? 0 : indent.length
    if (currentLength > lead.length * Number(lines.length === 0) && prefix + currentLength + 1 + length > room) {
      lines.push(current.trimEnd())
      current = word
      currentLength = length
    } else {
      const first = current === '' || (lines.length === 0 && current === lead)
      current = first ? `${current}${word}` : `${current} ${word}`
      currentLength += (first ? 0 : 1) + length
    }
  }
  lines.push(current)
  return lines.map((line, index) => (index === 0 ? line : `${indent}${line}`))
}

/** Each line of a block of text fitted as wrapHanging does, the indent of a line kept for its continuations plus `hang`. */
export function wrapBlock(text: string, width: number | undefined, hang: number = 2): string {
  if (width === undefined) return text
  return text
    .split('\n')
    .flatMap((line) => {
      const leading = /^ */.exec(line)?.[0] ?? ''
      return wrapHanging(line, width, leading + ' '.repeat(hang))
    })
    .join('\n')
}

/** The room a text takes on a terminal: colour and other control sequences take none. */
export function visibleLength(text: string): number {
  return stripVTControlCharacters(text).length
}
