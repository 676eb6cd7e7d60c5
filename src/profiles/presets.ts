import {DEFAULT_API_KEY_HEADER} from '../api/contract.js'
import {EMULATOR_DEFAULTS, emulatorBaseUrl} from '../test-mode/emulator-defaults.js'

export const ENVIRONMENTS = ['local', 'sandbox', 'production'] as const
export type Environment = (typeof ENVIRONMENTS)[number]

export interface Profile {
  env: Environment
  base_url: string
  h2h_url?: string
  proxy_id?: string
  organisation?: string
  payment_profile?: string
  api_key_header: string
  api_key?: string
  proxy_key?: string
  /** The keychain account (service "paytx") that holds the API key, when the file does not. */
  api_key_keychain?: string
  /** The keychain account (service "paytx") that holds the proxy key, when the file does not. */
  proxy_key_keychain?: string
}

/** A profile as named to a person: which one, and against which environment. */
export interface ProfileLabel {
  name: string
  env: Environment
}

export const LOCAL_PROFILE_NAME = 'local'

/** The known addresses of each environment (api-notes.md); every one stays a profile setting. */
export const ENVIRONMENT_PRESETS: Record<Environment, Pick<Profile, 'base_url' | 'h2h_url'>> = {
  local: {
    base_url: emulatorBaseUrl(),
    h2h_url: `${emulatorBaseUrl()}${EMULATOR_DEFAULTS.proxyBasePath}`,
  },
  sandbox: {base_url: 'https://sandbox.spryngpayments.com/v1', h2h_url: 'https://test-tgapi.tokenex.com'},
  production: {base_url: 'https://api.spryngpayments.com/v1', h2h_url: 'https://tgapi.tokenex.com'},
}

/** The `local` profile that exists with no set-up: the emulator at its default address. */
export function builtinLocalProfile(): Profile {
  return {
    env: 'local',
    ...ENVIRONMENT_PRESETS.local,
    proxy_id: EMULATOR_DEFAULTS.proxyId,
    organisation: EMULATOR_DEFAULTS.organisation,
    payment_profile: EMULATOR_DEFAULTS.paymentProfile,
    api_key_header: DEFAULT_API_KEY_HEADER,
    api_key: EMULATOR_DEFAULTS.apiKey,
    proxy_key: EMULATOR_DEFAULTS.proxyKey,
  }
}
