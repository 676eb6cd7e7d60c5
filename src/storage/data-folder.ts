/**
 * paytx's data folder, where the emulator's store, the marks of the emulators commands run and
 * saved webhooks live: PAYTX_DATA_DIR moves it. A module of its own, free of imports beyond
 * Node's path and os, so that a command that only needs the folder's name (a local command
 * checking its address, on every run) loads nothing else.
 */
import {homedir} from 'node:os'
import {join} from 'node:path'

/** paytx's data folder: PAYTX_DATA_DIR, else $XDG_DATA_HOME/paytx, else the platform's usual place. */
export function paytxDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.PAYTX_DATA_DIR) return env.PAYTX_DATA_DIR
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, 'paytx')
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'paytx')
  return join(homedir(), '.local', 'share', 'paytx')
}
