import {describe, expect, it} from 'vitest'

import {lineWidth, visibleLength, wrapBlock, wrapHanging} from '../../src/output/wrap.js'

describe('wrapHanging', () => {
  it('keeps a short line, and any line when there is no width', () => {
    expect(wrapHanging('Error: short', 80)).toEqual(['Error: short'])
    expect(wrapHanging('word '.repeat(40).trim(), undefined)).toEqual(['word '.repeat(40).trim()])
  })

  it.each([40, 60, 80])('breaks at spaces with a hanging indent, every line under %i columns', (width) => {
    const text = 'Hint: run `paytx status 0b1e6a57-3f0c-4b7e-9d0e-5d6f2f1c2a11 --wait` to follow the transaction until it is final, or add --no-input in scripts.'
    const lines = wrapHanging(text, width, 6)
    expect(lines.length).toBeGreaterThan(1)
    for (const line of lines) if (line.trim().includes(' ')) expect(line.length).toBeLessThan(width)
    for (const line of lines.slice(1)) expect(line.startsWith('      ') && line[6] !== ' ').toBe(true)
    expect(lines.map((line) => line.trim()).join(' ')).toBe(text)
  })

  it('never cuts a word longer than the line: it stands alone', () => {
    const id = 'x'.repeat(50)
    expect(wrapHanging(`id ${id} end`, 40)).toEqual(['id', `  ${id}`, '  end'])
  })

  it('gives colour codes no room', () => {
    const red = `\u001B[31m${'a'.repeat(30)}\u001B[39m`
    expect(wrapHanging(`${red} ${red}`, 80)).toEqual([`${red} ${red}`])
    expect(visibleLength(red)).toBe(30)
  })
})

describe('wrapBlock and lineWidth', () => {
  it('wraps each line under its own indent', () => {
    expect(wrapBlock('  one two three four', 12, 2)).toBe('  one two\n    three\n    four')
  })

  it('knows a width only on a terminal', () => {
    expect(lineWidth({isTTY: false, columns: 80})).toBeUndefined()
    expect(lineWidth({isTTY: true, columns: 60})).toBe(60)
    expect(lineWidth({isTTY: true})).toBe(80)
  })
})
