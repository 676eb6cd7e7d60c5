import {describe, expect, it} from 'vitest'

import {maskCardNumbers} from '../../src/secrets/card-numbers-in-text.js'
import {maskCardFieldsInText} from '../../src/secrets/fields-in-text.js'
import {redactText} from '../../src/secrets/redact.js'
import {fieldKind, redactString} from '../../src/secrets/secret-fields.js'
import {seededRandom} from '../helpers/seeded-random.js'

/**
 * Which fields are found, as a pattern: what the scanner replaced (a function called per match
 * cost 72,000 calls for a megabyte of form fields), kept here as the statement of what it finds.
 */
// After the separator, blanks but no line break; a bare value is its longest run of characters
// (the lookahead and back-reference take it whole) and does not end in `:`.
const FIELD_IN_TEXT = /(?<![\w.[\]-])(["']?)([A-Za-z][\w.[\]-]{0,63})\1(\s{0,8}[:=][^\S\n\r\u2028\u2029]{0,8})(?:"([^"\n]{0,256})"|'([^'\n]{0,256})'|(?=([^\s"'&,;<>{}()]{1,256}))\6(?<!:))/g
const FIELD_IN_XML = /<([A-Za-z][\w.-]{0,63})>([^<]{0,256})<\/\1>/g

const cardFieldKind = (name: string) => (fieldKind(name) === 'key' ? undefined : fieldKind(name))

function maskedByPattern(text: string): string {
  return text
    .replace(FIELD_IN_TEXT, (match, _quote: string, name: string, _separator: string, doubleQuoted?: string, singleQuoted?: string, bare?: string) => {
      const kind = cardFieldKind(name)
      if (kind === undefined) return match
      const value = doubleQuoted ?? singleQuoted ?? bare!
      const closing = doubleQuoted !== undefined || singleQuoted !== undefined ? 1 : 0
      return `${match.slice(0, match.length - value.length - closing)}${redactString(kind, value)}${match.slice(match.length - closing)}`
    })
    .replace(FIELD_IN_XML, (match, name: string, value: string) => {
      const kind = cardFieldKind(name)
      return kind === undefined ? match : `<${name}>${redactString(kind, value)}</${name}>`
    })
}

