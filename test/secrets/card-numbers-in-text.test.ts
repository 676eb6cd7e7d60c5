import {describe, expect, it} from 'vitest'

import {luhnValid} from '../../src/secrets/card-number.js'
import {countDigitsFrom, DIGIT_COUNT_RESTARTS_AT, maskCardNumbers} from '../../src/secrets/card-numbers-in-text.js'
import {seededRandom} from '../helpers/seeded-random.js'

const UUID = /[\dA-Fa-f]{8}-[\dA-Fa-f]{4}-[\dA-Fa-f]{4}-[\dA-Fa-f]{4}-[\dA-Fa-f]{12}/g
const GROUP = /\d+/y
const SEPARATOR_THEN_DIGIT = /(?: |\+|-|%20)(?=\d)/y
const WORD_CHAR = /\w/

/**
 * The rule, written plainly (every span from every group tried): UUIDs stay, and the parts
 * between them are masked on their own; a run is digit groups joined by one ` `, `+`, `-` or
 * `%20`, not glued to a word at either end (a last group glued to one is not part of it); from
 * each group, every span of whole groups with 12 to 19 digits that passes the Luhn check is
 * masked, and spans that overlap are masked as one, by the last four digits of its end.
 */
function maskedByRule(text: string): string {
  let out = ''
  let partStart = 0
  for (const uuid of text.matchAll(UUID)) {
    out += maskedPart(text.slice(partStart, uuid.index)) + uuid[0]
    partStart = uuid.index + uuid[0].length
  }
  return out + maskedPart(text.slice(partStart))
}

function maskedPart(part: string): string {
  let out = ''
  let index = 0
  while (index < part.length) {
    if (!/\d/.test(part[index]) || (index > 0 && WORD_CHAR.test(part[index - 1]))) {
      out += part[index++]
      continue
    }
    const groups: {start: number; end: number}[] = []
    for (let at = index; ; ) {
      GROUP.lastIndex = at
      GROUP.exec(part)
      groups.push({start: at, end: GROUP.lastIndex})
      SEPARATOR_THEN_DIGIT.lastIndex = GROUP.lastIndex
      if (!SEPARATOR_THEN_DIGIT.exec(part)) break
      at = SEPARATOR_THEN_DIGIT.lastIndex
    }
    const runEnd = groups.at(-1)!.end
    if (runEnd < part.length && WORD_CHAR.test(part[runEnd])) groups.pop()
    if (groups.length === 0) {
      out += part.slice(index, runEnd)
      index = runEnd
      continue
    }
    const digitsOf = (first: number, last: number) => groups.slice(first, last + 1).map((group) => part.slice(group.start, group.end)).join('')
    // Every span that passes, by its first and last group, in order of their first; those that
    // share a group are merged.
    const merged: {first: number; last: number}[] = []
    for (let first = 0; first < groups.length; first++) {
      for (let last = first; last < groups.length && digitsOf(first, last).length <= 19; last++) {
        if (!luhnValid(digitsOf(first, last))) continue
        const previous = merged.at(-1)
        if (previous && first <= previous.last) previous.last = Math.max(previous.last, last)
        else merged.push({first, last})
      }
    }
    let copied = index
    for (const {first, last} of merged) {
      out += `${part.slice(copied, groups[first].start)}•••• ${digitsOf(first, last).slice(-4)}`
      copied = groups[last].end
    }
    index = groups.at(-1)!.end
    out += part.slice(copied, index)
  }
  return out
}

/** Texts of random runs of digit groups, card numbers among them, with what may end a run around them. */
function randomRuns(seed: number): () => string {
  const random = seededRandom(seed)
  const digits = (count: number) => Array.from({length: count}, () => String(random.below(10))).join('')
  const card = () => random.pick(['4024007108173153', '4024 0071 0817 3153', '4111-1111-1111-1111', '6011%200000%200000%200000%20001', '378282246310005'])
  const group = () => (random.next() < 0.1 ? card() : digits(random.next() < 0.7 ? 1 + random.below(2) : 1 + random.below(random.next() < 0.9 ? 20 : 40)))
  const joint = () => (random.next() < 0.95 ? random.pick([' ', '-', '+', '%20']) : random.pick(['  ', '.', '%2', 'a ']))
  const run = () => {
    const groups = random.next() < 0.5 ? 10 + random.below(60) : 1 + random.below(10)
    let text = group()
    for (let index = 1; index < groups; index++) text += joint() + group()
    return text
  }
  const edge = () => random.pick(['', ' ', 'a', '_', '-', 'x ', '4f1c2a10-5b1e-4f6a-8c2d-400000000002', '-9a2e7c3f-1b4d-4e8a-9c6b-2f3e4d5a6b7c'])
  return () => `${edge()}${run()}${edge()}${random.next() < 0.3 ? run() : ''}${edge()}`
}

