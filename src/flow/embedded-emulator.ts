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
import {mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import type {EmulatorOptions, RunningEmulator} from '../emulator/index.js'
import {ListenError} from '../http/listen.js'
import {readRegularFileSync} from '../input/input-file.js'
import {paytxDataDir} from '../storage/data-folder.js'
import {storageFailure} from '../storage/storage-trouble.js'
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
const PROBE_TIMEOUT_MS = 500

/** What listens at an address: nothing, an emulator that lives only as long as its command, or something to use. */
export type ListenerKind = 'nothing' | 'command-emulator' | 'usable'

/** True when something accepts TCP connections at host:port (no request is sent). */
async function isListening(host: string, port: number, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
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

/**
 * Where a command's emulator notes that it holds an address: a file named after the address
 * holding its process id, in the data folder. Read without sending anything to the address, so
 * that a server the profile points at sees no request it did not ask for.
 */
function markerPath(dataDir: string, host: string, port: number): string {
  return join(dataDir, 'command-emulators', `${host.replace(/[^\w.-]/g, '_')}-${port}`)
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export async function probeListener(host: string, port: number, dataDir: string): Promise<ListenerKind> {
  if (!(await isListening(host, port))) return 'nothing'
  let pid: number
  try {
    // A pid is a few digits: anything else there (a FIFO, a huge file) is no marker of ours.
    pid = Number(readRegularFileSync(markerPath(dataDir, host, port), 64).toString('utf8'))
  } catch {
    return 'usable'
  }
  return Number.isInteger(pid) && pid !== process.pid && isAlive(pid) ? 'command-emulator' : 'usable'
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

export async function ensureEmulator(profile: ResolvedProfile, env: NodeJS.ProcessEnv = process.env, options: {store?: string} = {}): Promise<EmbeddedEmulator> {
  const nothing: EmbeddedEmulator = {started: false, stop: async () => undefined}
  const address = embeddableAddress(profile)
  if (!address) return nothing

  const first = shared === undefined
  if (!shared) shared = {emulator: startIfNeeded(profile, address, env, options.store), users: 0}
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

/**
 * The profile as the service client should use it: its addresses that point where the emulator
 * was looked for now point at the emulator this process runs, if any (an address set elsewhere,
 * such as PAYTX_H2H_URL to another server, is kept).
 */
export function pointedAt(resolved: ResolvedProfile, emulator: EmbeddedEmulator): ResolvedProfile {
  if (!emulator.url) return resolved
  const from = new URL(resolved.profile.base_url).origin
  const to = new URL(emulator.url).origin
  const moved = (address: string) => {
    const url = new URL(address)
    if (url.origin !== from) return address
    return `${to}${address.startsWith(from) ? address.slice(from.length) : `${url.pathname}${url.search}`}`
  }
  const {h2h_url: h2hUrl} = resolved.profile
  return {...resolved, profile: {...resolved.profile, base_url: moved(resolved.profile.base_url), ...(h2hUrl ? {h2h_url: moved(h2hUrl)} : {})}}
}

async function startIfNeeded(profile: ResolvedProfile, address: {host: string; port: number}, env: NodeJS.ProcessEnv, store?: string): Promise<RunningEmulator | undefined> {
  const dataDir = paytxDataDir(env)
  const listener = await probeListener(address.host, address.port, dataDir)
  if (listener === 'usable') return undefined
  const {startEmulator} = await import('../emulator/index.js')
  const {prepareDefaultStorePath} = await import('../emulator/store/index.js')
  const {profile: settings} = profile
  const readingOptions = await adoptedReadings(profile)
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
      store: store ?? prepareDefaultStorePath(env),
      lifetime: 'command',
      ...readingOptions,
    })
  if (listener === 'command-emulator') return start(0)
  let emulator: RunningEmulator
  try {
    emulator = await start(address.port)
  } catch (error) {
    if (!(error instanceof ListenError && error.problem === 'port-in-use')) throw error
    // Another process took the address between the probe and the start.
    return (await probeListener(address.host, address.port, dataDir)) === 'usable' ? undefined : start(0)
  }
  return holdingAddress(emulator, markerPath(dataDir, address.host, address.port))
}

/**
 * The profile's `emulator_readings` (a file of `emulator verify --save`) as emulator options; the
 * API key header stays the profile's, which is where this profile sends the key.
 */
async function adoptedReadings(profile: ResolvedProfile): Promise<Omit<EmulatorOptions, 'apiKeyHeader'>> {
  const file = profile.profile.emulator_readings
  if (!file) return {}
  const {loadReadingsFile, readingsEmulatorOptions} = await import('../emulator-readings/readings.js')
  const {apiKeyHeader: _profilesOwn, ...adopted} = readingsEmulatorOptions(loadReadingsFile(file, `emulator_readings of profile "${profile.name}"`))
  return adopted
}

/** Notes that this process holds the address until the emulator closes. */
async function holdingAddress(emulator: RunningEmulator, marker: string): Promise<RunningEmulator> {
  try {
    mkdirSync(join(marker, '..'), {recursive: true, mode: 0o700})
    writeFileSync(marker, String(process.pid), {mode: 0o600})
  } catch (error) {
    // A part written is no marker: removed, when the disk lets it.
    try {
      rmSync(marker, {force: true})
    } catch {}
    await emulator.close()
    throw storageFailure(error, "the embedded emulator's address marker", marker)
  }
  return {
    ...emulator,
    async close() {
      rmSync(marker, {force: true})
      await emulator.close()
    },
  }
}
