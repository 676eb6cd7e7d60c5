/**
 * Profiles as shown to a person or a script: keys always redacted (first 4 and last 4 at most),
 * addresses through redactUrl (a base URL can carry `user:password@` or `?key=`), and which
 * values environment variables replace.
 */
import {type KeyField, type KeyLocation, keyLocation} from '../profiles/key-fields.js'
import type {Profile} from '../profiles/presets.js'
import {type ProductionReason, productionReason} from '../profiles/production.js'
import {PROFILE_ENV_OVERRIDES} from '../profiles/resolve.js'
import {redactUrl} from '../secrets/redact-url.js'
import {redactKey} from '../secrets/redact.js'
import {type TableColumn, type TableOptions, renderTable, table} from './table.js'

export interface ProfileView {
  name: string
  active: boolean
  builtin: boolean
  /** Environment variables that replace stored values when this profile is used. */
  env_overrides: string[]
  /** Where requests go: `production` when an address is a production host, whatever the label. */
  env: string
  /** The label the profile is stored with, when its addresses make it production all the same. */
  labelled_env?: string
  /** The address that makes a profile production against its label. */
  production_address?: string
  base_url: string
  h2h_url?: string
  proxy_id?: string
  organisation?: string
  payment_profile?: string
  api_key_header: string
  api_key: string
  proxy_key: string
  /** Where the stored key lives: the OS keychain, the profile file, or paytx itself (the built-in local profile). */
  api_key_location?: KeyLocation | 'built-in'
  proxy_key_location?: KeyLocation | 'built-in'
}

/** A key as shown: redacted, or where it is when it could not be read. */
function shownKey(profile: Profile, field: KeyField): string {
  if (profile[field]) return redactKey(profile[field])
  return keyLocation(profile, field) === 'keychain' ? '(in the keychain, not readable now)' : redactKey(undefined)
}

const LOCATION_NOTES: Record<KeyLocation | 'built-in', string> = {keychain: 'keychain', file: 'profile file', 'built-in': 'built-in'}

export function profileView(
  name: string,
  profile: Profile,
  options: {
    active: boolean
    builtin: boolean
    envOverrides?: readonly (keyof typeof PROFILE_ENV_OVERRIDES)[]
    /** The profile as stored, when `profile` has environment variables applied: where its keys live. */
    stored?: Profile
    /** Why the profile is production, when resolution already decided it (else decided here from `profile`). */
    production?: ProductionReason
  },
): ProfileView {
  const production = options.production ?? productionReason(profile)
  return {
    name,
    active: options.active,
    builtin: options.builtin,
    env_overrides: [...(options.envOverrides ?? [])],
    env: production ? 'production' : profile.env,
    ...(production?.by === 'address' ? {labelled_env: production.label, production_address: redactUrl(production.address, {asWritten: true})} : {}),
    // A password or a `?key=` in an address is a secret like the keys: shown redacted, in --json too.
    base_url: redactUrl(profile.base_url, {asWritten: true}),
    ...(profile.h2h_url === undefined ? {} : {h2h_url: redactUrl(profile.h2h_url, {asWritten: true})}),
    ...(profile.proxy_id === undefined ? {} : {proxy_id: profile.proxy_id}),
    ...(profile.organisation === undefined ? {} : {organisation: profile.organisation}),
    ...(profile.payment_profile === undefined ? {} : {payment_profile: profile.payment_profile}),
    api_key_header: profile.api_key_header,
    api_key: shownKey(profile, 'api_key'),
    proxy_key: shownKey(profile, 'proxy_key'),
    ...locationOf('api_key'),
    ...locationOf('proxy_key'),
  }

  function locationOf(field: KeyField): Partial<ProfileView> {
    const location = options.builtin ? (profile[field] ? 'built-in' : undefined) : keyLocation(options.stored ?? profile, field)
    return location ? {[`${field}_location`]: location} : {}
  }
}

function fromEnv(view: ProfileView, field: keyof Profile): string {
  const variable = view.env_overrides.find((name) => PROFILE_ENV_OVERRIDES[name as keyof typeof PROFILE_ENV_OVERRIDES] === field)
  return variable ? `  [env: ${variable}]` : ''
}

export function renderProfile(view: ProfileView, options: {width?: number} = {}): string {
  const show = (field: keyof Profile & keyof ProfileView) => (view[field] === undefined ? '(not set)' : `${view[field]}${fromEnv(view, field)}`)
  return table([
    ['Profile', `${view.name}${view.active ? '  (active)' : ''}${view.builtin ? '  (built-in)' : ''}`],
    ['Environment', environmentShown(view)],
    ['Base URL', show('base_url')],
    ['H2H URL', show('h2h_url')],
    ['Proxy id', show('proxy_id')],
    ['Organisation', show('organisation')],
    ['Payment profile', show('payment_profile')],
    ['API key header', view.api_key_header],
    ['API key', `${show('api_key')}${storedIn(view.api_key_location)}`],
    ['Proxy key', `${show('proxy_key')}${storedIn(view.proxy_key_location)}`],
  ], options)
}

/** `production`, and why when the label says otherwise. */
function environmentShown(view: ProfileView): string {
  // The address itself is on its own row (Base URL or H2H URL): this one names which, and fits 80 columns.
  if (!view.labelled_env) return view.env
  const which = view.production_address === view.h2h_url && view.production_address !== view.base_url ? 'card proxy' : 'service'
  return `${view.env} (by its ${which} address; labelled ${view.labelled_env})`
}

function storedIn(location: ProfileView['api_key_location']): string {
  return location ? `  (${LOCATION_NOTES[location]})` : ''
}

// A name is what `profile use` takes: never cut. An address is cut only inside its path (never
// in its host or port), else dropped; the redacted key goes first, then the address. A name too
// long for the narrowest row (at 40 columns) turns every row into a block titled by its name.
const PROFILE_LIST_COLUMNS: TableColumn[] = [
  {header: 'ACTIVE'},
  {header: 'NAME', id: true},
  {header: 'ENV', shrink: 'wrap'},
  {header: 'BASE URL', shrink: 'url', priority: 3},
  {header: 'API KEY', priority: 5},
  {header: 'OVERRIDES', shrink: 'wrap', priority: 4},
]

/** A row per profile: `*` marks the active one, `[env]` the environment variables overriding it. */
export function renderProfileList(views: ProfileView[], options: TableOptions): string {
  const rows = views.map((view) => [
    view.active ? '*' : '',
    view.name,
    view.labelled_env ? `${view.env} (labelled ${view.labelled_env})` : view.env,
    view.base_url,
    view.api_key,
    view.env_overrides.length > 0 ? `[env] ${view.env_overrides.join(', ')}` : '',
  ])
  return renderTable(PROFILE_LIST_COLUMNS, rows, {...options, tooNarrow: 'blocks', blockTitle: 1})
}
