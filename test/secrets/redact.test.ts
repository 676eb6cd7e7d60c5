import {describe, expect, it} from 'vitest'

import {maskBodyInPlace, maskCardNumbers, redactedJson, redactKey, redactText, scrubSecrets} from '../../src/secrets/redact.js'
import {seededRandom} from '../helpers/seeded-random.js'

describe('redaction', () => {
  it('shows keys as first four … last four, short keys not at all', () => {
    expect(redactKey('sk_live_51Hx9TqLkd83JfPq02nVbXcR7')).toBe('sk_l…XcR7')
    expect(redactKey('short')).toBe('****')
  })

  it('scrubs keys, PANs and CVVs from free text; a CVV only as a number of its own', () => {
    const text = 'key sk_live_51Hx9TqLkd83JfPq02nVbXcR7 card 4024007108173153 cvv 937 port 49371 amount 9370'
    expect(scrubSecrets(text, ['sk_live_51Hx9TqLkd83JfPq02nVbXcR7', '4024007108173153', '937'])).toBe(
      'key sk_l…XcR7 card •••• 3153 cvv *** port 49371 amount 9370',
    )
  })

  it.each([
    ['cvv 7391 expiry 12/30', 'cvv *** expiry 12/30'],
    ['card 4111111111111111 CVV2 is 123.', 'card •••• 1111 CVV2 is ***.'],
    ['bad security code: 1234 for order 55501', 'bad security code: *** for order 55501'],
    ['csc=999 cvc  0421', 'csc=*** cvc  ***'],
  ])('scrubs a CVV named in words that no command knew: %s', (text, shown) => {
    expect(scrubSecrets(text, [])).toBe(shown)
  })

  it('leaves numbers that no CVV word names, and longer numbers after one', () => {
    expect(scrubSecrets('port 49371, amount 9370, cvv 12345, cvvx 123', [])).toBe('port 49371, amount 9370, cvv 12345, cvvx 123')
  })

  it('masks Luhn-valid card numbers by shape, leaving other long numbers', () => {
    expect(maskCardNumbers('--pan=4024 0071 0817 3153 cannot also be provided')).toBe('--pan=•••• 3153 cannot also be provided')
    expect(maskCardNumbers('proxy id 4024007108173154')).toBe('proxy id 4024007108173154')
  })
})

describe('card numbers by shape', () => {
  it.each([
    ['together', 'card 4024007108173153 declined', 'card •••• 3153 declined'],
    ['in groups of four with spaces', 'card 4024 0071 0817 3153 declined', 'card •••• 3153 declined'],
    ['in groups of four with dashes', 'card 4024-0071-0817-3153 declined', 'card •••• 3153 declined'],
    ['Amex grouping 4-6-5', 'card 3782 822463 10005.', 'card •••• 0005.'],
    ['19 digits', 'card 6011 0000 0000 0000 001', 'card •••• 0001'],
    ['followed by an amount in the same run', 'paid 4024 0071 0817 3153 1499', 'paid •••• 3153 1499'],
    ['after a number in the same run', 'order 12 4024-0071-0817-3153', 'order 12 •••• 3153'],
    ['twice', '4024007108173153/4111 1111 1111 1111', '•••• 3153/•••• 1111'],
    ['URL-encoded', 'note=4024%200071%200817%203153&x=4024+0071+0817+3153', 'note=•••• 3153&x=•••• 3153'],
  ])('masks a Luhn-valid card number written %s', (_label, text, masked) => {
    expect(maskCardNumbers(text)).toBe(masked)
  })

  it.each([
    ['not Luhn-valid', 'reference 4024 0071 0817 3154'],
    ['too short', 'phone 0301 2345 678'],
    ['longer than 19 digits', 'id 40240071081731534024'],
    ['a UUID', 'id 9a2e7c3f-1b4d-4e8a-9c6b-2f3e4d5a6b7c'],
    ['a timestamp', 'at 2026-11-22 14:15:27.123'],
    ['two spaces apart', 'columns 4024  0071  0817  3153'],
  ])('leaves other numbers alone: %s', (_label, text) => {
    expect(maskCardNumbers(text)).toBe(text)
  })
})

