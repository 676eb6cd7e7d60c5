import {describe, expect, it} from 'vitest'

import {firstDigit, maskCardNumbers, noteCardNumbers} from '../../src/secrets/card-numbers-in-text.js'
import {EditedText} from '../../src/secrets/edited-text.js'
import {MaskedText} from '../../src/secrets/masked-text.js'
import {seededRandom} from '../helpers/seeded-random.js'

/**
 * A text read through its card numbers must read as the text the card number net makes: every
 * piece of it, every position moved between the two, and every replacement made in it.
 */
describe('a text read with its card numbers masked', () => {
  const random = seededRandom(25)
  const cards = ['4024007108173153', '4024 0071 0817 3153', '4024%200071%200817%203153', '1006 4024 0071 0817 3153', '5555-5555-5555-4444']
  const texts = Array.from({length: 300}, () =>
    Array.from({length: 1 + random.below(8)}, () => (random.next() < 0.4 ? random.pick(cards) : random.pick(['a', ' ', 'pan=', '"', '12', 'x'.repeat(random.below(40))]))).join(''),
  )

  /** The text read through its card numbers, and the text the card number net makes of it. */
  function read(text: string) {
    const edited = new EditedText().begin(text)
    const noted = noteCardNumbers(text, firstDigit(text))
    const maskedText = new MaskedText().begin(edited, noted)
    const spans = Array.from({length: noted.noted}, (_, card) => [noted.notedStarts[card], noted.notedEnds[card]] as const)
    return {edited, maskedText, spans, masked: maskCardNumbers(text), shift: maskCardNumbers(text).length - text.length}
  }

  it('is, piece by piece, the text with its card numbers masked, read from before or after all of them', () => {
    let pieces = 0
    for (const text of texts) {
      const {maskedText, masked, shift} = read(text)
      for (let round = 0; round < 20; round++) {
        const start = random.below(masked.length + 1)
        const end = start + random.below(masked.length - start + 20)
        expect(maskedText.slice(start, end, 0, 0), JSON.stringify({text, start, end})).toBe(masked.slice(start, end))
        expect(maskedText.slice(start, end, maskedText.count, shift), JSON.stringify({text, start, end})).toBe(masked.slice(start, end))
        pieces++
      }
    }
    expect(pieces).toBe(6_000)
  })

  it('moves a position outside card numbers to where the same text is, and back; one in a mask to its card number’s end', () => {
    let moved = 0
    for (const text of texts) {
      const {maskedText, masked, spans, shift} = read(text)
      // `span`: the first card number that ends after `at`.
      for (let at = 0, span = 0; at <= text.length; at++) {
        while (span < spans.length && spans[span][1] <= at) span++
        if (span < spans.length && at > spans[span][0]) continue
        const next = span < spans.length ? spans[span][0] : text.length
        const position = maskedText.maskedPosition(at, maskedText.count, shift)
        expect(masked.slice(position, position + next - at)).toBe(text.slice(at, next))
        expect(maskedText.textPosition(position, 0, 0)).toBe(at)
        moved++
      }
      for (const [card, [, end]] of spans.entries()) {
        const maskEnd = maskedText.maskedPosition(end, maskedText.count, shift)
        const maskStart = maskEnd - maskedText.masks[card].length
        for (let at = maskStart + 1; at < maskEnd; at++) expect(maskedText.textPosition(at, 0, 0)).toBe(end)
      }
    }
    expect(moved).toBeGreaterThan(3_000)
  })

  it('writes its masks, and a replacement of any span of it, over or into masks, as made in the masked text', () => {
    for (const text of texts) {
      const {edited, maskedText, masked} = read(text)
      maskedText.writeBefore(maskedText.count)
      expect(edited.finish()).toBe(masked)
      for (let round = 0; round < 5; round++) {
        const again = read(text)
        const start = random.below(masked.length)
        const end = start + 1 + random.below(Math.min(30, masked.length - start))
        again.maskedText.replace(start, end, '<X>')
        again.maskedText.writeBefore(again.maskedText.count)
        expect(again.edited.finish(), JSON.stringify({text, start, end})).toBe(`${masked.slice(0, start)}<X>${masked.slice(end)}`)
      }
    }
  })
})
