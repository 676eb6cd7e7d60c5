/**
 * All of `paytx doctor`'s checks, in the order a person reads them: this machine, the profile
 * and its keys, the service and card proxy (with the clock), the emulator's store, ports and
 * browser. Independent network checks run side by side. Knows nothing of oclif.
 */
import {join} from 'node:path'

import {defaultStorePath, paytxDataDir} from '../emulator/store/index.js'
import type {KeyField} from '../profiles/key-fields.js'
import type {Profile} from '../profiles/presets.js'
import {type ResolvedProfile, resolveProfile} from '../profiles/resolve.js'
import {PROFILE_FILE_NAME, type ProfileStore} from '../profiles/store.js'
import {EMULATOR_DEFAULTS} from '../test-mode/emulator-defaults.js'
import type {Remedy} from '../remedy.js'
import {browserCheck, buildCheck, folderCheck, nodeCheck} from './local-checks.js'
import {isLoopbackHost} from '../http/proxy.js'
import {portCheck} from './port-checks.js'
import {keyChecks, profileCheck, profileFileMode} from './profile-checks.js'
import {type DoctorCheck, type DoctorReport, fail} from './report.js'
import {cardProxyCheck, clockCheck, serviceCheck} from './service-checks.js'
import {portOf} from './service-identity.js'
import {storeCheck} from './store-check.js'

/** `webhook listen`'s default port. */
const WEBHOOK_LISTEN_PORT = 4020

export interface DoctorOptions {
  /** paytx's install folder (dist/, the manifest) and its version and engines. */
  root: string
  version: string
  engines?: string
  store: ProfileStore
  profileName?: string
  env: NodeJS.ProcessEnv
  timeoutMs: number
  /** The profile file's mode as found, when the caller read the profile before (reading tightens a loose one). */
  profileFileModeBefore?: number
  readKeychain: (profile: Profile) => Promise<{keys: Partial<Record<KeyField, string>>; unreadable: {field: KeyField; reason: string}[]}>
  /** Told what the network checks still wait for, each time that changes (an empty list: none). */
  onWaiting?: (waitingFor: readonly string[]) => void
}

async function profileChecks(options: DoctorOptions): Promise<{checks: DoctorCheck[]; resolved?: ResolvedProfile}> {
  const profilePath = join(options.store.dir, PROFILE_FILE_NAME)
  const fileMode = options.profileFileModeBefore ?? profileFileMode(profilePath)
  let resolved: ResolvedProfile
  try {
    resolved = resolveProfile(options.store, {name: options.profileName, env: options.env})
  } catch (error) {
    const {hint, remedies} = error as {hint?: string; remedies?: readonly Remedy[]}
    const check: DoctorCheck = remedies?.length && !hint ? {id: 'profile', label: 'Profile', status: 'fail', detail: (error as Error).message, remedies} : fail('profile', 'Profile', (error as Error).message, hint ?? 'Check the profile file.')
    return {checks: [check]}
  }
  const builtin = !Object.hasOwn(options.store.read().profiles, resolved.name)
  const keys = await keyChecks({resolved, builtin, profilePath, fileMode, readKeychain: options.readKeychain})
  return {checks: [profileCheck(resolved, builtin), ...keys], resolved}
}

/** A network check gets its time and this much more before doctor stops waiting for it. */
const CHECK_GRACE_MS = 1000

/** How long doctor may wait for its network checks at most: each runs side by side within it. */
export function doctorWaitLimitMs(timeoutMs: number): number {
  return timeoutMs + CHECK_GRACE_MS
}

/** The port the emulator is used at: the local profile's, when it points at this machine; else the default. */
function emulatorPort(resolved: ResolvedProfile | undefined): number {
  if (resolved?.profile.env !== 'local') return EMULATOR_DEFAULTS.port
  const base = new URL(resolved.profile.base_url)
  return isLoopbackHost(base.hostname) ? portOf(base) : EMULATOR_DEFAULTS.port
}

/** The network checks that run side by side, each named for the line that says what doctor waits for. */
function networkChecks(options: DoctorOptions, resolved: ResolvedProfile | undefined) {
  const port = emulatorPort(resolved)
  const host = (url: string) => new URL(url).host
  return {
    service: resolved && {waitingFor: `the service at ${host(resolved.profile.base_url)}`, run: () => serviceCheck(resolved, options.timeoutMs), late: (detail: string): {check: DoctorCheck; skew?: number} => ({check: fail('service', 'Service', detail, TRY_AGAIN)})},
    cardProxy: resolved && {waitingFor: resolved.profile.h2h_url ? `the card proxy at ${host(resolved.profile.h2h_url)}` : 'the card proxy', run: () => cardProxyCheck(resolved, options.timeoutMs), late: (detail: string) => fail('card-proxy', 'Card proxy', detail, TRY_AGAIN)},
    emulatorPort: {waitingFor: `port ${port}`, run: () => portCheck('emulator-port', 'Emulator port', port, 'paytx emulator start', options.timeoutMs), late: (detail: string) => fail('emulator-port', 'Emulator port', detail, TRY_AGAIN)},
    listenPort: {waitingFor: `port ${WEBHOOK_LISTEN_PORT}`, run: () => portCheck('listen-port', 'Webhook listen port', WEBHOOK_LISTEN_PORT, 'paytx webhook listen', options.timeoutMs), late: (detail: string) => fail('listen-port', 'Webhook listen port', detail, TRY_AGAIN)},
  }
}

const TRY_AGAIN = 'Run `paytx doctor` again; if it stays slow, check what answers at that address.'

interface Tracked<T> {
  waitingFor: string
  run: () => Promise<T>
  late: (detail: string) => T
}

/** Runs the checks side by side, says what is still waited for, and stops waiting at the limit. */
function trackChecks(options: DoctorOptions) {
  const waiting = new Set<string>()
  const limitMs = doctorWaitLimitMs(options.timeoutMs)
  const say = () => options.onWaiting?.([...waiting])
  return async <T>(tracked: Tracked<T> | undefined): Promise<T | undefined> => {
    if (!tracked) return undefined
    waiting.add(tracked.waitingFor)
    say()
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(tracked.late(`no result within ${Math.round(limitMs / 1000)} s`)), limitMs)
    })
    try {
      return await Promise.race([tracked.run(), late])
    } finally {
      clearTimeout(timer)
      waiting.delete(tracked.waitingFor)
      say()
    }
  }
}

export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const local = [nodeCheck(options.engines), buildCheck(options.root, options.version)]
  const profile = await profileChecks(options)
  const {resolved} = profile
  const planned = networkChecks(options, resolved)
  const track = trackChecks(options)
  const [service, cardProxy, emulatorPortCheck, listenPort] = await Promise.all([track(planned.service), track(planned.cardProxy), track(planned.emulatorPort), track(planned.listenPort)])
  const network = service ? [service.check, cardProxy!, clockCheck(service.skew)] : []
  const checks = [
    ...local,
    ...profile.checks,
    ...network,
    storeCheck(defaultStorePath(options.env)),
    folderCheck('config-folder', 'Config folder', options.store.dir),
    folderCheck('data-folder', 'Data folder', paytxDataDir(options.env)),
    emulatorPortCheck!,
    listenPort!,
    browserCheck(options.env),
  ]
  return {profile: resolved?.name ?? options.profileName ?? '', checks, ok: checks.every((check) => check.status !== 'fail')}
}