describe('card fields in text', () => {
  it.each([
    ['a form', 'pan=4024007108173154&cvv=123&amount=1499', 'pan=•••• 3154&cvv=***&amount=1499'],
    ['names in any case or spelling', 'CVV=123 Cvv2: 456 Card-Number=4111111111111112 SECURITY_CODE = 789', 'CVV=*** Cvv2: *** Card-Number=•••• 1112 SECURITY_CODE = ***'],
    ['JSON', '{"card_number": "4024 0071 0817 3154", "cvc":"1234", "note": "ok"}', '{"card_number": "•••• 3154", "cvc":"***", "note": "ok"}'],
    ['single-quoted names and values', "{'cvv': '321', 'pan' : '4024007108173154'}", "{'cvv': '***', 'pan' : '•••• 3154'}"],
    ['YAML lines', 'number: 4024007108173154\ncvv: 987\nnote: ok\n', 'number: •••• 3154\ncvv: ***\nnote: ok\n'],
    ['nested YAML (a name with nothing after it on its line)', 'card:\n  number: 4000000000000003\n  cvv: 123\n', 'card:\n  number: •••• 0003\n  cvv: ***\n'],
    ['YAML in Windows lines', 'payment:\r\n  pan: 4000000000000003\r\n', 'payment:\r\n  pan: •••• 0003\r\n'],
    ['a name after a name', 'note: pan: 4000000000000003', 'note: pan: •••• 0003'],
    ['blanks of any kind around the separator', 'cvv\u00a0=\u2003123 and\tcvc\t:\t456', 'cvv\u00a0=\u2003*** and\tcvc\t:\t***'],
    ['bracketed and dotted names', 'card[cvc]=4321&body.card_number=4024007108173154', 'card[cvc]=***&body.card_number=•••• 3154'],
    ['XML', '<card><pan>4024007108173154</pan><cvv>123</cvv></card>', '<card><pan>•••• 3154</pan><cvv>***</cvv></card>'],
  ])('masks the values of card fields in %s', (_label, text, masked) => {
    expect(redactText(text)).toBe(masked)
  })

  it('leaves a card field already masked, and fields that hold no card data, as they are', () => {
    const text = 'pan=•••• 3153 cvv: *** status=ok api_key=sk_l…XcR7 card_cvv: must be 3 or 4 digits'
    expect(redactText(text)).toBe(text)
  })

  it('masks every field of a form longer than one join of pieces takes (2,048), in order', () => {
    const form = 'pan=4024007108173153&cvv=123&'.repeat(5_000)
    expect(redactText(form)).toBe('pan=•••• 3153&cvv=***&'.repeat(5_000))
  })

  // The bounds (names of 64 characters, 8 blanks, values of 256) and what ends a name or a value
  // are where a scanner and the pattern could part: random text is built around them.
  it('finds the fields the pattern finds, in 4,000 random texts built around its bounds', () => {
    const random = seededRandom(21)
    const names = ['cvv', 'CVV2', 'pan', 'card_number', 'Card-Number', 'card[cvc]', 'a.b.cvv', 'number', 'note', 'x', '_cvv', '1cvv', 'api_key']
    const near = (bound: number) => Math.max(0, bound - 2 + random.below(5))
    const repeat = (count: number, make: () => string) => Array.from({length: count}, make).join('')
    const name = () => (random.next() < 0.6 ? random.pick(names) : `${random.pick(['c', 'p', '_', '1'])}${repeat(random.next() < 0.5 ? near(60) : random.below(6), () => random.pick([...'abXZ09_.[]-']))}cvv`)
    const blanks = () => repeat(random.next() < 0.3 ? near(8) : random.below(3), () => random.pick([' ', ' ', '\t', '\n', '\u00a0', '\u2028', '\u200b']))
    const valueBody = () => (random.next() < 0.3 ? repeat(near(256), () => random.pick(['1', '1', 'a', '='])) : repeat(random.below(6), () => random.pick(['12', '3', ' ', 'a', '=', ':', '"', "'", '\n', '&', '-', '4024007108173153'])))
    const value = () => {
      const quote = random.pick(['', '', '"', "'"])
      return `${quote}${valueBody()}${random.next() < 0.8 ? quote : ''}`
    }
    const field = () => {
      const quote = random.pick(['', '', '"', "'"])
      const closing = random.next() < 0.85 ? quote : random.pick(['', '"', "'"])
      return `${random.pick(['', ' ', '&', '"', 'x', '{', ',', '\n', '.'])}${quote}${name()}${closing}${blanks()}${random.pick([':', '=', ' '])}${blanks()}${value()}`
    }
    for (let round = 0; round < 4_000; round++) {
      const text = maskCardNumbers(repeat(1 + random.below(6), field))
      expect(maskCardFieldsInText(text), JSON.stringify(text)).toBe(maskedByPattern(text))
    }
  })

  // redactText reads the fields of a text through the card numbers found in it, without the text
  // with those masked being made: it must find what the pattern finds in that text. Card numbers
  // are put where a field is read: as values (bare, quoted, more than one, cut at 256), glued to
  // names, before separators, around quotes and line breaks.
  it('finds in a text the fields the pattern finds once its card numbers are masked, in 4,000 random texts and 30 long ones', () => {
    const random = seededRandom(24)
    const cards = ['4024007108173153', '4024 0071 0817 3153', '4024-0071-0817-3153', '4024+0071+0817+3153', '4024%200071%200817%203153', '5555 5555 5555 4444', '1006 4024 0071 0817 3153', '4024007108173153 4111111111111111']
    const repeat = (count: number, make: () => string) => Array.from({length: count}, make).join('')
    const pieces = [
      () => random.pick(['pan=', 'cvv=', 'note=', '"pan":"', '"note": "', "'cvv': '", 'card_number: ', 'x-', 'a', '"', "'", '=', ':', ' ', '\n', '&', '{', '<pan>', '</pan>', '123', '12', '123456', '-', '•', 'cvv-', 'pan=123456-', 'cvv=12-', '"pan":"12 ']),
      () => random.pick(cards),
      () => `${random.pick(cards)}${random.pick(['', ' ', '"', "'", '=', ':', ' 123', 'abc', '\n'])}`,
      () => repeat(250 + random.below(8), () => random.pick(['y', '1', ' '])),
    ]
    for (let round = 0; round < 4_000; round++) {
      const text = repeat(1 + random.below(12), () => random.pick(pieces)())
      expect(redactText(text), JSON.stringify(text)).toBe(maskedByPattern(maskCardNumbers(text)))
    }
    // Texts with more separators than the scan tries a call (256), card numbers across the slices.
    for (let round = 0; round < 30; round++) {
      const text = repeat(2_000 + random.below(4_000), () => random.pick(pieces.slice(0, 3))())
      expect(text.match(/[:=]/g)!.length).toBeGreaterThan(256)
      expect(redactText(text), `long text ${round}`).toBe(maskedByPattern(maskCardNumbers(text)))
    }
  })
})
