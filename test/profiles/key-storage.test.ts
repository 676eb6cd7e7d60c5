/**
 * Where a profile's keys go and how they are shown, for the cases that need no keychain: the
 * keychain round trip itself runs against a real Secret Service in test/e2e/keychain.test.ts.
 */
import {describe, expect, it} from 'vitest'

import {profileView} from '../../src/output/profile.js'
import {hasStoredKey, keyLocation, keysToReadFromKeychain} from '../../src/profiles/key-fields.js'
import {keychainAccounts, placeKeys} from '../../src/profiles/key-storage.js'
import {type Profile, builtinLocalProfile} from '../../src/profiles/presets.js'

const base: Profile = {env: 'production', base_url: 'https://api.example.com/v1', api_key_header: 'X-APIKEY'}

describe('key locations', () => {
  it.each([
    [{}, undefined, false],
    [{api_key: 'sk_file_0123456789'}, 'file', true],
    [{api_key_keychain: 'live/api_key/0a1b2c3d'}, 'keychain', true],
  ] as const)('%j: %s', (fields, location, stored) => {
    const profile = {...base, ...fields}
    expect(keyLocation(profile, 'api_key')).toBe(location)
    expect(hasStoredKey(profile, 'api_key')).toBe(stored)
  })

  it('reads from the keychain only keys that are not at hand (file or environment)', () => {
    const profile = {...base, api_key_keychain: 'live/api_key/0a1b2c3d', proxy_key_keychain: 'live/proxy_key/4e5f6a7b'}
    expect(keysToReadFromKeychain(profile)).toEqual(['api_key', 'proxy_key'])
    expect(keysToReadFromKeychain({...profile, api_key: 'sk_from_PAYTX_API_KEY'})).toEqual(['proxy_key'])
    expect(keysToReadFromKeychain({...base, api_key: 'sk_file_0123456789'})).toEqual([])
    expect(keychainAccounts(profile)).toEqual(['live/api_key/0a1b2c3d', 'live/proxy_key/4e5f6a7b'])
    expect(keychainAccounts(undefined)).toEqual([])
  })
})

describe('placing keys without the keychain', () => {
  it('--insecure-storage puts the keys given in the file and asks no keychain', async () => {
    const profile = {...base}
    const placement = await placeKeys(profile, {api_key: 'sk_live_0123456789abcdef'}, {profileName: 'live', insecure: true})
    expect(profile).toEqual({...base, api_key: 'sk_live_0123456789abcdef'})
    expect(placement).toEqual({placed: [{field: 'api_key', location: 'file', moved: false, fallback: false}], staleAccounts: []})
  })

  it('keeps the emulator’s published test keys in the file: they are no secret', async () => {
    const profile = builtinLocalProfile()
    const placement = await placeKeys(profile, {}, {profileName: 'local', insecure: false})
    expect(profile).toEqual(builtinLocalProfile())
    expect(placement.keychainProblem).toBeUndefined()
    expect(placement.placed.every(({location, moved}) => location === 'file' && !moved)).toBe(true)
  })

  it('a key given for the file replaces its keychain entry, which is left to delete', async () => {
    const profile = {...base, api_key_keychain: 'live/api_key/0a1b2c3d'}
    const placement = await placeKeys(profile, {api_key: 'sk_live_new_0123456789'}, {profileName: 'live', insecure: true})
    expect(profile).toEqual({...base, api_key: 'sk_live_new_0123456789'})
    expect(placement.staleAccounts).toEqual(['live/api_key/0a1b2c3d'])
  })
})

describe('profile views', () => {
  it('show keys redacted with where they live, and a keychain key that could not be read as such', () => {
    const view = profileView('live', {...base, api_key: 'sk_live_0123456789abcdef', api_key_keychain: 'live/api_key/0a1b2c3d', proxy_key_keychain: 'live/proxy_key/4e5f6a7b'}, {active: false, builtin: false})
    expect(view).toMatchObject({api_key: 'sk_l…cdef', api_key_location: 'keychain', proxy_key: '(in the keychain, not readable now)', proxy_key_location: 'keychain'})
    expect(profileView('local', builtinLocalProfile(), {active: true, builtin: true})).toMatchObject({api_key_location: 'built-in', proxy_key_location: 'built-in'})
  })

  it('say where the stored key lives when an environment variable replaces it', () => {
    const withEnv = {...base, api_key: 'sk_from_PAYTX_API_KEY_01'}
    expect(profileView('live', withEnv, {active: true, builtin: false, envOverrides: ['PAYTX_API_KEY'], stored: base}).api_key_location).toBeUndefined()
    expect(profileView('live', withEnv, {active: true, builtin: false, envOverrides: ['PAYTX_API_KEY'], stored: {...base, api_key_keychain: 'a'}}).api_key_location).toBe('keychain')
  })
})
