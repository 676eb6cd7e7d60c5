/** `profile add`'s flags into the change to make, in-process. */
import {describe, expect, it} from 'vitest'

import ProfileAdd, {toProfileAddOptions} from '../../../src/commands/profile/add.js'
import type {Profile} from '../../../src/profiles/presets.js'
import {parseFlags} from '../../helpers/parse-flags.js'

const PIPE = {existing: undefined, interactive: false}

async function options(argv: string[], env: {existing: Profile | undefined; interactive: boolean} = PIPE) {
  const [name] = argv
  return toProfileAddOptions(await parseFlags(ProfileAdd, argv), {name}, env)
}

describe('toProfileAddOptions', () => {
  it.each([
    [['staging', '--env', 'sandbox'], 'sandbox'],
    [['sandbox'], 'sandbox'],
    [['production', '--env', 'local'], 'local'],
  ])('%j is environment %s', async (argv, environment) => {
    expect((await options(argv)).environment).toBe(environment)
  })

  it('keeps a stored profile’s environment, and leaves it to the prompt when a person can answer', async () => {
    const existing = {env: 'production', base_url: 'https://api.example.com/v1'} as Profile
    expect((await options(['prod'], {existing, interactive: false})).environment).toBe('production')
    expect((await options(['staging'], {existing: undefined, interactive: true})).environment).toBeUndefined()
  })

  it('changes only the values given', async () => {
    const {changes} = await options(['staging', '--env', 'sandbox', '--base-url', 'https://staging.example.com/v1', '--api-key-header', 'X-Key'])
    expect(Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined))).toEqual({
      base_url: 'https://staging.example.com/v1',
      api_key_header: 'X-Key',
    })
  })

  it.each([
    [['staging'], '--env', '--env is required for a new profile (local, sandbox, production).'],
    [['staging', '--env', 'sandbox', '--base-url', 'sandbox.example.com'], '--base-url', '--base-url must be an absolute http(s) URL'],
    [['staging', '--env', 'sandbox', '--h2h-url', 'ftp://x'], '--h2h-url', '--h2h-url must be an absolute http(s) URL'],
    // An address that is refused is quoted redacted: its password and key are not shown back.
    [['staging', '--env', 'sandbox', '--base-url', 'https://u:s3cret@h.example:99999/v1?key=s3cret'], '--base-url', '(got "https://u:…@h.example:99999/v1?key=…")'],
    [['staging', '--env', 'sandbox', '--api-key-header', 'X Key'], '--api-key-header', '--api-key-header'],
    [['bad name!', '--env', 'sandbox'], 'name', 'Profile name "bad name!" is not allowed'],
  ])('refuses %j naming %s', async (argv, flag, message) => {
    await expect(options(argv)).rejects.toMatchObject({flag, exitCode: 2, message: expect.stringContaining(message)})
  })

  it('leaves an unknown --env to oclif’s parser', async () => {
    await expect(parseFlags(ProfileAdd, ['staging', '--env', 'qa'])).rejects.toThrow(/--env/)
  })
})
