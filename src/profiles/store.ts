/**
 * The profile store: `profiles.json` in oclif's config dir (PAYTX_CONFIG_DIR moves it), file 0600,
 * folder 0700. Writes go through conf (atomic, mode enforced). Reads parse the same file
 * directly: conf and its schema validator cost about 80 ms at start-up, and read-only commands
 * such as `paytx status` must stay fast.
 */
import {chmodSync, mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {InputError} from '../errors.js'
import {LOCAL_PROFILE_NAME, type Profile, builtinLocalProfile} from './presets.js'

export interface StoreData {
  active?: string
  profiles: Record<string, Profile>
}

export interface ProfileEntry {
  name: string
  profile: Profile
  active: boolean
  builtin: boolean
}

export const PROFILE_FILE_NAME = 'profiles.json'
export const PROFILE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/

export class ProfileStore {
  readonly dir: string
  readonly path: string

  constructor(configDir: string) {
    this.dir = configDir
    this.path = join(configDir, PROFILE_FILE_NAME)
  }

  read(): StoreData {
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {profiles: {}}
      throw new InputError(`Cannot read the profile file ${this.path}: ${(error as Error).message}`)
    }
    try {
      const data = JSON.parse(text) as Partial<StoreData>
      return {active: data.active, profiles: data.profiles ?? {}}
    } catch {
      throw new InputError(`The profile file ${this.path} is not valid JSON.`, {
        hint: 'Fix or remove the file; `paytx profile add` writes a new one.',
      })
    }
  }

  /** Applies a change to the stored data through conf, keeping the file 0600 and its folder 0700. */
  async update(change: (data: StoreData) => void): Promise<StoreData> {
    mkdirSync(this.dir, {recursive: true, mode: 0o700})
    chmodSync(this.dir, 0o700)
    const {default: Conf} = await import('conf')
    const conf = new Conf<StoreData>({
      cwd: this.dir,
      configName: PROFILE_FILE_NAME.replace(/\.json$/, ''),
      configFileMode: 0o600,
      projectName: 'paytx',
      defaults: {profiles: {}},
    })
    const data: StoreData = {active: conf.get('active'), profiles: conf.get('profiles') ?? {}}
    change(data)
    conf.store = data.active === undefined ? {profiles: data.profiles} : {active: data.active, profiles: data.profiles}
    chmodSync(this.path, 0o600)
    return data
  }

  activeName(data: StoreData = this.read()): string {
    return data.active && (data.active === LOCAL_PROFILE_NAME || data.profiles[data.active]) ? data.active : LOCAL_PROFILE_NAME
  }

  get(name: string, data: StoreData = this.read()): Profile | undefined {
    if (data.profiles[name]) return data.profiles[name]
    return name === LOCAL_PROFILE_NAME ? builtinLocalProfile() : undefined
  }

  list(data: StoreData = this.read()): ProfileEntry[] {
    const active = this.activeName(data)
    const names = new Set([LOCAL_PROFILE_NAME, ...Object.keys(data.profiles)])
    return [...names].sort().map((name) => ({
      name,
      profile: this.get(name, data)!,
      active: name === active,
      builtin: name === LOCAL_PROFILE_NAME && !data.profiles[name],
    }))
  }
}
