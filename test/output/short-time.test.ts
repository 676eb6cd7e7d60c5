import {describe, expect, it} from 'vitest'

import {shortTime} from '../../src/output/short-time.js'

describe('shortTime', () => {
  // Built from local parts, so the expectations hold in any time zone.
  const now = new Date(2026, 10, 28, 15, 30, 0).getTime()
  const at = (...parts: [number, number, number, number, number, number]) => new Date(...parts).toISOString()

  it('shows only the time for a moment of today', () => {
    expect(shortTime(at(2026, 10, 28, 9, 5, 7), now)).toBe('09:05:07')
    expect(shortTime(at(2026, 10, 28, 0, 0, 0), now)).toBe('00:00:00')
  })

  it('adds the day when it is another day, and the year instead of the time when it is half a year away', () => {
    expect(shortTime(at(2026, 10, 27, 23, 59, 59), now)).toBe('Nov 27 23:59')
    expect(shortTime(at(2026, 5, 1, 8, 0, 0), now)).toBe('Jun 1 08:00')
    expect(shortTime(at(2025, 10, 28, 15, 30, 0), now)).toBe('Nov 28 2025')
  })

  it('leaves text that is no time as it is', () => {
    expect(shortTime('soon', now)).toBe('soon')
  })
})