describe('card-like fields by name, at any depth', () => {
  it('masks pan, card_number, cvv, card_cvv, cvc, security_code in any case or spelling, deep in objects and lists', () => {
    const body = {
      transaction: {
        details: {
          card: {PAN: '4024007108173154', Card_Number: '4024-0071-0817-3154', cardNumber: 4024007108173154, cvv: '123', CARD_CVV: 456, cvc: '789', securityCode: '1234'},
        },
        history: [{payment: {card_number: '4024 0071 0817 3154', security_code: '321'}}],
        description: 'Card 4024 0071 0817 3153 used',
        amount: '1499',
      },
      'body.card_number': '4024 0071 0817 3154 is not a valid card number',
      'body.card_cvv': 'CVV 987 does not match',
      'card[cvv]': ['123'],
      api_key: 'sk_live_51Hx9TqLkd83JfPq02nVbXcR7',
    }
    const text = JSON.stringify(body)
    const written = redactedJson(body)
    expect(JSON.parse(written)).toEqual({
      transaction: {
        details: {card: {PAN: '•••• 3154', Card_Number: '•••• 3154', cardNumber: '•••• 3154', cvv: '***', CARD_CVV: '***', cvc: '***', securityCode: '***'}},
        history: [{payment: {card_number: '•••• 3154', security_code: '***'}}],
        description: 'Card •••• 3153 used',
        amount: '1499',
      },
      'body.card_number': '•••• 3154 is not a valid card number',
      'body.card_cvv': 'CVV *** does not match',
      'card[cvv]': ['***'],
      api_key: 'sk_l…XcR7',
    })
    // Masked where it is for the writing, then put back as it was.
    expect(JSON.stringify(body)).toBe(text)
    expect(JSON.stringify(maskBodyInPlace(body))).toBe(written)
  })

  it('keeps the order of fields and leaves other values as they are', () => {
    const body = {id: 'tx-1', status: 'INITIATED', amount: 1499, success: false, nothing: null, cvv: ''}
    expect(redactedJson(body)).toBe(JSON.stringify(body))
    expect(redactedJson(body, 2)).toBe(JSON.stringify(body, undefined, 2))
  })

  it('walks a body nested 5,000 (and 200,000) deep without running out of stack', () => {
    for (const depth of [5_000, 200_000]) {
      const text = `${'{"a":'.repeat(depth)}{"pan":"4024007108173153","note":"4024-0071-0817-3153"}${'}'.repeat(depth)}`
      let redacted = maskBodyInPlace(JSON.parse(text)) as Record<string, unknown>
      for (let level = 0; level < depth; level++) redacted = redacted.a as Record<string, unknown>
      expect(redacted).toEqual({pan: '•••• 3153', note: '•••• 3153'})
      let list = maskBodyInPlace(JSON.parse(`${'['.repeat(depth)}"4024 0071 0817 3153"${']'.repeat(depth)}`))
      for (let level = 0; level < depth; level++) list = (list as unknown[])[0]
      expect(list).toBe('•••• 3153')
    }
  })

  it('writes a "__proto__" field as data, never as the prototype', () => {
    const text = '{"__proto__":{"cvv":"123"},"pan":"4024007108173153"}'
    const body = JSON.parse(text) as Record<string, unknown>
    const inner = body.__proto__
    expect(redactedJson(body)).toBe('{"__proto__":{"cvv":"***"},"pan":"•••• 3153"}')
    expect(JSON.stringify(body)).toBe(text)
    expect(body.__proto__).toBe(inner)
    const masked = maskBodyInPlace(JSON.parse('{"__proto__":"4024007108173153","x":1}')) as Record<string, unknown>
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype)
    expect(Object.hasOwn(masked, '__proto__')).toBe(true)
    expect(JSON.stringify(masked)).toBe('{"__proto__":"•••• 3153","x":1}')
  })

  it('puts back a value met twice as it was, and masks a body it cannot write to on a copy', () => {
    const card = {pan: '4024007108173153'}
    const body = {one: card, two: card, list: [card, '4024 0071 0817 3153']}
    expect(redactedJson(body)).toBe('{"one":{"pan":"•••• 3153"},"two":{"pan":"•••• 3153"},"list":[{"pan":"•••• 3153"},"•••• 3153"]}')
    expect(body).toEqual({one: {pan: '4024007108173153'}, two: {pan: '4024007108173153'}, list: [{pan: '4024007108173153'}, '4024 0071 0817 3153']})
    expect(body.one).toBe(card)
    // A key met twice is masked twice (its mask masked again): the first value comes back.
    const account = {api_key: 'sk_live_51Hx9TqLkd83JfPq02nVbXcR7'}
    const twice = {a: account, b: account}
    expect(redactedJson(twice)).not.toContain('51Hx9')
    expect(account.api_key).toBe('sk_live_51Hx9TqLkd83JfPq02nVbXcR7')
    const frozen = Object.freeze({a: Object.freeze({cvv: '123', '4024 0071 0817 3153': 1}), b: {pan: '4111111111111111'}})
    expect(redactedJson(frozen)).toBe('{"a":{"cvv":"***","•••• 3153":1},"b":{"pan":"•••• 1111"}}')
    expect(frozen.b.pan).toBe('4111111111111111')
    expect(redactedJson('4024 0071 0817 3153')).toBe('"•••• 3153"')
    expect(redactedJson(null)).toBe('null')
  })

  it('masks every item of a list longer than the slice masked a call (256), and puts every one back', () => {
    const items = Array.from({length: 1_300}, (_, index) => [`4024 0071 0817 3153 #${index}`, {pan: '4111111111111111', n: index}, `4111-1111-1111-1111 #${index}`][index % 3])
    const body = {list: items, cvv: ['123', '456']}
    const text = JSON.stringify(body)
    const masked = JSON.parse(redactedJson(body)) as {list: unknown[]; cvv: string[]}
    expect(masked.list).toEqual(items.map((_, index) => [`•••• 3153 #${index}`, {pan: '•••• 1111', n: index}, `•••• 1111 #${index}`][index % 3]))
    expect(masked.cvv).toEqual(['***', '***'])
    expect(JSON.stringify(body)).toBe(text)
  })

  it('masks card numbers in field names, keeping the fields in their order, and leaves what it was given as it was', () => {
    const text = '{"a":1,"4024 0071 0817 3153":{"cvv":"123","__proto__":2},"list":["4111111111111111",{"pan":"4024007108173153"}],"z":[3]}'
    const body = JSON.parse(text)
    const z = body.z
    expect(redactedJson(body)).toBe('{"a":1,"•••• 3153":{"cvv":"***","__proto__":2},"list":["•••• 1111",{"pan":"•••• 3153"}],"z":[3]}')
    expect(JSON.stringify(body)).toBe(text)
    expect(Object.keys(body)).toEqual(['a', '4024 0071 0817 3153', 'list', 'z'])
    expect(body.z).toBe(z)
    const masked = maskBodyInPlace(body) as Record<string, unknown>
    expect(JSON.stringify(masked)).toBe('{"a":1,"•••• 3153":{"cvv":"***","__proto__":2},"list":["•••• 1111",{"pan":"•••• 3153"}],"z":[3]}')
    expect(Object.getPrototypeOf(masked['•••• 3153'])).toBe(Object.prototype)
  })
})

