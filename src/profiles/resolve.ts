/**
 * Which profile a command runs against, and the environment variables that override it for CI:
 * `--profile` beats PAYTX_PROFILE beats the active profile; PAYTX_API_KEY, PAYTX_PROXY_KEY,
 * PAYTX_BASE_URL and PAYTX_H2H_URL override the stored values. Then the production rule
 * (production.ts) is applied to the addresses the command will send to.
 */
import {InputError} from '../errors.js'
import type {Profile} from './presets.js'
import {type ProductionReason, productionReason} from './production.js'
import type {ProfileStore} from './store.js'

export const PROFILE_ENV_OVERRIDES = {
  PAYTX_API_KEY: 'api_key',
  PAYTX_PROXY_KEY: 'proxy_key',
  PAYTX_BASE_URL: 'base_url',
  PAYTX_H2H_URL: 'h2h_url',
} as const satisfies Record<string, keyof Profile>

export interface ResolvedProfile {
  name: string
  profile: Profile
  /** Environment variables that replaced stored values. */
  overrides: (keyof typeof PROFILE_ENV_OVERRIDES)[]
  /**
   * Why the profile is production, when it is. `profile.env` is then `production` whatever the
   * profile is labelled (the label, when the addresses overrule it, is `production.label`), so
   * that every check of the environment (the guard, the flow's defaults, the embedded emulator,
   * verify's refusal) follows where the requests go.
   */
  production?: ProductionReason
}

export function envOverrides(env: NodeJS.ProcessEnv): (keyof typeof PROFILE_ENV_OVERRIDES)[] {
  return (Object.keys(PROFILE_ENV_OVERRIDES) as (keyof typeof PROFILE_ENV_OVERRIDES)[]).filter((name) => Boolean(env[name]))
}

export function resolveProfile(
  store: ProfileStore,
  options: {name?: string; env?: NodeJS.ProcessEnv; overrides?: Partial<Pick<Profile, 'base_url' | 'h2h_url'>>} = {},
): ResolvedProfile {
  const env = options.env ?? process.env
  const data = store.read()
  const name = options.name || env.PAYTX_PROFILE || store.activeName(data)
  const stored = store.get(name, data)
  if (!stored) {
    const known = store.list(data).map((entry) => entry.name)
    throw new InputError(`No profile named "${name}". Known profiles: ${known.join(', ')}.`, {
      flag: options.name ? '--profile' : undefined,
      remedy: {kind: 'add-profile', profile: name},
    })
  }
  const profile: Profile = {...stored}
  const overrides = envOverrides(env)
  for (const variable of overrides) profile[PROFILE_ENV_OVERRIDES[variable]] = env[variable]!
  // A command's own address flag comes last, and the production rule sees it too.
  Object.assign(profile, Object.fromEntries(Object.entries(options.overrides ?? {}).filter(([, value]) => value !== undefined)))
  return withProductionRule({name, profile, overrides})
}

/** The resolved profile with the production rule applied to its addresses (see ResolvedProfile.production). */
export function withProductionRule(resolved: Omit<ResolvedProfile, 'production'>): ResolvedProfile {
  const production = productionReason(resolved.profile)
  if (!production) return resolved
  if (production.by === 'label') return {...resolved, production}
  return {...resolved, profile: {...resolved.profile, env: 'production'}, production}
}
