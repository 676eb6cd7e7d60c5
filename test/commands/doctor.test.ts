/** `doctor`'s options, in-process: which profile it checks and how long each check may wait. */
import {describe, expect, it} from 'vitest'

import {toDoctorOptions} from '../../src/commands/doctor.js'

describe('toDoctorOptions', () => {
  it.each([
    [{requestTimeoutMs: 30_000}, {profileName: undefined, timeoutMs: 10_000}],
    [{profile: 'sandbox', requestTimeoutMs: 30_000}, {profileName: 'sandbox', timeoutMs: 10_000}],
    // A shorter --timeout shortens each check; a longer one never makes doctor slower than 10 s a check.
    [{requestTimeoutMs: 2000}, {profileName: undefined, timeoutMs: 2000}],
    [{requestTimeoutMs: 10_000}, {profileName: undefined, timeoutMs: 10_000}],
  ])('%j: %j', (globals, expected) => {
    expect(toDoctorOptions(globals)).toEqual(expected)
  })
})
