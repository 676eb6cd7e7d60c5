import {describe, expect, it} from 'vitest'

import {EditedText} from '../../src/secrets/edited-text.js'
import {seededRandom} from '../helpers/seeded-random.js'

/** The same edits, made the plain way: the text between them cut out and joined. */
function editedPlainly(text: string, edits: readonly (readonly [number, number, string])[]): string {
  let copied = 0
  let out = ''
  for (const [start, end, replacement] of edits) {
    out += text.slice(copied, start) + replacement
    copied = end
  }
  return out + text.slice(copied)
}

describe('an edited text', () => {
  // Its parts close every 256 replacements, and a text of 4,096 characters or more with fewer is
  // copied out: random edits are made around both.
  it('is the text with its replacements, in 500 random texts around the sizes where it changes how it builds them', () => {
    const random = seededRandom(23)
    const edited = new EditedText()
    for (let round = 0; round < 500; round++) {
      const length = random.pick([0, 1, 40, 4_095, 4_096, 4_097, 20_000])
      const text = Array.from({length}, () => random.pick(['a', '4', ' ', '•'])).join('')
      const count = Math.min(length, random.pick([0, 1, 255, 256, 257, 513]))
      const edits: [number, number, string][] = []
      for (let at = 0; edits.length < count && at < length; ) {
        const start = at + random.below(Math.max(1, Math.floor((length - at) / (count - edits.length + 1))))
        if (start >= length) break
        const end = Math.min(length, start + 1 + random.below(4))
        edits.push([start, end, random.pick(['', '***', '•••• 3153'])])
        at = end
      }
      edited.begin(text)
      for (const [start, end, replacement] of edits) edited.replace(start, end, replacement)
      expect(edited.finish()).toBe(editedPlainly(text, edits))
    }
  })

  it('starts empty after a redaction cut short', () => {
    const edited = new EditedText()
    edited.begin('4'.repeat(400))
    for (let at = 0; at < 300; at++) edited.replace(at, at + 1, 'x')
    edited.begin('cvv=123')
    edited.replace(4, 7, '***')
    expect(edited.finish()).toBe('cvv=***')
  })

  it('begun noting, notes its replacements in order and makes none; begun again, its notes start afresh', () => {
    const edited = new EditedText()
    edited.begin('pan=4024007108173153&cvv=123', true)
    edited.replace(4, 20, '•••• 3153')
    edited.replace(25, 28, '***')
    expect(edited.noted).toBe(2)
    expect([edited.notedStarts.slice(0, 2), edited.notedEnds.slice(0, 2), edited.notedReplacements.slice(0, 2)]).toEqual([[4, 25], [20, 28], ['•••• 3153', '***']])
    expect(edited.finish()).toBe('pan=4024007108173153&cvv=123')
    edited.begin('cvv=123')
    expect(edited.noted).toBe(0)
    edited.replace(4, 7, '***')
    expect(edited.noted).toBe(0)
    expect(edited.finish()).toBe('cvv=***')
  })

  it('keeps the room of many notes while texts that large come now and then, and gives it back after 32 small ones in a row', () => {
    const edited = new EditedText()
    const noteCards = (count: number) => {
      edited.begin('4'.repeat(count * 2), true)
      for (let card = 0; card < count; card++) edited.replace(card * 2, card * 2 + 1, '•')
    }
    noteCards(100_000)
    for (let round = 0; round < 10; round++) {
      for (let small = 0; small < 31; small++) noteCards(10)
      expect(edited.notedStarts.length).toBe(100_000)
      noteCards(50_000)
    }
    // The 32nd small text's notes are counted when the next is begun.
    for (let small = 0; small < 32; small++) noteCards(10)
    expect(edited.notedStarts.length).toBe(100_000)
    noteCards(10)
    expect(edited.notedStarts.length).toBeLessThan(100)
    expect([edited.noted, edited.notedStarts.slice(0, 3)]).toEqual([10, [0, 2, 4]])
  })
})

