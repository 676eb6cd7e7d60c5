import {describe, expect, it} from 'vitest'

import {applyProfileChanges, checkProfileUrls, environmentFromName, removeProfileFrom} from '../../src/profiles/edit.js'
import {ENVIRONMENT_PRESETS, builtinLocalProfile} from '../../src/profiles/presets.js'

describe('profile editing', () => {
  it('fills a new profile from its environment’s preset', () => {
    expect(applyProfileChanges(undefined, 'sandbox', {api_key: 'k'})).toEqual({
      env: 'sandbox',
      ...ENVIRONMENT_PRESETS.sandbox,
      api_key_header: 'X-APIKEY',
      api_key: 'k',
    })
    expect(applyProfileChanges(undefined, 'local', {})).toEqual(builtinLocalProfile())
  })

  it('keeps unspecified values, follows a preset address on a change of environment, keeps hand-set ones', () => {
    const sandbox = applyProfileChanges(undefined, 'sandbox', {api_key: 'k', organisation: 'o'})
    const production = applyProfileChanges(sandbox, 'production', {})
    expect(production).toMatchObject({env: 'production', ...ENVIRONMENT_PRESETS.production, api_key: 'k', organisation: 'o'})
    const custom = applyProfileChanges(undefined, 'sandbox', {base_url: 'https://staging.example.com/v1'})
    expect(applyProfileChanges(custom, 'production', {}).base_url).toBe('https://staging.example.com/v1')
    expect(applyProfileChanges(custom, 'sandbox', {payment_profile: 'pp'})).toMatchObject({base_url: 'https://staging.example.com/v1', payment_profile: 'pp'})
  })

  it('checks addresses and the header name, naming the flag', () => {
    expect(() => checkProfileUrls({base_url: 'example.com'})).toThrow(/--base-url/)
    expect(() => checkProfileUrls({h2h_url: 'ftp://x'})).toThrow(/--h2h-url/)
    expect(() => checkProfileUrls({api_key_header: 'X API KEY'})).toThrow(/--api-key-header/)
    expect(() => checkProfileUrls({base_url: 'http://127.0.0.1:4010', api_key_header: 'X-APIKEY'})).not.toThrow()
  })

  it('infers the environment from a profile named after one', () => {
    expect(environmentFromName('production')).toBe('production')
    expect(environmentFromName('prod')).toBeUndefined()
  })

  it('falls back to local when the active profile is removed', () => {
    const data = {active: 'a', profiles: {a: builtinLocalProfile(), b: builtinLocalProfile()}}
    removeProfileFrom(data, 'a')
    expect(data).toEqual({profiles: {b: builtinLocalProfile()}})
  })
})
