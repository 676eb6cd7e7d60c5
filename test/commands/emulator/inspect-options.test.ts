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
  const sandbox = {env: 'sandbox', base_url: 'https://sandbox.example.test/v1', api_key: 'sk_test_1', organisation: '0a0f2c55-6c8e-4c51-9b0e-3e7a1d000001'} as Profile

  it.each([[30_000], [5000]])('runs against a sandbox profile with a key, each request bounded by --timeout %i ms', (requestTimeoutMs) => {
    expect(toEmulatorVerifyOptions({name: 'sandbox', profile: sandbox}, {requestTimeoutMs})).toEqual({profileName: 'sandbox', profile: sandbox, timeoutMs: requestTimeoutMs, webhookWaitMs: 5000})
  })

  it.each([
    ['production', {...sandbox, env: 'production'}, /refuses production profiles/],
    ['local', {...sandbox, env: 'local'}, /is the emulator itself/],
    ['keyless', {...sandbox, api_key: undefined}, /has no API key/],
    ['organisation-less', {...sandbox, organisation: undefined}, /has no organisation/],
  ])('refuses a %s profile, naming --profile (exit 2)', (name, profile, message) => {
    const parse = () => toEmulatorVerifyOptions({name, profile: profile as Profile}, {requestTimeoutMs: 30_000})
    expect(parse).toThrow(InputError)
    expect(parse).toThrow(expect.objectContaining({flag: '--profile', message: expect.stringMatching(message)}))
  })

  it.each([
    [{'webhook-url': 'https://hooks.example.test'}, '--webhook-port'],
    [{'webhook-port': 4021}, '--webhook-port'],
    [{'webhook-url': 'https://hooks.example.test?x=1', 'webhook-port': 4021}, '--webhook-url'],
    [{'webhook-wait': 'soon'}, '--webhook-wait'],
    [{save: '/no/such/folder/readings.json'}, '--save'],
  ])('%j: an InputError naming %s', (flags, flag) => {
    const parse = () => toEmulatorVerifyOptions({name: 'sandbox', profile: sandbox}, {requestTimeoutMs: 30_000}, flags)
    expect(parse).toThrow(expect.objectContaining({flag}))
  })

  it('--webhook-url with --webhook-port, or a tunnel: how the service reaches the listener', () => {
    expect(toEmulatorVerifyOptions({name: 'sandbox', profile: sandbox}, {requestTimeoutMs: 30_000}, {'webhook-url': 'https://hooks.example.test', 'webhook-port': 4021}).publicWebhooks).toEqual({port: 4021, url: 'https://hooks.example.test'})
    expect(toEmulatorVerifyOptions({name: 'sandbox', profile: sandbox}, {requestTimeoutMs: 30_000}, {tunnel: 'cloudflared'}).publicWebhooks).toEqual({port: 0, tunnel: {choice: {program: 'cloudflared'}, timeoutMs: 30_000}})
  })
})