describe('card numbers by shape, found in one pass', () => {
  it('masks a card number glued to the UUID before it, as a part of its own', () => {
    expect(maskCardNumbers('id 4f1c2a10-5b1e-4f6a-8c2d-9e0b4d0000014024007108173153.')).toBe('id 4f1c2a10-5b1e-4f6a-8c2d-9e0b4d000001•••• 3153.')
  })

  it('masks card numbers at the end of runs of digit groups longer than the Luhn rows kept (32)', () => {
    for (const text of [`${'1 '.repeat(40)}4024 0071 0817 3153`, `${'12-'.repeat(30)}4111-1111-1111-1111 ok`, `${'1+'.repeat(33)}4024007108173153`]) {
      expect(maskCardNumbers(text)).toBe(maskedByRule(text))
      expect(maskCardNumbers(text)).toContain('•••• ')
    }
  })

  it('masks every card number of a text longer than one join of pieces takes (2,048), in order', () => {
    const numbers = Array.from({length: 3_000}, (_, index) => (index % 2 === 0 ? '4024007108173153' : '4111 1111 1111 1111'))
    expect(maskCardNumbers(numbers.join(', '))).toBe(numbers.map((number) => `•••• ${number.slice(-4)}`).join(', '))
  })

  it('finds the card numbers the plain rule finds, in 3,000 random runs of digit groups', () => {
    const text = randomRuns(6)
    for (let round = 0; round < 3_000; round++) {
      const runs = text()
      expect(maskCardNumbers(runs), JSON.stringify(runs)).toBe(maskedByRule(runs))
    }
  })

  it('finds the card numbers the plain rule finds when the count of digits read in runs starts again (every 2^29 digits)', () => {
    const text = randomRuns(77)
    // Digit counts near the restart fill the Luhn sums' latest counts; after it, none may hide a card number.
    countDigitsFrom(DIGIT_COUNT_RESTARTS_AT - 5_000)
    try {
      for (let round = 0; round < 400; round++) {
        const runs = text()
        expect(maskCardNumbers(runs), `round ${round}: ${JSON.stringify(runs)}`).toBe(maskedByRule(runs))
      }
    } finally {
      countDigitsFrom(0)
    }
  })

  it('finds the card numbers the plain rule finds in runs longer than the slice read a call (256 groups), across the slices', () => {
    const random = seededRandom(41)
    const digits = (count: number) => Array.from({length: count}, () => String(random.below(10))).join('')
    const card = () => random.pick(['4024 0071 0817 3153', '4111-1111-1111-1111', '6011%200000%200000%200000%20001', '378282246310005'])
    // Now and then a group of 19 digits or more: the longest a card number holds, and longer ones, which none holds.
    const group = () => (random.next() < 0.05 ? card() : random.next() < 0.03 ? digits(19 + random.below(30)) : String(random.below(10)).repeat(1 + random.below(3)))
    for (let round = 0; round < 120; round++) {
      const groups = 250 + random.below(1_100)
      let text = group()
      for (let index = 1; index < groups; index++) text += random.pick([' ', '-', '+', '%20']) + group()
      text = `${random.pick(['', 'x ', '#'])}${text}${random.pick(['', ' y', 'z'])}`
      expect(maskCardNumbers(text), `round ${round}`).toBe(maskedByRule(text))
    }
  })

  it('shows no more than the last four digits of a card number after digits that pass the check with its first groups', () => {
    // 1006 4024 0071 passes the Luhn check: masked alone, it showed 0817 3153, 12 digits of the card number.
    expect(maskCardNumbers('paid 1006 4024 0071 0817 3153')).toBe('paid •••• 3153')
    expect(maskCardNumbers('paid 1006-4024-0071-0817-3153 ok')).toBe('paid •••• 3153 ok')
  })

  it('never shows a group of a card number but its last, whatever digit groups surround it (2,000 random runs)', () => {
    const random = seededRandom(23)
    const shortGroup = () => Array.from({length: 1 + random.below(3)}, () => String(random.below(10))).join('')
    const groups = (count: number) => Array.from({length: count}, shortGroup)
    for (let round = 0; round < 2_000; round++) {
      const card = random.pick([
        ['4024', '0071', '0817', '3153'],
        ['4111', '1111', '1111', '1111'],
        ['5555', '5555', '5555', '4444'],
        ['6011', '0000', '0000', '0004'],
      ])
      const joint = random.pick([' ', '-', '+', '%20'])
      const text = `x ${[...groups(random.below(8)), ...card, ...groups(random.below(8))].join(joint)} y`
      const masked = maskCardNumbers(text)
      expect(masked, text).toMatch(/•••• \d{4}/)
      // The groups of one to three digits around it make no group of four: a group of four shown
      // outside the masks is one of the card number's.
      const outsideMasks = masked.replaceAll('%20', ' ').replaceAll(/•••• \d{4}/g, '•')
      expect(outsideMasks, `${text} -> ${masked}`).not.toMatch(/(?<!\d)\d{4}(?!\d)/)
    }
  })

  it('finds a card number after a long stretch without digits, and none in a long text of digits glued to words', () => {
    const text = `${'{"a":'.repeat(1_000)}"4024 0071 0817 3153" ${'ab12'.repeat(1_000)}`
    expect(maskCardNumbers(text)).toBe(`${'{"a":'.repeat(1_000)}"•••• 3153" ${'ab12'.repeat(1_000)}`)
  })
})
