/** Step lines and summaries fit the terminal's width, breaking between words, never inside one. */
import {describe, expect, it} from 'vitest'

import {LABEL_WIDTH, formatStepLine} from '../../src/output/flow-event-lines.js'
import {table, wrapWords} from '../../src/output/table.js'

const MESSAGE = 'creating a customer failed: The service answered 400 Bad Request to POST /v1/customer: The request is not valid: postal_code must be a Dutch postal code such as 1012 AB'
const URL = 'http://127.0.0.1:41471/v1/transaction/908d9f9c-9906-45eb-95ed-6c4917df4071/authorize'

/** Every word of the text is whole on some line. */
function wordsWhole(lines: string[], text: string): void {
  const words = new Set(lines.flatMap((line) => line.trim().split(/\s+/)))
  for (const word of text.split(' ')) expect(words.has(word), word).toBe(true)
}

describe('fitting the terminal', () => {
  it.each([80, 120])('a long step value at %i columns wraps under itself between words', (width) => {
    const lines = formatStepLine({tone: 'failed', label: 'customer', value: MESSAGE}, false, width).split('\n')
    expect(lines.length).toBeGreaterThan(1)
    for (const line of lines) expect(line.length).toBeLessThan(width)
    for (const line of lines.slice(1)) expect(line.startsWith(' '.repeat(2 + LABEL_WIDTH))).toBe(true)
    wordsWhole(lines, MESSAGE)
  })

  it('an address longer than the room stays whole on its own line; a pipe (no width) gets one line', () => {
    const value = `${URL}  (open it by hand)`
    const lines = formatStepLine({tone: 'info', label: 'approval page', value}, false, 80).split('\n')
    expect(lines.some((line) => line.includes(URL))).toBe(true)
    expect(formatStepLine({tone: 'info', label: 'approval page', value}, false).split('\n')).toHaveLength(1)
  })

  it.each([80, 120])('label/value tables (summaries) at %i columns', (width) => {
    const text = table([['Transaction', '908d9f9c-9906-45eb-95ed-6c4917df4071'], ['Refused', MESSAGE]], {width})
    for (const line of text.split('\n')) expect(line.length).toBeLessThan(width)
    expect(text).toContain('908d9f9c-9906-45eb-95ed-6c4917df4071')
    wordsWhole(text.split('\n').map((line) => line.replace(/^(Transaction|Refused)/, '')), MESSAGE)
  })

  it.each([
    ['a b c', 3, ['a b', 'c']],
    ['averyveryverylongword b', 5, ['averyveryverylongword', 'b']],
    ['', 5, ['']],
  ])('wrapWords(%j, %i) is %j', (text, width, lines) => {
    expect(wrapWords(text, width)).toEqual(lines)
  })
})
