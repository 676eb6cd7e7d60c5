/**
 * The two keys of a profile and where each can live: in the profile file (`api_key`) or in the
 * OS keychain, the file then holding only the entry's account name (`api_key_keychain`). Kept
 * free of imports so that every command can ask it cheaply whether the keychain is needed.
 */
import type {Profile} from './presets.js'

export const KEY_FIELDS = ['api_key', 'proxy_key'] as const
export type KeyField = (typeof KEY_FIELDS)[number]

export const KEYCHAIN_REFERENCE = {api_key: 'api_key_keychain', proxy_key: 'proxy_key_keychain'} as const satisfies Record<KeyField, keyof Profile>

export const KEY_NAMES: Record<KeyField, string> = {api_key: 'API key', proxy_key: 'proxy key'}

export type KeyLocation = 'keychain' | 'file'

export function keyLocation(profile: Profile, field: KeyField): KeyLocation | undefined {
  if (profile[KEYCHAIN_REFERENCE[field]]) return 'keychain'
  return profile[field] ? 'file' : undefined
}

/** Whether the profile has this key stored, wherever it lives. */
export function hasStoredKey(profile: Profile | undefined, field: KeyField): boolean {
  return profile !== undefined && keyLocation(profile, field) !== undefined
}

/** Keys the profile holds in the keychain and does not have at hand (not in the file, not from the environment). */
export function keysToReadFromKeychain(profile: Profile): KeyField[] {
  return KEY_FIELDS.filter((field) => !profile[field] && profile[KEYCHAIN_REFERENCE[field]])
}
