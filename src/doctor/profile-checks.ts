/**
 * The profile in use: found, complete for what its commands send, and where each key lives (the
 * environment, the OS keychain, or the profile file and that file's mode). Keys are read only to
 * learn whether they can be; never shown.
 */
import {statSync} from 'node:fs'

import {KEYCHAIN_REFERENCE, KEY_FIELDS, KEY_NAMES, type KeyField} from '../profiles/key-fields.js'
import {ENVIRONMENT_PRESETS, type Profile} from '../profiles/presets.js'
import {describeProductionAddress} from '../profiles/production.js'
import {PROFILE_ENV_OVERRIDES, type ResolvedProfile} from '../profiles/resolve.js'
import {redactUrl} from '../secrets/redact-url.js'
import {type DoctorCheck, fail, octalMode, ok, warn} from './report.js'
import {shellWord} from './service-identity.js'

/** Fields a non-local profile needs, and what needs each. */
const NEEDED_FIELDS: {field: keyof Profile; usedBy: string}[] = [
  {field: 'h2h_url', usedBy: 'card tokenize'},
  {field: 'proxy_id', usedBy: 'card tokenize'},
  {field: 'organisation', usedBy: 'customer create'},
  {field: 'payment_profile', usedBy: 'transaction start'},
]

/** The profile file's mode before any command reads it (reading tightens a loose one). */
export function profileFileMode(path: string): number | undefined {
  try {
    return statSync(path).mode
  } catch {
    return undefined
  }
}

export function profileCheck(resolved: ResolvedProfile, builtin: boolean): DoctorCheck {
  const {name, profile, production} = resolved
  const where = `"${name}" (${profile.env}, ${redactUrl(profile.base_url, {asWritten: true})})`
  if (production?.by === 'address') {
    return warn(
      'profile',
      'Profile',
      `${where}: ${describeProductionAddress(production, redactUrl(production.address, {asWritten: true}))}, so every command treats it as production`,
      `Label it production (\`paytx profile add ${shellWord(name)} --env production\`), or point it at the ${production.label === 'local' ? 'emulator' : 'sandbox'} (--base-url, --h2h-url, or unset PAYTX_BASE_URL / PAYTX_H2H_URL).`,
    )
  }
  if (builtin) return ok('profile', 'Profile', `${where}, built in`)
  const missing = NEEDED_FIELDS.filter(({field}) => !profile[field])
  if (missing.length === 0) return ok('profile', 'Profile', where)
  const list = missing.map(({field, usedBy}) => `${field} (for ${usedBy})`).join(', ')
  return warn('profile', 'Profile', `${where} has no ${list}`, missingFieldsRemedy(name, profile.env, missing.map(({field}) => field)))
}

/** Known values (the environment's card proxy) as they are; the account's own through a variable to set first. */
function missingFieldsRemedy(name: string, env: Profile['env'], fields: (keyof Profile)[]): string {
  const variables: string[] = []
  const flags = fields.map((field) => {
    const flag = `--${field.replace('_', '-')}`
    if (field === 'h2h_url') return `${flag} ${ENVIRONMENT_PRESETS[env].h2h_url}`
    const variable = field.toUpperCase()
    variables.push(variable)
    return `${flag} "$${variable}"`
  })
  const setFirst = variables.length > 0 ? ` after setting ${variables.join(', ')} to your account's values` : ''
  return `Add them with \`paytx profile add ${shellWord(name)} ${flags.join(' ')}\`${setFirst}.`
}

function envVariableFor(field: KeyField): string {
  return Object.entries(PROFILE_ENV_OVERRIDES).find(([, value]) => value === field)![0]
}

export interface KeyCheckInput {
  resolved: ResolvedProfile
  builtin: boolean
  profilePath: string
  /** The file's mode as found, before this command read it. */
  fileMode: number | undefined
  /** Reads the keychain entries the profile names: the fields read, and why others could not be. */
  readKeychain: (profile: Profile) => Promise<{keys: Partial<Record<KeyField, string>>; unreadable: {field: KeyField; reason: string}[]}>
}

/** One check a key; fills the profile's keys from the keychain for the checks that follow. */
export async function keyChecks(input: KeyCheckInput): Promise<DoctorCheck[]> {
  const {resolved, builtin, profilePath, fileMode} = input
  const {profile, name} = resolved
  const fromKeychain = KEY_FIELDS.some((field) => !profile[field] && profile[KEYCHAIN_REFERENCE[field]]) ? await input.readKeychain(profile) : {keys: {}, unreadable: []}
  Object.assign(profile, fromKeychain.keys)
  return KEY_FIELDS.map((field) => {
    const id = field.replace('_', '-')
    const label = KEY_NAMES[field][0].toUpperCase() + KEY_NAMES[field].slice(1)
    const variable = envVariableFor(field)
    if (resolved.overrides.includes(variable as keyof typeof PROFILE_ENV_OVERRIDES)) return ok(id, label, `from ${variable} (environment)`)
    if (builtin) return ok(id, label, 'the emulator’s published test key (no secret)')
    const account = profile[KEYCHAIN_REFERENCE[field]]
    if (account) {
      const problem = fromKeychain.unreadable.find((entry) => entry.field === field)
      return problem
        ? fail(id, label, `in the OS keychain (entry "${account}"), but it cannot be read: ${problem.reason}`, `Unlock the keychain, or store the key again with \`paytx profile add ${shellWord(name)} --${id}-stdin\`.`)
        : ok(id, label, `in the OS keychain (entry "${account}")`)
    }
    if (profile[field]) {
      if (fileMode !== undefined && process.platform !== 'win32' && (fileMode & 0o077) !== 0) {
        return warn(id, label, `in ${profilePath}, which is ${octalMode(fileMode)}`, `chmod 600 '${profilePath}' (any paytx command that reads it also tightens it).`)
      }
      return ok(id, label, `in ${profilePath}${fileMode === undefined ? '' : ` (${octalMode(fileMode)})`}, not the keychain`)
    }
    const needed = field === 'api_key'
    const remedy = `Add it with \`printf '%s\\n' "$KEY" | paytx profile add ${shellWord(name)} --${id}-stdin\`, or set ${variable}.`
    return needed ? fail(id, label, 'none', remedy) : warn(id, label, 'none (card tokenize needs it)', remedy)
  })
}
