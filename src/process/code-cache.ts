/**
 * Loads a CommonJS file of the bundle (dist/oclif-core.cjs: oclif and the packages it requires)
 * with V8's compiled code of it kept on disk between runs. Node 20 has no compile cache of its
 * own (bin/run.js turns on Node 22's, which covers the bundle's ES modules but not a vm.Script),
 * and compiling oclif took about a fifth of every run's CPU. The file runs as a vm.Script given
 * the cached data of an earlier run, from paytx's cache folder; V8 checks that data against the
 * source and its own version and flags, and rejects what does not match. Any failure to read or
 * write the cache only means compiling, as without one.
 */
import {mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {homedir} from 'node:os'
import {basename, dirname, join} from 'node:path'
import vm from 'node:vm'

/** The folder oclif uses as paytx's cache (Config#cacheDir), found before oclif is loaded. */
function cacheDir(env: NodeJS.ProcessEnv): string {
  if (env.PAYTX_CACHE_DIR) return env.PAYTX_CACHE_DIR
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'paytx')
  if (process.platform === 'win32') return join(env.LOCALAPPDATA ?? homedir(), 'paytx')
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'paytx')
}

/** Writes the code V8 has compiled so far (what this run used), replacing older caches of the file for this Node. */
function saveCodeCache(script: vm.Script, folder: string, name: string, prefix: string): void {
  try {
    mkdirSync(folder, {recursive: true})
    const partial = join(folder, `${name}.${process.pid}.partial`)
    writeFileSync(partial, script.createCachedData())
    renameSync(partial, join(folder, name))
    for (const stale of readdirSync(folder)) {
      if (stale.startsWith(prefix) && stale !== name && !stale.endsWith('.partial')) rmSync(join(folder, stale), {force: true})
    }
  } catch {
    // A cache folder that cannot be written only means compiling again next time.
  }
}

/** What the bundle's CommonJS file calls for an import() of a path known only at run time (see scripts/build.js). */
const importModule = (specifier: string): Promise<unknown> => import(specifier)

/**
 * Runs a CommonJS file as Node's require would (its own require, module, __filename,
 * __dirname), plus importModule, with V8's compiled code of it from the cache when there is one.
 */
export function requireWithCodeCache(file: string): unknown {
  const source = readFileSync(file, 'utf8')
  const {mtimeMs, size} = statSync(file)
  const folder = join(cacheDir(process.env), 'code-cache')
  const prefix = `${basename(file)}-${process.version}-${process.arch}-`
  const name = `${prefix}${size}-${Math.trunc(mtimeMs)}`
  let cachedData: Buffer | undefined
  try {
    cachedData = readFileSync(join(folder, name))
  } catch {
    cachedData = undefined
  }
  const wrapped = `(function (exports, require, module, __filename, __dirname, importModule) {${source}\n})`
  const script = new vm.Script(wrapped, {filename: file, cachedData})
  const loaded = {exports: {}}
  script.runInThisContext()(loaded.exports, createRequire(file), loaded, file, dirname(file), importModule)
  // Saved as the run ends, so that the cache holds the functions this run compiled as it went.
  if (cachedData === undefined || script.cachedDataRejected) process.once('exit', () => saveCodeCache(script, folder, name, prefix))
  return loaded.exports
}
