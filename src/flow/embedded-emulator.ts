/**
 * The embedded default: a command on a `local` profile that finds no emulator it can rely on at
 * the profile's address runs one in its own process, over the shared store in the data folder,
 * for as long as the command runs. So ids from one command can be looked up by the next, and
 * what falls due in between (a settlement, a webhook) happens then.
 *
 * One that another command runs for its own lifetime may stop at any moment, so it is not relied
 * on: this process then runs its own on a free port over the same store. A standalone
 * `paytx emulator start`, or anything else listening there, is used as it is. Any profile that
 * is not `local` is left alone.
 */
import type {RunningEmulator} from '../emulator/index.js'
import type {ResolvedProfile} from '../profiles/resolve.js'

export interface EmbeddedEmulator {
  /** True when this call started the emulator (it stops once every user has stopped it). */
  started: boolean
  /** The address of the emulator this process runs, when it runs one. */
  url?: string
  proxyUrl?: string
  stop(): Promise<void>
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1'])
const PROBE_TIMEOUT_MS = 1_000

/** What listens at an address: nothing, an emulator that lives only as long as its command, or something to use. */
export type ListenerKind = 'nothing' | 'command-emulator' | 'usable'

/** Asks the address for the emulator's health: who answers, and whether it is there to stay. */
export async function probeListener(host: string, port: number, timeoutMs = PROBE_TIMEOUT_MS): Promise<ListenerKind> {
  const {request} = await import('node:http')
  return new Promise((resolve) => {
    const probe = request({host, port, path: '/_emulator/health', method: 'GET', timeout: timeoutMs}, (response) => {
      let text = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        if (text.length < 4096) text += chunk
      })
      response.on('end', () => {
        try {
          const health = JSON.parse(text) as {emulator?: string; lifetime?: string}
          resolve(health.emulator === 'paytx' && health.lifetime === 'command' ? 'command-emulator' : 'usable')
        } catch {
          resolve('usable')
        }
      })
      response.on('error', () => resolve('usable'))
    })
    // Something that accepts the connection but does not answer is still something listening.
    probe.on('timeout', () => {
      probe.destroy()
      resolve('usable')
    })
    probe.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED' ? 'nothing' : 'usable'))
    probe.end()
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

/** The emulator this process runs, shared by every part of the command that asks for one. */
let shared: {emulator: Promise<RunningEmulator | undefined>; users: number} | undefined

export async function ensureEmulator(profile: ResolvedProfile, env: NodeJS.ProcessEnv = process.env): Promise<EmbeddedEmulator> {
  const nothing: EmbeddedEmulator = {started: false, stop: async () => undefined}
  const address = embeddableAddress(profile)
  if (!address) return nothing

  const first = shared === undefined
  if (!shared) shared = {emulator: startIfNeeded(profile, address, env), users: 0}
  const current = shared
  let emulator: RunningEmulator | undefined
  try {
    emulator = await current.emulator
  } catch (error) {
    if (shared === current) shared = undefined
    throw error
  }
  if (!emulator) {
    if (shared === current) shared = undefined
    return nothing
  }
  current.users++
  let stopped = false
  return {
    started: first,
    url: emulator.url,
    proxyUrl: emulator.proxyUrl,
    async stop() {
      if (stopped) return
      stopped = true
      if (--current.users > 0) return
      if (shared === current) shared = undefined
      await emulator.close()
    },
  }
}

/** The profile as the service client should use it: pointed at the emulator this process runs, if any. */
export function pointedAt(resolved: ResolvedProfile, emulator: EmbeddedEmulator): ResolvedProfile {
  if (!emulator.url || !emulator.proxyUrl) return resolved
  return {...resolved, profile: {...resolved.profile, base_url: emulator.url, h2h_url: emulator.proxyUrl}}
}

async function startIfNeeded(profile: ResolvedProfile, address: {host: string; port: number}, env: NodeJS.ProcessEnv): Promise<RunningEmulator | undefined> {
  const listener = await probeListener(address.host, address.port)
  if (listener === 'usable') return undefined
  const {startEmulator} = await import('../emulator/index.js')
  const {prepareDefaultStorePath} = await import('../emulator/store-location.js')
  const {profile: settings} = profile
  const start = (port: number) =>
    startEmulator({
      host: address.host,
      port,
      apiKey: settings.api_key,
      apiKeyHeader: settings.api_key_header,
      proxyKey: settings.proxy_key,
      proxyId: settings.proxy_id,
      paymentProfileId: settings.payment_profile,
      organisation: settings.organisation,
      store: prepareDefaultStorePath(env),
      lifetime: 'command',
    })
  if (listener === 'command-emulator') return start(0)
  try {
    return await start(address.port)
  } catch (error) {
    if ((error as Error).name !== 'PortInUseError') throw error
    // Another process took the address between the probe and the start.
    return (await probeListener(address.host, address.port)) === 'usable' ? undefined : start(0)
  }
}
