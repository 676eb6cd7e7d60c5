/**
 * The embedded default: a `local` profile whose address is this machine with nothing listening
 * there gets the emulator started inside this process for the run, so `paytx flow` works on a
 * fresh clone with nothing else started. Any other profile is left alone.
 */
import type {ResolvedProfile} from '../profiles/resolve.js'

export interface EmbeddedEmulator {
  /** True when this call started the emulator (and `stop` will close it). */
  started: boolean
  /** The emulator's API address when started here. */
  url?: string
  stop(): Promise<void>
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1'])
const PROBE_TIMEOUT_MS = 500

/** True when something accepts TCP connections at host:port. */
export async function isListening(host: string, port: number, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  const {connect} = await import('node:net')
  return new Promise((resolve) => {
    const socket = connect({host, port})
    const done = (listening: boolean) => {
      socket.destroy()
      resolve(listening)
    }
    socket.setTimeout(timeoutMs, () => done(true))
    socket.once('connect', () => done(true))
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code !== 'ECONNREFUSED'))
  })
}

/** The host and port the emulator should take for this profile, or undefined when it is not for us to start. */
export function embeddableAddress(profile: ResolvedProfile): {host: string; port: number} | undefined {
  if (profile.profile.env !== 'local') return undefined
  let url: URL
  try {
    url = new URL(profile.profile.base_url)
  } catch {
    return undefined
  }
  if (url.protocol !== 'http:' || !LOOPBACK_HOSTS.has(url.hostname)) return undefined
  const host = url.hostname === 'localhost' ? '127.0.0.1' : url.hostname.replace(/^\[|\]$/g, '')
  return {host, port: url.port ? Number(url.port) : 80}
}

export async function ensureEmulator(profile: ResolvedProfile): Promise<EmbeddedEmulator> {
  const nothing: EmbeddedEmulator = {started: false, stop: async () => undefined}
  const address = embeddableAddress(profile)
  if (!address || (await isListening(address.host, address.port))) return nothing

  const {startEmulator} = await import('../emulator/index.js')
  const {profile: settings} = profile
  try {
    const emulator = await startEmulator({
      host: address.host,
      port: address.port,
      apiKey: settings.api_key,
      apiKeyHeader: settings.api_key_header,
      proxyKey: settings.proxy_key,
      proxyId: settings.proxy_id,
      paymentProfileId: settings.payment_profile,
      organisation: settings.organisation,
    })
    return {started: true, url: emulator.url, stop: () => emulator.close()}
  } catch (error) {
    // Another process took the address between the probe and the start: use that one.
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE' || (await isListening(address.host, address.port))) return nothing
    throw error
  }
}
