/**
 * Where the emulator's store lives by default: `emulator.db` in paytx's data folder, which
 * PAYTX_DATA_DIR moves. Shared by `paytx emulator start` and the emulator a local command runs
 * in its own process, so that both see the same transactions. Kept free of heavy imports.
 */
import {mkdirSync, statSync} from 'node:fs'
import {join, resolve} from 'node:path'

import {paytxDataDir} from '../../storage/data-folder.js'

export {paytxDataDir}

export const STORE_FILE_NAME = 'emulator.db'

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

/**
 * A warning when paytx's data folder (which holds the emulator's store) can be read or entered by
 * other users, with the command that fixes it; nothing is changed. Undefined when it is private,
 * missing, or a shared folder (sticky bit, as /tmp).
 */
export function dataFolderExposure(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = paytxDataDir(env)
  let mode: number
  try {
    mode = statSync(dir).mode
  } catch {
    return undefined
  }
  if ((mode & 0o077) === 0 || (mode & 0o1000) !== 0) return undefined
  const shown = (mode & 0o777).toString(8).padStart(4, '0')
  return `paytx's data folder ${dir} can be read by other users (mode ${shown}); it holds the emulator's store. Make it private with \`chmod 700 ${dir}\`.`
}
