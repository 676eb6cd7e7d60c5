import {DEFAULT_API_KEY_HEADER} from '../api/contract.js'
import {type Environment, type Profile} from '../api/profile.js'
import {EMULATOR_DEFAULTS, emulatorBaseUrl} from '../test-mode/emulator-defaults.js'

export {ENVIRONMENTS, type Environment, type Profile} from '../api/profile.js'

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
