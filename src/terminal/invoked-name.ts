/**
 * How the user can run paytx again, for every hint that names a command: `paytx` when it was
 * started through its installed command (npm's bin link or shim, `npx`) or when `paytx` on the
 * PATH is this very program; otherwise the script as it was run, such as `./bin/run.js` in a
 * clone. oclif's `config.bin` is always `paytx`, which a fresh clone does not have.
 */
import {realpathSync, statSync} from 'node:fs'
import {delimiter, isAbsolute, join, relative, sep} from 'node:path'

export interface Invocation {
  /** process.argv: the script is argv[1], as Node resolved it (symlinks kept). */
  argv: readonly string[]
  env: NodeJS.ProcessEnv
  cwd: string
}

const INSTALLED_NAME = 'paytx'

export function invokedName(invocation: Invocation = {argv: process.argv, env: process.env, cwd: process.cwd()}): string {
  const script = invocation.argv[1]
  if (!script) return INSTALLED_NAME
  const segments = script.split(/[\\/]/)
  if (segments.at(-1)!.replace(/\.(cmd|ps1|exe)$/i, '') === INSTALLED_NAME) return INSTALLED_NAME
  if (segments.includes('node_modules')) return INSTALLED_NAME
  if (pathCommandIs(script, invocation.env)) return INSTALLED_NAME
  const fromCwd = relative(invocation.cwd, script)
  const shown = fromCwd !== '' && !fromCwd.startsWith('..') && !isAbsolute(fromCwd) ? `.${sep}${fromCwd}` : script
  return /[\s'"$`\\]/.test(shown) && sep === '/' ? `'${shown.replaceAll("'", `'\\''`)}'` : shown
}

/** Whether `paytx` found on the PATH is the script that is running (after `npm link`, say). */
function pathCommandIs(script: string, env: NodeJS.ProcessEnv): boolean {
  const running = realPath(script)
  if (!running) return false
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    if (!folder) continue
    const candidate = join(folder, INSTALLED_NAME)
    if (isFile(candidate) && realPath(candidate) === running) return true
  }
  return false
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

let cached: string | undefined

/** A command line for a hint: `paytx profile show`, or `./bin/run.js profile show` in a clone. */
export function commandLine(args: string): string {
  cached ??= invokedName()
  return `${cached} ${args}`
}
