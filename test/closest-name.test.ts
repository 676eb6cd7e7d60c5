import {describe, expect, it} from 'vitest'

import {closestName} from '../src/closest-name.js'

describe('closestName', () => {
  const flags = ['--json', '--csv', '--profile', '--verbose', '--amount']

  it.each([
    ['--jsn', '--json'],
    ['--jsno', '--json'],
    ['--amout', '--amount'],
    ['--Profile', '--Profile'.toLowerCase()],
  ])('%s → %s', (typed, expected) => {
    expect(closestName(typed, flags)).toBe(expected)
  })

  it('suggests nothing when nothing is close, or when every letter would change', () => {
    expect(closestName('--xy', flags)).toBeUndefined()
    expect(closestName('ab', ['cd', 'xy'])).toBeUndefined()
    expect(closestName('frobnicate', ['status', 'flow'])).toBeUndefined()
  })

  it('prefers the nearer name, and the first of equally near ones', () => {
    expect(closestName('stats', ['state', 'status'])).toBe('state')
    expect(closestName('sttus', ['status', 'stats'])).toBe('status')
  })
})
