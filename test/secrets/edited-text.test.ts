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

  describe('dense with replacements (fewer than 32 characters apart over 256 of them), built in code units', () => {
    /** `count` random edits of `text`, from `from` on, `gap` characters apart at most, now and then `longGap`. */
    function randomEdits(random: ReturnType<typeof seededRandom>, text: string, count: number, gap: number, from = 0, longGap = 0): [number, number, string][] {
      const edits: [number, number, string][] = []
      for (let at = from; edits.length < count; ) {
        const start = at + random.below(gap + 1) + (longGap > 0 && random.below(20) === 0 ? longGap : 0)
        const end = Math.min(text.length, start + random.below(20))
        if (start > text.length) break
        edits.push([start, end, random.pick(['', '***', '•••• 3153', '\u{1F600}', 'é'.repeat(100)])])
        at = end
      }
      return edits
    }

    const texts = (random: ReturnType<typeof seededRandom>, length: number) => Array.from({length}, () => random.pick(['a', '4', ' ', '•', 'é', '\u{1F600}', '\ud800'])).join('')

    it('is the text with its replacements, however far apart now and then, in 200 random texts', () => {
      const random = seededRandom(29)
      const edited = new EditedText()
      let built = 0
      for (let round = 0; round < 200; round++) {
        const text = texts(random, random.pick([6_000, 30_000, 120_000]))
        const edits = randomEdits(random, text, random.pick([256, 257, 511, 2_000]), random.pick([4, 12, 24]), 0, random.pick([0, 65, 1_000]))
        edited.begin(text)
        for (const [start, end, replacement] of edits) edited.replace(start, end, replacement)
        if (edited.unitsBuilt) built++
        expect(edited.finish()).toBe(editedPlainly(text, edits))
      }
      expect(built).toBeGreaterThan(100)
    })

    it('turns to code units at the first dense part, after sparse ones', () => {
      const random = seededRandom(31)
      const edited = new EditedText()
      const text = texts(random, 200_000)
      const sparse = randomEdits(random, text, 600, 200)
      const edits = [...sparse, ...randomEdits(random, text, 600, 10, sparse.at(-1)![1])]
      edited.begin(text)
      for (const [index, [start, end, replacement]] of edits.entries()) {
        edited.replace(start, end, replacement)
        // Closed every 256 replacements: the first two parts are sparse, the third half so, the fourth dense.
        if (index === 767) expect(edited.unitsBuilt).toBe(false)
      }
      expect(edited.unitsBuilt).toBe(true)
      expect(edited.finish()).toBe(editedPlainly(text, edits))
    })

    it('is left to + when its replacements are 40 characters apart', () => {
      const edited = new EditedText()
      const text = 'x'.repeat(80_000)
      edited.begin(text)
      for (let at = 0; at < text.length; at += 40) edited.replace(at, at + 1, '*')
      expect(edited.unitsBuilt).toBe(false)
      expect(edited.finish()).toBe('*'.concat('x'.repeat(39)).repeat(2_000))
    })

    it('is begun afresh after a text built in code units was cut short, and after one finished', () => {
      const edited = new EditedText()
      edited.begin('4'.repeat(10_000))
      for (let at = 0; at < 600; at++) edited.replace(at * 2, at * 2 + 1, 'x')
      expect(edited.unitsBuilt).toBe(true)
      edited.begin('cvv=123')
      expect(edited.unitsBuilt).toBe(false)
      edited.replace(4, 7, '***')
      expect(edited.finish()).toBe('cvv=***')
      edited.begin('pan=4024007108173153&'.repeat(400))
      for (let at = 0; at < 400; at++) edited.replace(at * 21 + 4, at * 21 + 20, '•••• 3153')
      expect(edited.finish()).toBe('pan=•••• 3153&'.repeat(400))
      edited.begin('cvv=123&'.repeat(300))
      for (let at = 0; at < 300; at++) edited.replace(at * 8 + 4, at * 8 + 7, '***')
      expect(edited.finish()).toBe('cvv=***&'.repeat(300))
    })

    it("keeps none of the text's own code units once it is finished, or once the next is begun after one cut short", () => {
      const edited = new EditedText()
      // The room it keeps for the text's own units is private: read here for what it holds.
      const source = () => (edited as unknown as {source: {units: Uint16Array}}).source.units
      const form = 'pan=4024007108173153&cvv=123&'.repeat(400)
      const maskForm = () => {
        edited.begin(form)
        for (let at = 0; at < 400; at++) {
          edited.replace(at * 29 + 4, at * 29 + 20, '•••• 3153')
          edited.replace(at * 29 + 25, at * 29 + 28, '***')
        }
        expect(edited.unitsBuilt).toBe(true)
        expect(source().length).toBeGreaterThanOrEqual(form.length)
        expect(source().some((unit) => unit !== 0)).toBe(true)
      }
      maskForm()
      expect(edited.finish()).toBe('pan=•••• 3153&cvv=***&'.repeat(400))
      expect(source().every((unit) => unit === 0)).toBe(true)
      maskForm()
      edited.begin('cvv=123')
      expect(source().every((unit) => unit === 0)).toBe(true)
    })

    /** Edits a text of `length` digits with one bullet every 16 characters, over `spanned` of them, in code units. */
    const bulletsEvery16 = (edited: EditedText, length: number, spanned: number) => {
      edited.begin('4'.repeat(length))
      for (let at = 0; at < length; at += 16) edited.replace(at, at + spanned, '•')
      expect(edited.unitsBuilt).toBe(true)
      return edited.finish()
    }

    it('keeps the room of a large text while such texts come now and then, and gives it back after 32 small ones in a row', () => {
      const edited = new EditedText()
      const dense = (length: number) => bulletsEvery16(edited, length, 1)
      expect(dense(2_000_000)).toBe('•'.concat('4'.repeat(15)).repeat(125_000))
      const room = edited.unitsRoom
      expect(room).toBeGreaterThanOrEqual(2_000_000)
      for (let round = 0; round < 3; round++) {
        for (let small = 0; small < 31; small++) dense(8_000)
        expect(edited.unitsRoom).toBe(room)
        dense(1_500_000)
      }
      // The 32nd small text's room is counted when the next is begun.
      for (let small = 0; small < 32; small++) dense(8_000)
      expect(edited.unitsRoom).toBe(room)
      expect(dense(8_000)).toBe('•'.concat('4'.repeat(15)).repeat(500))
      expect(edited.unitsRoom).toBeLessThan(room)
    })

    it('gives back the room of a large text whose edited text is much shorter (its own units kept the room)', () => {
      const edited = new EditedText()
      const shrunk = (length: number) => bulletsEvery16(edited, length, 16)
      expect(shrunk(2_000_000)).toBe('•'.repeat(125_000))
      const room = edited.unitsRoom
      expect(room).toBeGreaterThanOrEqual(2_000_000)
      for (let small = 0; small < 32; small++) shrunk(8_000)
      expect(edited.unitsRoom).toBe(room)
      shrunk(8_000)
      expect(edited.unitsRoom).toBeLessThan(room)
    })
  })
})
