import {describe, expect, it} from 'vitest'

import {parseRequestTimeout} from '../../src/cli/base-command.js'

describe('parseRequestTimeout: --timeout, checked once in init()', () => {
  it.each([
    ['30', 30_000],
    ['0.5', 500],
    [' 2 ', 2000],
  ])('%j seconds is %i ms', (raw, ms) => {
    expect(parseRequestTimeout(raw)).toBe(ms)
  })

  it.each([['0'], ['-1'], ['soon'], [''], ['Infinity']])('refuses %j naming --timeout (exit 2)', (raw) => {
    expect(() => parseRequestTimeout(raw)).toThrow(expect.objectContaining({flag: '--timeout', exitCode: 2, message: expect.stringContaining('--timeout must be a number of seconds greater than 0')}))
  })
})
