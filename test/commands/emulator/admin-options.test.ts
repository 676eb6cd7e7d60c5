/** The option parsers of the emulator's admin commands: one row per input, nothing sent or stored. */
import {describe, expect, it} from 'vitest'

import EmulatorAddOrganisation, {toAddOrganisationOptions} from '../../../src/commands/emulator/add-organisation.js'
import EmulatorAddPaymentProfile, {toAddPaymentProfileOptions} from '../../../src/commands/emulator/add-payment-profile.js'
import EmulatorResend, {toResendOptions} from '../../../src/commands/emulator/resend.js'
import EmulatorTrigger, {toTriggerOptions} from '../../../src/commands/emulator/trigger.js'
import {InputError} from '../../../src/errors.js'
import {EMULATOR_DEFAULTS} from '../../../src/test-mode/emulator-defaults.js'
import {parseFlags} from '../../helpers/parse-flags.js'

const TX = '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'
const ORG = '3F1C2A9E-0000-4000-8000-000000000001'
const PP = '3f1c2a9e-0000-4000-8000-000000000002'

describe('toTriggerOptions', () => {
  it.each([
    [[], {id: TX, move: {status: 'DECLINED', force: false}, waitMs: 10_000}],
    [['--reason', 'stolen', '--force', '--wait', '0s'], {id: TX, move: {status: 'DECLINED', reason: 'stolen', force: true}, waitMs: 0}],
    [['--wait', '2m'], {id: TX, move: {status: 'DECLINED', force: false}, waitMs: 120_000}],
  ])('%j', async (argv, expected) => {
    expect(toTriggerOptions(await parseFlags(EmulatorTrigger, [TX, 'DECLINED', ...argv]), {id: TX, status: 'DECLINED'})).toEqual(expected)
  })

  it('refuses a --wait that is not a duration, naming it', async () => {
    expect(() => toTriggerOptions({reason: undefined, force: false, wait: 'soon'} as never, {id: TX, status: 'DECLINED'})).toThrow(expect.objectContaining({flag: '--wait'}))
  })
})

describe('toResendOptions', () => {
  it.each([
    [[], {id: TX, resend: {all: false}, waitMs: 10_000}],
    [['--all', '--to', 'http://127.0.0.1:3000/webhooks', '--wait', '1s'], {id: TX, resend: {all: true, to: 'http://127.0.0.1:3000/webhooks'}, waitMs: 1000}],
  ])('%j', async (argv, expected) => {
    expect(toResendOptions(await parseFlags(EmulatorResend, [TX, ...argv]), {id: TX})).toEqual(expected)
  })

  it.each([
    [['--to', 'localhost:3000/webhooks'], '--to'],
    [['--to', 'ftp://example.com/x'], '--to'],
    [['--wait', 'later'], '--wait'],
  ])('refuses %j naming %s', async (argv, flag) => {
    const flags = await parseFlags(EmulatorResend, [TX, ...argv])
    expect(() => toResendOptions(flags, {id: TX})).toThrow(InputError)
    expect(() => toResendOptions(flags, {id: TX})).toThrow(expect.objectContaining({flag}))
  })
})

describe('toAddOrganisationOptions', () => {
  it.each([
    [[], ORG, {organisation: ORG.toLowerCase(), store: undefined}],
    [['--store', ':memory:'], ORG, {organisation: ORG.toLowerCase(), store: ':memory:'}],
  ])('%j %s', async (argv, id, expected) => {
    expect(await toAddOrganisationOptions(await parseFlags(EmulatorAddOrganisation, [ORG, ...argv]), {id})).toEqual(expected)
  })

  it('refuses an id that is not a UUID', async () => {
    await expect(toAddOrganisationOptions(await parseFlags(EmulatorAddOrganisation, [ORG]), {id: 'acme'})).rejects.toThrow(/must be a UUID \(got "acme"\)/)
  })
})

describe('toAddPaymentProfileOptions', () => {
  it.each([
    [[], {setting: {id: PP}, organisation: EMULATOR_DEFAULTS.organisation, store: undefined}],
    [['--organisation', ORG, '--webhook-url', 'http://127.0.0.1:4242/webhooks'], {setting: {id: PP, webhookUrl: 'http://127.0.0.1:4242/webhooks'}, organisation: ORG.toLowerCase(), store: undefined}],
  ])('%j', async (argv, expected) => {
    expect(await toAddPaymentProfileOptions(await parseFlags(EmulatorAddPaymentProfile, [PP, ...argv]), {id: PP})).toMatchObject(expected)
  })

  it.each([
    [[], 'shop', undefined, /payment profile id must be a UUID/],
    [['--webhook-url', 'not a url'], PP, '--webhook-url', /--webhook-url must be an absolute http\(s\) URL/],
    [['--organisation', 'acme'], PP, '--organisation', /--organisation must be a UUID/],
  ])('refuses %j for %s', async (argv, id, flag, message) => {
    const attempt = toAddPaymentProfileOptions(await parseFlags(EmulatorAddPaymentProfile, [PP, ...argv]), {id})
    await expect(attempt).rejects.toThrow(message)
    await expect(attempt).rejects.toMatchObject({flag})
  })
})
