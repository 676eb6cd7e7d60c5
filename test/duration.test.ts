import {describe, expect, it} from 'vitest'

import {EXIT, InputError} from '../src/errors.js'
import {parseDuration} from '../src/duration.js'

describe('parseDuration (a flag value)', () => {
  it.each([
    ['90s', 90_000],
    ['10m', 600_000],
    ['1.5', 1500],
    [' 2H ', 7_200_000],
  ])('reads %j as %i ms', (raw, ms) => expect(parseDuration(raw, '--wait-timeout')).toBe(ms))

  it.each(['0', '0ms', 'soon', '-5s', ''])('refuses %j with an input error naming the flag', (raw) => {
    let error: unknown
    try {
      parseDuration(raw, '--wait-timeout')
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(InputError)
    expect((error as InputError).exitCode).toBe(EXIT.input)
    expect((error as InputError).message).toBe(`--wait-timeout must be a duration greater than 0, such as 90s, 10m or 1h (got "${raw}").`)
  })

  it('takes 0 where the flag allows it, and still refuses what is not a duration', () => {
    expect(parseDuration('0', '--settle-after', {allowZero: true})).toBe(0)
    expect(() => parseDuration('3 days', '--settle-after', {allowZero: true})).toThrow(
      '--settle-after must be a duration such as 500ms, 3s, 7m or 1h; a plain number means seconds (got "3 days").',
    )
  })
})

describe('durations longer than a timer can wait', () => {
  it.each(['30d', '597h', '2147483648ms'])('refuses %j naming the largest allowed value', (raw) => {
    expect(() => parseDuration(raw, '--wait-timeout')).toThrow(
      `--wait-timeout can be at most 596h (2147483647ms, about 24.8 days), the longest paytx can wait (got "${raw}").`,
    )
  })

  it('takes the longest a timer can wait, and any length where the flag is no timer', () => {
    expect(parseDuration('2147483647ms', '--wait-timeout')).toBe(2 ** 31 - 1)
    expect(parseDuration('24d', '--wait-timeout')).toBe(24 * 86_400_000)
    expect(parseDuration('400d', '--since', {max: Number.POSITIVE_INFINITY})).toBe(400 * 86_400_000)
  })
})
