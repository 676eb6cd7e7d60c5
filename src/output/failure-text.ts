/**
 * An error as lines on stderr: `Error: ...`, its detail lines, `Hint: ...`, each fitted to the
 * terminal's width by wrap.ts's one rule (broken at spaces, a word never cut, the continuation
 * lines indented under the text); a command in backticks stays on one line, to be pasted whole.
 * In a pipe (no width) every line stays whole, for grep and logs.
 */
import {wrapHanging} from './wrap.js'

/**
 * How far the continuation lines of `line` are indented: under the text after a label
 * (`Error: `, `Hint: `, `Warning: `), under the description of a flag list line
 * (`  --amount   Amount in ...`), else two more than the line's own indent.
 */
export function hangOf(line: string): number {
  const label = /^(?:Error|Hint|Warning): /.exec(line)
  if (label) return label[0].length
  const listed = /^ +(?:--[\w-]+|[A-Z][A-Z0-9_]*) {2,}/.exec(line)
  if (listed) return listed[0].length
  return (/^ */.exec(line)?.[0].length ?? 0) + 2
}

// A command in backticks is kept on one line, so it can be copied and pasted whole: its spaces are
// held as this character (one the visible text never has: it is a control) while lines are broken.
const HELD_SPACE = '\u0000'

/** Every line of a failure's text (already made visible) fitted to `width`; undefined keeps each line whole. */
export function wrapFailureText(text: string, width: number | undefined): string {
  if (width === undefined) return text
  return text
    .split('\n')
    .flatMap((line) => wrapHanging(line.replace(/`[^`]*`/g, (quoted) => quoted.replaceAll(' ', HELD_SPACE)), width, hangOf(line)))
    .map((line) => line.replaceAll(HELD_SPACE, ' '))
    .join('\n')
}
