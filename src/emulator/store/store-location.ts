/**
 * Where the emulator's store lives by default: `emulator.db` in paytx's data folder, which
 * PAYTX_DATA_DIR moves. Shared by `paytx emulator start` and the emulator a local command runs
 * in its own process, so that both see the same transactions. Kept free of heavy imports.
 */
import {mkdirSync} from 'node:fs'
import {homedir} from 'node:os'
import {join, resolve} from 'node:path'

export const STORE_FILE_NAME = 'emulator.db'

/** paytx's data folder: PAYTX_DATA_DIR, else $XDG_DATA_HOME/paytx, else the platform's usual place. */
export function paytxDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.PAYTX_DATA_DIR) return env.PAYTX_DATA_DIR
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, 'paytx')
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'paytx')
  return join(homedir(), '.local', 'share', 'paytx')
}

export function defaultStorePath(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  return join(paytxDataDir(env, platform), STORE_FILE_NAME)
}

/** The default store's path, its folder created (0700) when missing. */
export function prepareDefaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  const dir = paytxDataDir(env)
  mkdirSync(dir, {recursive: true, mode: 0o700})
  return join(dir, STORE_FILE_NAME)
}

/** The store a command uses: the --store value (a file, or `:memory:`), else the default one. */
export function resolveStoreLocation(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag === undefined) return prepareDefaultStorePath(env)
  return flag === ':memory:' ? flag : resolve(flag)
}
