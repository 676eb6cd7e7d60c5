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
import {portCheck} from './port-checks.js'
import {keyChecks, profileCheck, profileFileMode} from './profile-checks.js'
import {type DoctorCheck, type DoctorReport, fail} from './report.js'
import {cardProxyCheck, clockCheck, serviceCheck} from './service-checks.js'
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

export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const local = [nodeCheck(options.engines), buildCheck(options.root, options.version)]
  const profile = await profileChecks(options)
  const {resolved} = profile
  const [service, cardProxy, emulatorPort, listenPort] = await Promise.all([
    resolved ? serviceCheck(resolved, options.timeoutMs) : undefined,
    resolved ? cardProxyCheck(resolved, options.timeoutMs) : undefined,
    portCheck('emulator-port', 'Emulator port', EMULATOR_DEFAULTS.port, '`paytx emulator start`', options.timeoutMs),
    portCheck('listen-port', 'Webhook listen port', WEBHOOK_LISTEN_PORT, '`paytx webhook listen`', options.timeoutMs),
  ])
  const network = service ? [service.check, cardProxy!, clockCheck(service.skew)] : []
  const checks = [
    ...local,
    ...profile.checks,
    ...network,
    storeCheck(defaultStorePath(options.env)),
    folderCheck('config-folder', 'Config folder', options.store.dir),
    folderCheck('data-folder', 'Data folder', paytxDataDir(options.env)),
    emulatorPort,
    listenPort,
    browserCheck(options.env),
  ]
  return {profile: resolved?.name ?? options.profileName ?? '', checks, ok: checks.every((check) => check.status !== 'fail')}
}
