/**
 * The profile store: `profiles.json` in oclif's config dir (PAYTX_CONFIG_DIR moves it), file 0600,
 * folder 0700. Every change is a read-modify-write under an inter-process lock, so concurrent
 * `paytx profile add/use/remove` all keep their change; writes go through conf (atomic, mode
 * enforced). Reads parse the same file directly: conf and its schema validator cost about 80 ms
 * at start-up, and read-only commands such as `paytx status` must stay fast.
 */
import {chmodSync, mkdirSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {EnvironmentError, InputError} from '../errors.js'
import {formatByteSize} from '../input/bounded-read.js'
import {FileTooLargeError, SpecialFileError, readRegularFileSync} from '../input/input-file.js'
import {isDiskFull} from '../storage/disk-full.js'
import {LOCAL_PROFILE_NAME, type Profile, builtinLocalProfile} from './presets.js'
import {type StoreData, parseStoreText} from './store-shape.js'

export type {StoreData} from './store-shape.js'

export interface ProfileEntry {
  name: string
  profile: Profile
  active: boolean
  builtin: boolean
}

export interface ProfileStoreOptions {
  /** One-line notices for the user (stderr), such as a file whose permissions were tightened. */
  notice?: (line: string) => void
  /** How long a change waits for another process's change to finish. */
  lockWaitMs?: number
}

export const PROFILE_FILE_NAME = 'profiles.json'
/** The most `profiles.json` may hold: thousands of profiles, far from any file paytx writes. */
export const MAX_PROFILE_FILE_BYTES = 4 * 1024 * 1024
export const PROFILE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/
const DEFAULT_LOCK_WAIT_MS = 10_000
/** A lock not refreshed for this long belongs to a process that died; it is taken over. */
const STALE_LOCK_MS = 10_000

/** File-system failures that are the folder's fault (read-only, not a folder, no permission, full), not paytx's. */
const FOLDER_PROBLEMS: Record<string, string> = {
  EROFS: 'is on a read-only file system',
  EACCES: 'is not writable by you',
  EPERM: 'is not writable by you',
  ENOTDIR: 'cannot be created: part of its path is a file, not a folder',
  ENOENT: 'does not exist and cannot be created',
  ENOSPC: 'is on a full disk',
  EDQUOT: 'is over its disk quota',
}

export class ProfileStore {
  readonly dir: string
  readonly path: string
  private readonly options: ProfileStoreOptions

  constructor(configDir: string, options: ProfileStoreOptions = {}) {
    this.dir = configDir
    this.path = join(configDir, PROFILE_FILE_NAME)
    this.options = options
  }

  read(): StoreData {
    let text: string
    try {
      // Only a regular file is read, and only so much: every command reads this file, and a FIFO
      // there would hang each one, a link to /dev/zero fill the memory.
      text = readRegularFileSync(this.path, MAX_PROFILE_FILE_BYTES).toString('utf8')
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'ENOTDIR') return {profiles: {}}
      throw this.readError(error)
    }
    this.tightenPermissions()
    return parseStoreText(text, this.path)
  }

  private readError(error: unknown): InputError {
    const remedy = {kind: 'fix-profile-file', path: this.path} as const
    if (error instanceof SpecialFileError) {
      return new InputError(`The profile file ${this.path} cannot be read: ${error.message}. Profiles are kept in a regular JSON file.`, {remedy})
    }
    if (error instanceof FileTooLargeError) {
      return new InputError(`The profile file ${this.path} is larger than ${formatByteSize(MAX_PROFILE_FILE_BYTES)}, the most paytx reads as profiles; it was not read.`, {remedy})
    }
    const code = (error as NodeJS.ErrnoException).code
    return new InputError(`Cannot read the profile file ${this.path} (${code ?? (error as Error).message}).`, {
      hint: `Make it readable by you, or point PAYTX_CONFIG_DIR at another folder.`,
    })
  }

  /**
   * Applies a change to the freshly read stored data and writes it, all under the store's lock:
   * `change` sees every change other processes made before it, and none is lost. `change` may
   * throw (an input error, say) to write nothing. It may be async (keychain writes, bounded by
   * their timeout); the lock is kept fresh meanwhile.
   */
  async update(change: (data: StoreData) => void | Promise<void>): Promise<StoreData> {
    this.ensureFolder()
    // Loaded before locking, so that other processes wait for the change alone.
    const {default: Conf} = await import('conf')
    const release = await this.lock()
    try {
      const data = this.read()
      await change(data)
      this.write(Conf, data)
      return data
    } finally {
      await release()
    }
  }

  activeName(data: StoreData = this.read()): string {
    return data.active && (data.active === LOCAL_PROFILE_NAME || data.profiles[data.active]) ? data.active : LOCAL_PROFILE_NAME
  }

  get(name: string, data: StoreData = this.read()): Profile | undefined {
    if (Object.hasOwn(data.profiles, name)) return data.profiles[name]
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

  private ensureFolder(): void {
    try {
      mkdirSync(this.dir, {recursive: true, mode: 0o700})
      chmodSync(this.dir, 0o700)
    } catch (error) {
      throw this.folderError(error)
    }
  }

  /** Waits (bounded) for the store's lock, a `profiles.json.lock` folder next to the file. */
  private async lock(): Promise<() => Promise<void>> {
    const {default: lockfile} = await import('proper-lockfile')
    const waitMs = this.options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS
    const intervalMs = 25
    try {
      return await lockfile.lock(this.path, {
        realpath: false,
        stale: STALE_LOCK_MS,
        retries: {retries: Math.ceil(waitMs / intervalMs), minTimeout: intervalMs, maxTimeout: intervalMs, factor: 1, randomize: true},
        // Only a process stalled for longer than the stale time loses its lock. Its change is then
        // as good as any racing one, and the write itself stays atomic, so it goes on.
        onCompromised: () => {},
      })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
        throw new InputError(`Another paytx command has been changing the profile file ${this.path} for over ${Math.round(waitMs / 1000)} s; nothing was changed.`, {
          hint: `Try again when it has finished. If no other paytx is running, remove the folder ${this.path}.lock and try again.`,
        })
      }
      throw this.folderError(error)
    }
  }

  private write(Conf: typeof import('conf').default, data: StoreData): void {
    try {
      const conf = new Conf<StoreData>({
        cwd: this.dir,
        configName: PROFILE_FILE_NAME.replace(/\.json$/, ''),
        configFileMode: 0o600,
        projectName: 'paytx',
        defaults: {profiles: {}},
      })
      conf.store = data.active === undefined ? {profiles: data.profiles} : {active: data.active, profiles: data.profiles}
      chmodSync(this.path, 0o600)
    } catch (error) {
      throw this.folderError(error)
    }
  }

  /**
   * A profile file or folder that others can read is tightened to 0600 / 0700, with a notice: it
   * holds API keys. Only a folder that holds the file is touched, and never a shared one (sticky
   * bit, as /tmp).
   */
  private tightenPermissions(): void {
    const targets: [path: string, mode: number, what: string][] = [
      [this.path, 0o600, 'file'],
      [this.dir, 0o700, 'folder'],
    ]
    for (const [path, mode, what] of targets) {
      let current: number
      try {
        current = statSync(path).mode
      } catch {
        return
      }
      if ((current & 0o077) === 0 || (current & 0o1000) !== 0) continue
      try {
        chmodSync(path, mode)
        this.options.notice?.(`The profile ${what} ${path} was open to others (${formatMode(current)}); it is now ${formatMode(mode)}, as it holds API keys.`)
      } catch {
        this.options.notice?.(`Warning: the profile ${what} ${path} is open to others (${formatMode(current)}) and could not be changed; make it ${formatMode(mode)}, as it holds API keys.`)
      }
    }
  }

  private folderError(error: unknown): Error {
    const code = (error as NodeJS.ErrnoException).code
    const problem = code ? FOLDER_PROBLEMS[code] : undefined
    if (!problem) return error as Error
    const message = `Cannot save profiles: the config folder ${this.dir} ${problem} (${code}); the profile file was not changed.`
    // A full disk is a passing state of the machine, not a wrong setting: exit 1, as any failing disk.
    if (isDiskFull(error)) return new EnvironmentError(message, `Free some space on the disk that holds ${this.dir} and run the command again.`)
    return new InputError(message, {
      hint: `Make ${this.dir} a writable folder, or point PAYTX_CONFIG_DIR at one (for example PAYTX_CONFIG_DIR=$HOME/.config/paytx).`,
    })
  }
}

function formatMode(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0')
}
