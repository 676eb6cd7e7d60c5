/**
 * A profile as the service client reads it: which environment, its addresses, ids and keys.
 * Defined here, below both the client (service.ts) and the profile store (profiles/), which
 * builds on it with presets, resolution and storage.
 */

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
  /** A `local` profile's embedded emulator answers with these readings (a file of `emulator verify --save`). */
  emulator_readings?: string
}