describe('text of unknown format', () => {
  it.each([
    ['a form body', 'pan=4024007108173154&cvv=123&amount=1499', 'pan=•••• 3154&cvv=***&amount=1499'],
    ['a form body with bracketed names', 'card[number]=4111111111111112&card[cvc]=4321', 'card[number]=•••• 1112&card[cvc]=***'],
    ['broken JSON', '{"card_number": "4024 0071 0817 3154", "card_cvv": "123", oops', '{"card_number": "•••• 3154", "card_cvv": "***", oops'],
    ['YAML-like lines', 'Security_Code: 987\nCVC2: 12\nnote: ok', 'Security_Code: ***\nCVC2: ***\nnote: ok'],
    ['XML', '<card><pan>4024007108173154</pan><cvv>123</cvv></card>', '<card><pan>•••• 3154</pan><cvv>***</cvv></card>'],
    ['a Luhn-valid card number anywhere', 'note=4024-0071-0817-3153 ok', 'note=•••• 3153 ok'],
  ])('scrubs %s', (_label, text, scrubbed) => {
    expect(redactText(text)).toBe(scrubbed)
  })

  it('leaves messages about card fields readable', () => {
    const text = '--pan: is not a valid card number; cvv: must be 3 or 4 digits; company=Acme 12'
    expect(redactText(text)).toBe(text)
  })

  it('scrubSecrets also masks card numbers by shape and card fields by name', () => {
    expect(scrubSecrets('The card 4024 0071 0817 3153 (cvv=123) was declined', [])).toBe('The card •••• 3153 (cvv=***) was declined')
  })
})

