/** The option parsers of `emulator faults list/clear`, `assumptions`, `reset` and `verify`, in-process: nothing sent or stored. */
import {describe, expect, it} from 'vitest'

import {toEmulatorAssumptionsOptions} from '../../../src/commands/emulator/assumptions.js'
import {toFaultsClearOptions} from '../../../src/commands/emulator/faults/clear.js'
import {toFaultsListOptions} from '../../../src/commands/emulator/faults/list.js'
import EmulatorReset, {toEmulatorResetOptions} from '../../../src/commands/emulator/reset.js'
import {toEmulatorVerifyOptions} from '../../../src/commands/emulator/verify.js'
import {InputError} from '../../../src/errors.js'
import type {Profile} from '../../../src/api/profile.js'
import {parseFlags} from '../../helpers/parse-flags.js'

describe('toFaultsListOptions', () => {
  it.each([[30_000], [1500]])('waits --timeout %i ms for the emulator', (requestTimeoutMs) => {
    expect(toFaultsListOptions({requestTimeoutMs})).toEqual({timeoutMs: requestTimeoutMs})
  })
})

describe('toFaultsClearOptions', () => {
  it.each([
    [{}, {timeoutMs: 30_000}],
    [{id: 'f3'}, {id: 'f3', timeoutMs: 30_000}],
  ])('%j: %j', (args, expected) => {
    expect(toFaultsClearOptions(args, {requestTimeoutMs: 30_000})).toEqual(expected)
  })
})

describe('toEmulatorAssumptionsOptions', () => {
  it('has nothing to check: the table is fixed', () => {
    expect(toEmulatorAssumptionsOptions()).toEqual({})
  })
})

describe('toEmulatorResetOptions', () => {
  it.each([
    [[], {store: undefined, confirmed: false}],
    [['--yes'], {store: undefined, confirmed: true}],
    [['--store', 'other.db', '--yes'], {store: 'other.db', confirmed: true}],
    [['--store', ':memory:'], {store: ':memory:', confirmed: false}],
  ])('%j: %j', async (argv, expected) => {
    expect(toEmulatorResetOptions(await parseFlags(EmulatorReset, argv))).toEqual(expected)
  })
})

describe('toEmulatorVerifyOptions', () => {
  const sandbox = {env: 'sandbox', base_url: 'https://sandbox.example.test/v1', api_key: 'sk_test_1'} as Profile

  it.each([[30_000], [5000]])('runs against a sandbox profile with a key, each request bounded by --timeout %i ms', (requestTimeoutMs) => {
    expect(toEmulatorVerifyOptions({name: 'sandbox', profile: sandbox}, {requestTimeoutMs})).toEqual({profileName: 'sandbox', profile: sandbox, timeoutMs: requestTimeoutMs})
  })

  it.each([
    ['production', {...sandbox, env: 'production'}, /refuses production profiles/],
    ['local', {...sandbox, env: 'local'}, /is the emulator itself/],
    ['keyless', {...sandbox, api_key: undefined}, /has no API key/],
  ])('refuses a %s profile, naming --profile (exit 2)', (name, profile, message) => {
    const parse = () => toEmulatorVerifyOptions({name, profile: profile as Profile}, {requestTimeoutMs: 30_000})
    expect(parse).toThrow(InputError)
    expect(parse).toThrow(expect.objectContaining({flag: '--profile', message: expect.stringMatching(message)}))
  })
})
