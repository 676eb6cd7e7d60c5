import {describe, expect, it} from 'vitest'

import {visibleLines, visibleText, visibleTextCut} from '../../src/terminal/visible-text.js'

/** What no text from outside may carry to a terminal once made visible. */
const ACTING = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

describe('visibleText', () => {
  it.each([
    ['CSI screen erase', 'a\u001b[2Jb', 'a\\x1b[2Jb'],
    ['OSC 52 clipboard write', '\u001b]52;c;cm0gLXJmIH4=\u0007', '\\x1b]52;c;cm0gLXJmIH4=\\x07'],
    ['C1 CSI and NEL', 'x\u009b31m\u0085y', 'x\\x9b31m\\x85y'],
    ['a line break', 'SETTLED\nError: forged', 'SETTLED\\nError: forged'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['right-to-left override', 'invoice\u202Efdp.exe', 'invoice\\u202efdp.exe'],
    ['isolates', '\u2066a\u2067b\u2068c\u2069', '\\u2066a\\u2067b\\u2068c\\u2069'],
    ['direction marks (LRM, RLM, ALM)', 'a\u200eb\u200fc\u061cd', 'a\\u200eb\\u200fc\\u061cd'],
  ])('%s is shown as escapes', (_, text, shown) => {
    expect(visibleText(text)).toBe(shown)
    expect(visibleText(text)).not.toMatch(ACTING)
  })

  it('leaves other text alone: accents, emoji, the marks paytx draws', () => {
    expect(visibleText('Zoë 💳 ✔ → … •••• 4242')).toBe('Zoë 💳 ✔ → … •••• 4242')
  })

  it('visibleLines keeps line breaks of paytx’s own blocks and escapes every other control', () => {
    expect(visibleLines('one\ntwo\u202e\u200f\r')).toBe('one\ntwo\\u202e\\u200f\\r')
  })
})

describe('visibleTextCut', () => {
  it('makes the text visible before cutting, and never cuts inside an escape', () => {
    const osc = `ok \u001b]0;${'t'.repeat(50)}\u0007 done`
    for (let max = 1; max <= 70; max++) {
      const shown = visibleTextCut(osc, max)
      expect(shown.length).toBeLessThanOrEqual(max)
      expect(shown).not.toMatch(ACTING)
      // A cut leaves an escape's spelling whole or drops it: never `\x1` or `\`.
      expect(shown.replace(/…$/, '')).not.toMatch(/\\(x[0-9a-f]?)?$/)
    }
    expect(visibleTextCut(osc, 10)).toBe('ok \\x1b]0…')
    expect(visibleTextCut(osc, 6)).toBe('ok …')
  })

  it('keeps text that fits whole, and cuts between characters, not inside a surrogate pair', () => {
    expect(visibleTextCut('SETTLED', 7)).toBe('SETTLED')
    expect(visibleTextCut('ab💳cd', 4)).toBe('ab…')
    expect(visibleTextCut('x'.repeat(1_000_000), 5)).toBe('xxxx…')
  })
})