// How fast these go is measured by the bench (`npm run bench -- redact`), never by a timed test:
// these check that each hostile shape still comes out redacted as it should.
describe('hostile text', () => {
  it.each([
    ['unterminated quoted values', 'cvv="'.repeat(200_000), (out: string) => expect(out).toBe('cvv="'.repeat(200_000))],
    ['long names without a value', 'a'.repeat(1_000_000), (out: string) => expect(out).toBe('a'.repeat(1_000_000))],
    ['digit groups', '1 '.repeat(500_000), (out: string) => expect(out).toBe('1 '.repeat(500_000))],
    ['card numbers in groups', '4024 0071 0817 3153, '.repeat(50_000), (out: string) => expect(out).toBe('•••• 3153, '.repeat(50_000))],
    // Side by side, the card numbers make spans that pass the check across them (0071 0817 3153 4024): one mask.
    ['card numbers in one run of groups', '4024 0071 0817 3153 '.repeat(50_000), (out: string) => expect(out).toBe('•••• 3153 ')],
    ['URL-encoded card numbers', 'n=4024%200071%200817%203153&'.repeat(30_000), (out: string) => expect(out).toBe('n=•••• 3153&'.repeat(30_000))],
    ['unclosed XML fields', '<cvv>'.repeat(200_000), (out: string) => expect(out).toBe('<cvv>'.repeat(200_000))],
    ['long card fields', `pan=${'4'.repeat(1_000_000)}`, (out: string) => expect(out.startsWith('pan=•••• 4444')).toBe(true)],
  ])('scrubs 1 MB of %s', (_label, text, check) => {
    check(redactText(text))
  })

  it('masks the runs of digits of a card-number field as the plain rule does, long groups and short ones (500 random values)', () => {
    const random = seededRandom(52)
    const digits = (count: number) => Array.from({length: count}, () => String(random.below(10))).join('')
    // Runs of digits joined by one space or dash; those of six digits or more masked by their last four.
    const byRule = (value: string) => value.replaceAll(/\d+(?:[ -]\d+)*/g, (run) => (run.replaceAll(/\D/g, '').length >= 6 ? `•••• ${run.replaceAll(/\D/g, '').slice(-4)}` : run))
    for (let round = 0; round < 500; round++) {
      const parts = Array.from({length: 1 + random.below(6)}, () => digits(random.next() < 0.3 ? 25 + random.below(80) : 1 + random.below(8)))
      const value = parts.map((part) => part + random.pick([' ', '-', '  ', 'x', ''])).join('')
      expect(redactedJson({pan: value}), value).toBe(JSON.stringify({pan: byRule(value)}))
    }
  })

  it('masks a card-number field of a million digits, and leaves a CVV field of a million spaces, in a body', () => {
    expect(redactedJson({pan: '4'.repeat(1_000_000)})).toBe('{"pan":"•••• 4444"}')
    const spaces = `${' '.repeat(1_000_000)}x`
    expect(redactedJson({cvv: spaces})).toBe(JSON.stringify({cvv: spaces}))
  })
})

describe('ids are not card numbers', () => {
  it.each([
    ['a UUID whose last group is a Luhn-valid 12-digit number', 'customer 4f1c2a10-5b1e-4f6a-8c2d-400000000002 created'],
    ['a UUID whose digit groups join into a Luhn-valid 16-digit run', 'id 4f1c2a10-5b1e-4f6a-1234-123456789011'],
    ['digits glued to hex letters', 'ref be4024007108173153c'],
  ])('%s stays whole', (_name, text) => {
    expect(maskCardNumbers(text)).toBe(text)
  })

  it('still masks a card number next to a UUID', () => {
    expect(maskCardNumbers('4f1c2a10-5b1e-4f6a-8c2d-9e0b4d000001 4024 0071 0817 3153')).not.toContain('0071')
  })
})
