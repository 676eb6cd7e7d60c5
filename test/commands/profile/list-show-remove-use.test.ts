/** The option parsers of `profile list`, `show`, `remove` and `use`, in-process: nothing read or stored. */
import {describe, expect, it} from 'vitest'

import ProfileRemove, {toProfileRemoveOptions} from '../../../src/commands/profile/remove.js'
import {toProfileListOptions} from '../../../src/commands/profile/list.js'
import {toProfileShowOptions} from '../../../src/commands/profile/show.js'
import {toProfileUseOptions} from '../../../src/commands/profile/use.js'
import {parseFlags} from '../../helpers/parse-flags.js'

describe('toProfileListOptions', () => {
  it.each([
    [{}, {}, {selected: undefined, overrides: []}],
    [{profile: 'ci'}, {}, {selected: 'ci', overrides: []}],
    [{}, {PAYTX_PROFILE: 'staging'}, {selected: 'staging', overrides: ['PAYTX_PROFILE']}],
    // --profile wins, so PAYTX_PROFILE did not choose the profile in use.
    [{profile: 'ci'}, {PAYTX_PROFILE: 'staging'}, {selected: 'ci', overrides: []}],
    [{}, {PAYTX_PROFILE: '', PAYTX_API_KEY: 'sk_test_1'}, {selected: undefined, overrides: ['PAYTX_API_KEY']}],
  ])('flags %j, environment %j: %j', (flags, env, expected) => {
    expect(toProfileListOptions(flags, env)).toEqual(expected)
  })
})

describe('toProfileShowOptions', () => {
  it.each([
    [{}, {}, undefined],
    [{profile: 'ci'}, {}, 'ci'],
    [{}, {name: 'sandbox'}, 'sandbox'],
    [{profile: 'ci'}, {name: 'sandbox'}, 'sandbox'],
  ])('flags %j, argument %j: shows %s', (flags, args, name) => {
    expect(toProfileShowOptions(flags, args)).toEqual({name})
  })
})

describe('toProfileRemoveOptions', () => {
  it.each([
    [['sandbox'], {name: 'sandbox', confirmed: false}],
    [['sandbox', '--yes'], {name: 'sandbox', confirmed: true}],
    [['-y', 'local'], {name: 'local', confirmed: true}],
  ])('%j: %j', async (argv, expected) => {
    const flags = await parseFlags(ProfileRemove, argv)
    expect(toProfileRemoveOptions(flags, {name: argv.find((arg) => !arg.startsWith('-'))!})).toEqual(expected)
  })
})

describe('toProfileUseOptions', () => {
  it.each([
    ['sandbox', {}, {name: 'sandbox'}],
    ['sandbox', {PAYTX_PROFILE: 'sandbox'}, {name: 'sandbox'}],
    ['sandbox', {PAYTX_PROFILE: 'ci'}, {name: 'sandbox', shadowedBy: 'ci'}],
    ['sandbox', {PAYTX_PROFILE: ''}, {name: 'sandbox'}],
  ])('%s with environment %j: %j', (name, env, expected) => {
    expect(toProfileUseOptions({name}, env)).toEqual(expected)
  })
})
