/**
 * Where a profile's keys are kept. In the OS keychain when there is one: `profiles.json` then
 * holds only the entry's account name. In the 0600 profile file when the keychain cannot be used
 * (none running, a timeout, an error: said in one line), when asked for (`--insecure-storage`),
 * and for the emulator's published test keys, which are no secret. Keys found in the file by an
 * older paytx keep working and move to the keychain the next time the profile is written.
 */
import {randomBytes} from 'node:crypto'

import {EMULATOR_DEFAULTS} from '../test-mode/emulator-defaults.js'
import {KEYCHAIN_REFERENCE, KEY_FIELDS, type KeyField, type KeyLocation, keysToReadFromKeychain} from './key-fields.js'
import {KEYCHAIN_SERVICE, type KeychainAnswer, type KeychainOp, runKeychain} from './keychain.js'
import type {Profile} from './presets.js'

/** The OS keychain as paytx talks to it: operations in, one answer each out (keychain.ts). Tests pass a map. */
export interface KeyStorage {
  run(ops: readonly KeychainOp[]): Promise<KeychainAnswer[]>
}

export const osKeychain: KeyStorage = {run: runKeychain}

export interface KeychainRead {
  keys: Partial<Record<KeyField, string>>
  /** Keys that could not be read, and why. */
  unreadable: {field: KeyField; reason: string}[]
}

/** Reads the keys that `profile` keeps in the keychain, all in one keychain process. */
export async function readKeychainKeys(profile: Profile, keychain: KeyStorage = osKeychain): Promise<KeychainRead> {
  const fields = keysToReadFromKeychain(profile)
  const answers = await keychain.run(fields.map((field) => ({op: 'get', account: profile[KEYCHAIN_REFERENCE[field]]!})))
  const read: KeychainRead = {keys: {}, unreadable: []}
  fields.forEach((field, index) => {
    const answer = answers[index]
    if (!answer.ok) read.unreadable.push({field, reason: answer.reason})
    else if (answer.value === undefined) read.unreadable.push({field, reason: `it has no entry "${profile[KEYCHAIN_REFERENCE[field]]}" (removed, or the keychain is locked)`})
    else read.keys[field] = answer.value
  })
  return read
}

export interface KeyPlacement {
  /**
   * Keys this write put somewhere, and where: `moved` when it changed place (file to keychain or
   * back), `fallback` when it was meant for the keychain and went to the file.
   */
  placed: {field: KeyField; location: KeyLocation; moved: boolean; fallback: boolean}[]
  /** Why the keychain could not take keys that then went to the file. */
  keychainProblem?: string
  /** Keychain entries the profile no longer uses, to delete once the profile file is written. */
  staleAccounts: string[]
}

export interface PlaceKeysOptions {
  profileName: string
  /** `--insecure-storage`: every key of the profile in the profile file. */
  insecure: boolean
  keychain?: KeyStorage
}

const PUBLISHED_TEST_KEYS = new Set<string>([EMULATOR_DEFAULTS.apiKey, EMULATOR_DEFAULTS.proxyKey])

/**
 * Puts the keys given (and those an older paytx left in the file) where they belong, changing
 * `profile` to match: a key in the keychain leaves only its account name in the profile. Called
 * under the profile store's lock, so that two writers never split one profile's entries.
 */
export async function placeKeys(profile: Profile, given: Partial<Record<KeyField, string>>, options: PlaceKeysOptions): Promise<KeyPlacement> {
  const placement: KeyPlacement = {placed: [], staleAccounts: []}
  const toFile: {field: KeyField; value: string; moved: boolean; fallback: boolean}[] = []
  const toKeychain: {field: KeyField; value: string; account: string; moved: boolean}[] = []
  const fromKeychain: KeyField[] = []
  for (const field of KEY_FIELDS) {
    const account = profile[KEYCHAIN_REFERENCE[field]]
    const value = given[field] ?? profile[field]
    const moved = given[field] === undefined
    if (value === undefined) {
      if (account && options.insecure) fromKeychain.push(field)
    } else if (options.insecure || PUBLISHED_TEST_KEYS.has(value)) {
      toFile.push({field, value, moved: moved && account !== undefined, fallback: false})
    } else {
      toKeychain.push({field, value, account: account ?? newAccount(options.profileName, field), moved})
    }
  }

  if (fromKeychain.length > 0) {
    const read = await readKeychainKeys(profile, options.keychain)
    for (const field of fromKeychain) {
      if (read.keys[field] !== undefined) toFile.push({field, value: read.keys[field], moved: true, fallback: false})
    }
    if (read.unreadable.length > 0) placement.keychainProblem = read.unreadable[0].reason
  }

  const answers = await (options.keychain ?? osKeychain).run(toKeychain.map(({account, value}) => ({op: 'set', account, value})))
  toKeychain.forEach(({field, value, account, moved}, index) => {
    const answer = answers[index]
    if (answer.ok) {
      profile[KEYCHAIN_REFERENCE[field]] = account
      delete profile[field]
      placement.placed.push({field, location: 'keychain', moved, fallback: false})
    } else {
      placement.keychainProblem ??= answer.reason
      toFile.push({field, value, moved: false, fallback: true})
    }
  })

  for (const {field, value, moved, fallback} of toFile) {
    const account = profile[KEYCHAIN_REFERENCE[field]]
    if (account) placement.staleAccounts.push(account)
    delete profile[KEYCHAIN_REFERENCE[field]]
    profile[field] = value
    placement.placed.push({field, location: 'file', moved, fallback})
  }
  return placement
}

/** The keychain entries a profile uses. */
export function keychainAccounts(profile: Profile | undefined): string[] {
  if (!profile) return []
  return KEY_FIELDS.map((field) => profile[KEYCHAIN_REFERENCE[field]]).filter((account): account is string => Boolean(account))
}

/** What to say about an entry that could not be deleted: it still holds a key, so how to remove it by hand. */
export function describeLeftoverEntry({account, reason}: {account: string; reason: string}): string {
  return `Warning: could not delete the keychain entry "${account}" (service ${KEYCHAIN_SERVICE}): ${reason}. Remove it with \`secret-tool clear service ${KEYCHAIN_SERVICE} username ${account}\` or your keychain's own tool.`
}

/** Deletes keychain entries; resolves with the accounts that could not be deleted, and why. */
export async function deleteKeychainEntries(accounts: string[], keychain: KeyStorage = osKeychain): Promise<{account: string; reason: string}[]> {
  const answers = await keychain.run(accounts.map((account) => ({op: 'delete', account})))
  return accounts.flatMap((account, index) => {
    const answer = answers[index]
    return answer.ok ? [] : [{account, reason: answer.reason}]
  })
}

/**
 * A fresh account name: the profile and key for people reading the keychain, and a random part
 * so that two config folders (PAYTX_CONFIG_DIR) with a profile of the same name never share, or
 * delete, each other's entries.
 */
function newAccount(profileName: string, field: KeyField): string {
  return `${profileName}/${field}/${randomBytes(4).toString('hex')}`
}
