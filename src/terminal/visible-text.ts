/**
 * Text from outside (service answers, webhooks, redirect parameters, scenario files) made safe
 * for a terminal: control characters are shown as escapes (`\x1b`, `\n`, `\u202e`) instead of
 * acting, so a value cannot clear the screen, retitle the window, or draw a line of its own.
 * Only human output goes through here; --json keeps exact values (JSON escapes them itself).
 */

/** C0 controls, DEL, C1 controls, and the Unicode line separators and direction overrides. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
const CONTROL_EXCEPT_LINE_BREAKS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g

const NAMED: Record<string, string> = {'\n': '\\n', '\r': '\\r', '\t': '\\t'}

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
 * The last net for whole blocks paytx writes (messages, tables): line breaks stay, every other
 * control character is shown as an escape. paytx's own output holds no other control characters.
 */
export function visibleLines(text: string): string {
  return text.replace(CONTROL_EXCEPT_LINE_BREAKS, escape)
}
