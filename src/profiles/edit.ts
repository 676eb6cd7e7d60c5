/**
 * What `paytx profile add` does to a profile: presets fill the addresses of an environment,
 * re-adding an existing name changes only what was given, and addresses are checked before
 * anything is written.
 */
import {DEFAULT_API_KEY_HEADER} from '../api/contract.js'
import {InputError} from '../errors.js'
import {isAbsoluteHttpUrl} from '../http/url.js'
import {redactUrl} from '../secrets/redact-url.js'
import {ENVIRONMENTS, ENVIRONMENT_PRESETS, type Environment, LOCAL_PROFILE_NAME, type Profile, builtinLocalProfile} from './presets.js'
import {PROFILE_NAME_PATTERN, type StoreData} from './store.js'

export type ProfileChanges = Partial<Profile>

export function isEnvironment(value: string): value is Environment {
  return (ENVIRONMENTS as readonly string[]).includes(value)
}

/** A profile named after an environment (`sandbox`, `production`) gets that environment. */
export function environmentFromName(name: string): Environment | undefined {
  return isEnvironment(name) ? name : undefined
}

export function checkProfileName(name: string): void {
  if (!PROFILE_NAME_PATTERN.test(name)) {
    throw new InputError(`Profile name "${name}" is not allowed: use letters, digits, "_", "." and "-" (at most 64, starting with a letter or digit).`, {
      flag: 'name',
    })
  }
}

const URL_FLAGS = {base_url: '--base-url', h2h_url: '--h2h-url'} as const

export function checkProfileUrls(changes: ProfileChanges): void {
  for (const [field, flag] of Object.entries(URL_FLAGS) as [keyof typeof URL_FLAGS, string][]) {
    const value = changes[field]
    if (value === undefined) continue
    if (!isAbsoluteHttpUrl(value)) {
      throw new InputError(`${flag} must be an absolute http(s) URL, e.g. https://sandbox.example.com/v1 (got "${redactUrl(value)}").`, {flag})
    }
  }
  if (changes.api_key_header !== undefined && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(changes.api_key_header)) {
    throw new InputError(`--api-key-header must be an HTTP header name such as X-APIKEY (got "${changes.api_key_header}").`, {flag: '--api-key-header'})
  }
}

/**
 * The profile after applying `changes` to `existing` (undefined for a new one). An address that
 * was its old environment's preset follows a change of environment; one set by hand stays.
 */
export function applyProfileChanges(existing: Profile | undefined, env: Environment, changes: ProfileChanges): Profile {
  const preset = ENVIRONMENT_PRESETS[env]
  const address = (field: 'base_url' | 'h2h_url'): string | undefined => {
    if (changes[field] !== undefined) return changes[field]
    if (!existing) return preset[field]
    const followsPreset = existing[field] === undefined || existing[field] === ENVIRONMENT_PRESETS[existing.env]?.[field]
    return followsPreset ? preset[field] : existing[field]
  }
  // A new local profile points at the emulator, whose ids and keys are known.
  const base: Partial<Profile> = existing ?? (env === 'local' ? builtinLocalProfile() : {})
  const profile: Profile = {
    ...base,
    ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)),
    env,
    base_url: address('base_url')!,
    api_key_header: changes.api_key_header ?? base.api_key_header ?? DEFAULT_API_KEY_HEADER,
  }
  const h2h = address('h2h_url')
  if (h2h === undefined) delete profile.h2h_url
  else profile.h2h_url = h2h
  return profile
}

/** Fails with an input error unless `name` has stored data to remove. */
export function checkRemovable(data: StoreData, name: string): void {
  if (Object.hasOwn(data.profiles, name)) return
  const known = [...new Set([LOCAL_PROFILE_NAME, ...Object.keys(data.profiles)])].sort()
  throw new InputError(
    name === LOCAL_PROFILE_NAME
      ? 'The built-in "local" profile cannot be removed (it has no stored changes).'
      : `No profile named "${name}". Known profiles: ${known.join(', ')}.`,
    {flag: 'name'},
  )
}

/**
 * Removes a profile from the stored data. The built-in `local` profile cannot go: removing it
 * only drops stored changes to it. The active profile falls back to `local`.
 */
export function removeProfileFrom(data: StoreData, name: string): void {
  delete data.profiles[name]
  if (data.active === name && name !== LOCAL_PROFILE_NAME) delete data.active
}
