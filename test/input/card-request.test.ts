import {describe, expect, it} from 'vitest'

import {cardExpiryIssue, cardFieldIssue} from '../../src/api/schemas.js'
import {cardIssuesToProblems} from '../../src/input/card-request.js'

describe('a card’s answers, checked one at a time', () => {
  it.each<[Parameters<typeof cardFieldIssue>[0], string, string | undefined]>([
    ['expiry_month', '7', undefined],
    ['expiry_month', '12', undefined],
    ['expiry_month', '13', 'must be a month from 01 to 12'],
    ['expiry_month', '0', 'must be a month from 01 to 12'],
    ['expiry_year', '2030', undefined],
    ['expiry_year', '12', 'must be a four-digit year such as 2030'],
    ['holder_name', '   ', 'must not be blank'],
    ['pan', '4024007108173153', undefined],
    ['pan', '4024007108173154', 'is not a valid card number (12-19 digits passing the Luhn check)'],
  ])('%s %j: %s', (field, value, problem) => {
    expect(cardFieldIssue(field, value)).toBe(problem)
  })

  it.each([
    ['03', '2025', {path: 'expiry_year', message: 'is in the past; use 2026 or later'}],
    ['10', '2026', {path: 'expiry_month', message: 'the card expired; the expiry month is in the past'}],
    ['11', '2026', undefined],
    ['01', '2027', undefined],
  ])('expiry %s/%s on 2026-11-23: %j', (month, year, issue) => {
    expect(cardExpiryIssue(month, year, new Date('2026-11-23T12:00:00Z'))).toEqual(issue)
  })

  it('names a prompted field by its name, a flag’s value by the flag', () => {
    const issues = [
      {path: 'expiry_month', message: 'm'},
      {path: 'expiry_year', message: 'y'},
      {path: 'pan', message: 'p'},
    ]
    expect(cardIssuesToProblems(issues, {panSource: 'prompt', prompted: new Set(['expiry_month', 'pan'])}).map((p) => p.flag)).toEqual([
      'Expiry month',
      '--expiry-year',
      'Card number',
    ])
    expect(cardIssuesToProblems(issues, {panSource: '--pan-stdin', prompted: new Set()}).map((p) => p.flag)).toEqual(['--expiry-month', '--expiry-year', '--pan-stdin'])
  })
})
