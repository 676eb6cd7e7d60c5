/**
 * Text from outside (service answers, webhooks, save files, redirect parameters, tunnels,
 * proxies, scenario files) made safe for a terminal: control characters are shown as escapes
 * (`\x1b`, `\n`, `\u202e`) instead of acting, so a value cannot clear the screen, write the
 * clipboard, retitle the window, turn the text around it backwards, or draw a line of its own.
 * Only human output goes through here; --json and `paytx api`'s body keep exact values (JSON
 * escapes them itself).
 */

/**
 * C0 controls, DEL, C1 controls, the Unicode line and paragraph separators, and the marks that
 * change the direction text is drawn in (embeddings and overrides, isolates, LRM/RLM, ALM).
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
const CONTROL_EXCEPT_LINE_BREAKS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
const ONE_CONTROL = /^[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]$/

const NAMED: Record<string, string> = {'\n': '\\n', '\r': '\\r', '\t': '\\t'}

const ELLIPSIS = '…'

function escape(char: string): string {
  const named = NAMED[char]
  if (named) return named
  const code = char.charCodeAt(0)
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/** One value from outside, kept on one line: every control character shown as an escape. */
export function visibleText(text: string): string {
  return text.replace(CONTROL, escape)
}

/**
 * One value from outside in at most `max` characters (… included when cut). The value is made
 * visible first and cut after, between whole characters and whole escapes: a cut never leaves
 * half of an escape sequence to act, nor half of an escape's spelling, nor half of a surrogate pair.
 */
export function visibleTextCut(text: string, max: number): string {
  const room = Math.max(0, max - ELLIPSIS.length)
  let shown = ''
  let cutAt: number | undefined
  for (const char of text) {
    const piece = ONE_CONTROL.test(char) ? escape(char) : char
    if (cutAt === undefined && shown.length + piece.length > room) cutAt = shown.length
    if (shown.length + piece.length > max) return `${shown.slice(0, cutAt)}${ELLIPSIS}`
    shown += piece
  }
  return shown
}

/**
 * The last net for whole blocks paytx writes (messages, tables): line breaks stay, every other
 * control character is shown as an escape. paytx's own output holds no other control characters.
 * A value from outside inside such a block passes `visibleText` first, or a line break in it
 * would still draw a line of its own.
 */
export function visibleLines(text: string): string {
  return text.replace(CONTROL_EXCEPT_LINE_BREAKS, escape)
}
