/**
 * The one rule that decides production: where a command's requests go, not what a profile is
 * called or labelled. A profile (after flags and PAYTX_* variables are applied) is production
 * when its label says so, or when its service or card proxy address names a production host in
 * any spelling: upper case, a trailing dot, an explicit port, a user name and password, any path.
 */
import type {Environment, Profile} from './presets.js'
import {ENVIRONMENT_PRESETS} from './presets.js'

/** The hosts of the production service and its card proxy (api-notes.md). */
export const PRODUCTION_HOSTS: readonly string[] = [ENVIRONMENT_PRESETS.production.base_url, ENVIRONMENT_PRESETS.production.h2h_url!].map(
  (address) => new URL(address).hostname,
)

/** The profile fields that hold an address paytx sends requests to. */
export const ADDRESS_FIELDS = ['base_url', 'h2h_url'] as const satisfies readonly (keyof Profile)[]
export type AddressField = (typeof ADDRESS_FIELDS)[number]

/** Why a profile is production: its label, or an address of it (the first that names a production host). */
export type ProductionReason = {by: 'label'} | {by: 'address'; field: AddressField; address: string; label: Environment}

/** A host name as DNS reads it: lower case, without the trailing dots that name the root. */
function canonicalHost(hostname: string): string {
  return hostname.toLowerCase().replace(/\.+$/, '')
}

/**
 * A production host named in text that is not a URL a client could parse: read as a host name
 * between characters that cannot be part of one. Such an address fails before anything is sent,
 * but it is still named as production wherever it is shown.
 */
function namesProductionHostLoosely(text: string): boolean {
  const lower = text.toLowerCase()
  return PRODUCTION_HOSTS.some((host) => {
    for (let at = lower.indexOf(host); at !== -1; at = lower.indexOf(host, at + 1)) {
      const before = lower[at - 1]
      const after = lower.slice(at + host.length).replace(/^\.+/, '')[0]
      if ((before === undefined || !/[a-z0-9.-]/.test(before)) && (after === undefined || !/[a-z0-9-]/.test(after))) return true
    }
    return false
  })
}

/** Whether requests to `address` go to a production host, however the address is spelt. */
export function isProductionAddress(address: string | undefined): boolean {
  if (!address) return false
  let hostname: string
  try {
    // The WHATWG parser is the one paytx's clients send with: it lowers the case, decodes
    // percent-escapes in the host, reads `\` as `/` and drops the user name, the password and the port.
    hostname = new URL(address.trim()).hostname
  } catch {
    return namesProductionHostLoosely(address)
  }
  return PRODUCTION_HOSTS.includes(canonicalHost(hostname))
}

/** Whether the profile is production, and why; undefined when it is not. */
export function productionReason(profile: Pick<Profile, 'env' | AddressField>): ProductionReason | undefined {
  if (profile.env === 'production') return {by: 'label'}
  const field = ADDRESS_FIELDS.find((name) => isProductionAddress(profile[name]))
  return field ? {by: 'address', field, address: profile[field]!, label: profile.env} : undefined
}

/** Which address of a profile names a production host, in words: `its service address … is a production host`. */
export function productionAddressPhrase(reason: Extract<ProductionReason, {by: 'address'}>, shownAddress: string): string {
  const what = reason.field === 'base_url' ? 'service address' : 'card proxy address'
  return `its ${what} ${shownAddress} is a production host`
}

/** What a person reads about a profile that is production by address though labelled otherwise. */
export function describeProductionAddress(reason: Extract<ProductionReason, {by: 'address'}>, shownAddress: string): string {
  return `it is labelled ${reason.label}, but ${productionAddressPhrase(reason, shownAddress)}`
}
