/**
 * The emulator's defaults. The built-in `local` profile is derived from these, so that after
 * `paytx emulator start` every command works with no set-up. Kept free of imports: the profile
 * code reads it on every start.
 */
export const EMULATOR_DEFAULTS = {
  host: '127.0.0.1',
  port: 4010,
  /** The card proxy stands in on the same server under this base path. */
  proxyBasePath: '/h2h',
  apiKey: 'sk_test_paytx_emulator_local_key',
  proxyKey: 'pk_test_paytx_emulator_proxy_key',
  proxyId: '4010000000000001',
  organisation: '0a0f2c55-6c8e-4c51-9b0e-3e7a1d000001',
  paymentProfile: '7d3c2a10-5b1e-4f6a-8c2d-9e0b4d000001',
  settleAfterMs: 3_000,
  pendingForMs: 5_000,
  abandonAfterMs: 7 * 60_000,
} as const

export function emulatorBaseUrl(host: string = EMULATOR_DEFAULTS.host, port: number = EMULATOR_DEFAULTS.port): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`
}
