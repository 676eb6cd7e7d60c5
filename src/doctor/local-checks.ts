/**
 * The checks of this machine alone: Node, the build, paytx's folders and a browser opener.
 */
import {existsSync, readFileSync, readdirSync, statSync} from 'node:fs'
import {delimiter, join} from 'node:path'

import {type DoctorCheck, fail, octalMode, ok, warn} from './report.js'

/** `>=20.18` from package.json's engines, against `process.versions.node`. */
export function nodeCheck(engines: string | undefined, version: string = process.versions.node): DoctorCheck {
  const wanted = /(\d+)\.(\d+)/.exec(engines ?? '')
  const [major, minor] = version.split('.').map(Number)
  if (!wanted) return ok('node', 'Node', `${version}`)
  const [needMajor, needMinor] = [Number(wanted[1]), Number(wanted[2])]
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return ok('node', 'Node', `${version} (paytx needs ${engines})`)
  return fail('node', 'Node', `${version}, but paytx needs ${engines}`, `Install Node ${needMajor}.${needMinor} or later (https://nodejs.org, or nvm install ${needMajor}).`)
}

function newestFile(dir: string): number {
  let newest = 0
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestFile(path) : statSync(path).mtimeMs)
  }
  return newest
}

/**
 * The build paytx runs from (dist/, and the manifest oclif reads): its version matches the
 * package's, and in a checkout with sources, no source is newer than the build.
 */
export function buildCheck(root: string, version: string): DoctorCheck {
  const manifestPath = join(root, 'oclif.manifest.json')
  if (!existsSync(join(root, 'dist')) || !existsSync(manifestPath)) {
    return fail('build', 'Build', `no build in ${root}`, 'Run `npm run build` in the paytx folder.')
  }
  let manifestVersion: unknown
  try {
    manifestVersion = (JSON.parse(readFileSync(manifestPath, 'utf8')) as {version?: unknown}).version
  } catch {
    return fail('build', 'Build', 'oclif.manifest.json cannot be read', 'Run `npm run build` in the paytx folder.')
  }
  if (manifestVersion !== version) {
    return warn('build', 'Build', `the command list was built for ${String(manifestVersion)}, this is ${version}`, 'Run `npm run build` in the paytx folder.')
  }
  const src = join(root, 'src')
  if (existsSync(src) && newestFile(src) > newestFile(join(root, 'dist'))) {
    return warn('build', 'Build', `${version}, but sources in src/ are newer than dist/`, 'Run `npm run build`: paytx runs dist/, not src/.')
  }
  return ok('build', 'Build', `${version}`)
}

/** A folder paytx keeps secrets or data in: present and private (no access for group or others). */
export function folderCheck(id: string, label: string, dir: string): DoctorCheck {
  let mode: number
  try {
    const stat = statSync(dir)
    if (!stat.isDirectory()) return fail(id, label, `${dir} is not a folder`, `Remove or rename it, or point ${id === 'config-folder' ? 'PAYTX_CONFIG_DIR' : 'PAYTX_DATA_DIR'} at a folder.`)
    mode = stat.mode
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok(id, label, `${dir} (not created yet; made 0700 on first use)`)
    return fail(id, label, `${dir} cannot be read (${(error as NodeJS.ErrnoException).code})`, 'Make it readable by you.')
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    return warn(id, label, `${dir} is ${octalMode(mode)}: others on this machine can look inside`, `chmod 700 '${dir}'`)
  }
  return ok(id, label, `${dir} (${octalMode(mode)})`)
}

function onPath(program: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, program)
    try {
      if (statSync(candidate).isFile()) return candidate
    } catch {
      // not in this folder
    }
  }
  return undefined
}

/** What `flow` opens the approval page with: BROWSER, else the system's opener (and, on Linux, a display for it). */
export function browserCheck(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): DoctorCheck {
  const byHand = 'Without one, `flow` prints the approval page to open by hand (on the emulator, --approve <STATUS> needs no browser).'
  const browser = env.BROWSER?.split(':')[0]?.trim()
  if (browser) {
    const program = browser.split(/\s+/)[0]
    return onPath(program, env) || program.includes('/') ? ok('browser', 'Browser', `BROWSER=${browser}`) : warn('browser', 'Browser', `BROWSER=${browser}, but ${program} is not on PATH`, `Fix BROWSER. ${byHand}`)
  }
  if (platform === 'darwin' || platform === 'win32') return ok('browser', 'Browser', platform === 'darwin' ? 'open (macOS)' : 'start (Windows)')
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return warn('browser', 'Browser', 'no graphical session (DISPLAY and WAYLAND_DISPLAY are unset)', `Set BROWSER to a program that opens a URL. ${byHand}`)
  const opener = onPath('xdg-open', env)
  return opener ? ok('browser', 'Browser', `xdg-open (${opener})`) : warn('browser', 'Browser', 'xdg-open is not installed', `Install xdg-utils or set BROWSER. ${byHand}`)
}
