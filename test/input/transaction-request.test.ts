import {describe, expect, it} from 'vitest'

import {checkCardOnlyFlags, generateMerchantReference, parseMinorUnits, prepareSofortDescriptor} from '../../src/input/transaction-request.js'

describe('parseMinorUnits', () => {
  it('accepts whole numbers above 0', () => {
    expect(parseMinorUnits('14')).toBe(14)
    expect(parseMinorUnits(' 1499 ')).toBe(1499)
  })

  it('explains minor units for decimal amounts, with the value probably meant', () => {
    expect(() => parseMinorUnits('0.14')).toThrow('--amount is in minor units, a whole number without a decimal point: use 14 for 0.14 EUR (for "0.14" that is 14).')
    expect(() => parseMinorUnits('1,50')).toThrow('(for "1,50" that is 150)')
    expect(() => parseMinorUnits('1.5')).toThrow('(for "1.5" that is 150)')
    expect(() => parseMinorUnits('1.505')).toThrow('use 14 for 0.14 EUR (got "1.505")')
  })

  it('rejects zero, negatives, junk and unsafe integers, naming the flag', () => {
    expect(() => parseMinorUnits('0')).toThrow(/^--amount must be greater than 0/)
    expect(() => parseMinorUnits('-5')).toThrow(/^--amount must be greater than 0/)
    expect(() => parseMinorUnits('1e3')).toThrow(/^--amount must be a whole number of minor units/)
    expect(() => parseMinorUnits('')).toThrow(/^--amount must be a whole number/)
    expect(() => parseMinorUnits('99999999999999999999')).toThrow(/^--amount is too large/)
    try {
      parseMinorUnits('x')
    } catch (error) {
      expect(error).toMatchObject({exitCode: 2, flag: '--amount'})
    }
  })
})

describe('prepareSofortDescriptor', () => {
  it('transliterates umlauts and ß as the service does, and says so', () => {
    expect(prepareSofortDescriptor('Müller Größe')).toEqual({value: 'Mueller Groesse', notes: ['--descriptor sent as "Mueller Groesse" (umlauts and ß transliterated, as the service does).']})
    expect(prepareSofortDescriptor('ÄÖÜ').value).toBe('AeOeUe')
  })

  it('allows 0-9 a-z A-Z space + . - , and at most 27 characters, warning above 18', () => {
    expect(prepareSofortDescriptor('Order 1+2.3-4,5')).toEqual({value: 'Order 1+2.3-4,5', notes: []})
    expect(prepareSofortDescriptor('a'.repeat(27)).notes).toEqual(['--descriptor is 27 characters; banks in some countries show only the first 18: "aaaaaaaaaaaaaaaaaa".'])
    expect(prepareSofortDescriptor('a'.repeat(18)).notes).toEqual([])
    expect(() => prepareSofortDescriptor('a'.repeat(28))).toThrow('--descriptor is 28 characters long; at most 27 are allowed')
    expect(() => prepareSofortDescriptor('Straße'.repeat(5))).toThrow(/35 characters long/)
    expect(() => prepareSofortDescriptor('Order #1 é')).toThrow('--descriptor contains "#", "é"; allowed are 0-9 a-z A-Z space + . - ,')
  })
})

describe('generateMerchantReference', () => {
  it('combines the time and randomness', () => {
    expect(generateMerchantReference(new Date('2026-11-20T10:00:03.123Z'), () => 'a1b2c3d4')).toBe('paytx-20261120T100003Z-a1b2c3d4')
    expect(generateMerchantReference()).not.toBe(generateMerchantReference())
  })
})

describe('checkCardOnlyFlags', () => {
  it.each([
    ['dummy', {'--card': 'c1'}, '--card applies only to --product card (got --product dummy).'],
    ['sofort', {'--card': undefined, '--cvv-stdin': true}, '--cvv-stdin applies only to --product card (got --product sofort).'],
    ['dummy', {'--pan-stdin': false, '--holder-name': ''}, '--holder-name applies only to --product card (got --product dummy).'],
  ])('refuses for --product %s: %j', (product, given, message) => {
    expect(() => checkCardOnlyFlags(product, given)).toThrow(message)
  })

  it.each([
    ['card', {'--card': 'c1', '--cvv-stdin': true}],
    ['dummy', {'--card': undefined, '--cvv-stdin': false}],
  ])('accepts for --product %s: %j', (product, given) => {
    expect(() => checkCardOnlyFlags(product, given)).not.toThrow()
  })
})
