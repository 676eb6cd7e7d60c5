/** The warning for keys a profile keeps in the keychain that could not be read. */
import {KEY_NAMES} from '../profiles/key-fields.js'
import type {KeychainRead} from '../profiles/key-storage.js'

/** One line: which keys, why, and what to do (`invokedAs` names the command as the user typed it). */
export function describeUnreadableKeys(profileName: string, unreadable: KeychainRead['unreadable'], invokedAs: string): string {
  const names = unreadable.map(({field}) => KEY_NAMES[field]).join(' and ')
  const variables = unreadable.map(({field}) => (field === 'api_key' ? 'PAYTX_API_KEY' : 'PAYTX_PROXY_KEY')).join(' / ')
  return `Warning: could not read the ${names} of profile "${profileName}" from the keychain: ${unreadable[0].reason}. Unlock the keychain, set ${variables} for this run, or store the key again with \`${invokedAs} profile add ${profileName}\`.`
}
