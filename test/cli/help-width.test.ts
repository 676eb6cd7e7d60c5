/** Help fitted to the terminal: an example too long for a line still pastes, text breaks between words. */
import {describe, expect, it} from 'vitest'

import {fitHelpLines, helpWidth, wrapExample, wrapHelpText} from '../../src/cli/help.js'

describe('help at the terminal’s width', () => {
  it('continues a long example with a trailing backslash, never inside quotes, each line within the room', () => {
    const example = '  $ paytx customer create --first-name Jane --postal-code "1012 LG" --city Amsterdam --country-code NL'
    const lines = wrapExample(example, 40)
    expect(lines.length).toBeGreaterThan(1)
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40)
    for (const line of lines.slice(0, -1)) expect(line).toMatch(/ \\$/)
    expect(lines.slice(1).every((line) => line.startsWith('      '))).toBe(true)
    expect(lines.join('\n')).toContain('"1012 LG"')
    // Pasted into a shell, the lines are the example again.
    expect(lines.map((line) => line.replace(/ \\$/, '').trim()).join(' ')).toBe(example.trim())
  })

  it('keeps a word too long for any line whole, and a short example as it is', () => {
    expect(wrapExample('$ paytx status 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c', 20)).toEqual(['$ paytx status \\', '    9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'])
    expect(wrapExample('$ paytx flow', 40)).toEqual(['$ paytx flow'])
  })

  it('breaks text between words (oclif cut --pan-stdin in two) and fits lines under their own indent', () => {
    expect(wrapHelpText('Read the card number from stdin with --pan-stdin always', 30)).toBe('Read the card number from\nstdin with --pan-stdin always')
    expect(fitHelpLines('      Stop when the program that started it exits', 30)).toBe('      Stop when the program\n      that started it exits')
  })

  it('takes the width from OCLIF_COLUMNS, else the terminal, else 80', () => {
    expect(helpWidth({isTTY: true, columns: 60}, {OCLIF_COLUMNS: '100'})).toBe(100)
    expect(helpWidth({isTTY: true, columns: 60}, {})).toBe(60)
    expect(helpWidth({isTTY: false}, {})).toBe(80)
  })
})
