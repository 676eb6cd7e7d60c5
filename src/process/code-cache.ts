/**
 * Runs a file of the bundle (dist/core.vm.js, dist/commands.vm.js: paytx and the packages it
 * bundles) with V8's compiled code of it kept on disk between runs. Node 20 keeps no compiled code
 * between runs, and Node 22's compile cache (bin/run.js) does not cover a vm.Script; without one,
 * compiling what a command runs took a third of its start-up on Node 20.
 *
 * Such a file is a CommonJS module wrapped by the build in the function Node would wrap it in,
 * `(function (exports, require, module, __filename, __dirname, host) {…})`, so that V8 is given
 * the file's text as read: wrapping it here made a copy of megabytes on every run.
 *
 * The cache is a file in paytx's cache folder, one per file, build, Node version and
 * architecture (and key, see CodeCacheOptions); another build's is removed once unused for a week. It is trusted only when it is exactly the file it
 * says it is:
 * - V8 checks cached code against the source's length and its own version and flags only, so the
 *   name also holds the build's id (a hash of the file's content, written in by the build), the
 *   file's size and its modification time: code cached from another build is never looked at;
 * - V8 runs damaged code without noticing (a flipped byte crashes the process), so the file holds
 *   a checksum of the code (checksum.ts), checked before V8 sees it.
 * V8 caches the functions compiled when the cache is made, so a cache made by `--version` lacks
 * what `status` compiles. The file lists the parts of the bundle (its entry modules) whose code it
 * holds; a run that uses a part it lacks writes it again as the run ends, with what it read and
 * what it compiled, if the run was a command's (CodeCacheOptions.writeIf). Writes go to a temporary file renamed into place. A cache that is missing,
 * damaged, rejected by V8 or cannot be written only means compiling, as without one.
 */
import {isAscii} from 'node:buffer'
import {mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {homedir} from 'node:os'
import {basename, dirname, join} from 'node:path'
import vm from 'node:vm'

import {readRegularFileSync} from '../input/input-file.js'
import {checksum} from './checksum.js'

/** Far above V8's code of the whole bundle (a few MB): a larger file is no cache of paytx's. */
const MAX_CACHE_FILE_BYTES = 256 * 1024 * 1024

/** The first line of a cache file, naming its format. */
const MAGIC = 'paytx-code-cache 1'

/** The folder oclif uses as paytx's cache (Config#cacheDir), found before oclif is loaded. */
function cacheDir(env: NodeJS.ProcessEnv): string {
  if (env.PAYTX_CACHE_DIR) return env.PAYTX_CACHE_DIR
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Caches', 'paytx')
  if (process.platform === 'win32') return join(env.LOCALAPPDATA ?? homedir(), 'paytx')
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'paytx')
}

export interface CacheFile {
  /** The parts of the file whose code the cache holds. */
  parts: string[]
  code: Buffer
}

/**
 * A cache file: `MAGIC`, a line of JSON ({parts, checksum} of the code), then V8's code.
 * Undefined when it is missing or not whole.
 */
export function readCacheFile(path: string): CacheFile | undefined {
  try {
    // Read on every run: a FIFO or a device in the cache folder must not hang or fill paytx (input-file.ts).
    const file = readRegularFileSync(path, MAX_CACHE_FILE_BYTES)
    const magicEnd = file.indexOf(10)
    const headerEnd = file.indexOf(10, magicEnd + 1)
    if (magicEnd === -1 || headerEnd === -1 || file.toString('latin1', 0, magicEnd) !== MAGIC) return undefined
    const header = JSON.parse(file.toString('utf8', magicEnd + 1, headerEnd)) as {parts?: unknown; checksum?: unknown}
    const code = file.subarray(headerEnd + 1)
    if (!Array.isArray(header.parts) || !header.parts.every((part) => typeof part === 'string') || header.checksum !== checksum(code)) return undefined
    return {parts: header.parts, code}
  } catch {
    return undefined
  }
}

/** The names of a file's caches: of any build, of this very file (build, Node, architecture), and this key's. */
interface CacheNames {
  ofAnyBuild: string
  ofThisFile: string
  name: string
}

/** A cache of another build (or Node) not used for this long is removed when a cache is written. */
const UNUSED_FOR_MS = 7 * 24 * 60 * 60 * 1000
/** A used cache is marked as such (its modification time set) when last marked longer ago than this. */
const MARK_USE_AFTER_MS = 24 * 60 * 60 * 1000

/**
 * Removes what is left of other builds' caches (and of writes that never finished). Another
 * installation of paytx may share the folder, so a cache of another build is kept while it is
 * still used (see markUsed).
 */
function removeUnused(folder: string, names: CacheNames): void {
  for (const other of readdirSync(folder)) {
    if (!other.startsWith(names.ofAnyBuild) || (other.startsWith(names.ofThisFile) && !other.endsWith('.partial'))) continue
    const path = join(folder, other)
    if (Date.now() - statSync(path).mtimeMs > (other.endsWith('.partial') ? MARK_USE_AFTER_MS : UNUSED_FOR_MS)) rmSync(path, {force: true})
  }
}

/** Sets the cache's modification time to now, at most once a day, so that removeUnused keeps it. */
function markUsed(path: string): void {
  try {
    if (Date.now() - statSync(path).mtimeMs > MARK_USE_AFTER_MS) utimesSync(path, new Date(), new Date())
  } catch {
    // Unmarked, the cache may be removed after a week and written again: only speed is lost.
  }
}

/** Writes the cache file whole or not at all, and removes other builds' caches no longer used. */
export function writeCacheFile(folder: string, names: CacheNames, cache: CacheFile): void {
  try {
    mkdirSync(folder, {recursive: true})
    const partial = join(folder, `${names.name}.${process.pid}.partial`)
    // Not flushed to disk: a file that a crash leaves with blocks unwritten fails its checksum.
    writeFileSync(partial, Buffer.concat([Buffer.from(`${MAGIC}\n${JSON.stringify({parts: cache.parts, checksum: checksum(cache.code)})}\n`), cache.code]))
    renameSync(partial, join(folder, names.name))
    removeUnused(folder, names)
  } catch {
    // A cache folder that cannot be written only means compiling again next time.
  }
}

/** What a file calls for an import() of a path known only at run time (see scripts/build.js). */
const importModule = (specifier: string): Promise<unknown> => import(specifier)

export interface CodeCachedFile {
  exports: unknown
  /** Says that this run uses a part of the file: if the cache lacks it, the cache is written again as the run ends. */
  uses(part: string): void
}

export interface CodeCacheOptions {
  /** Identifies the file's content (see above). */
  buildId: string
  /**
   * Keeps a cache of its own for each key: V8 reads every function a cache holds, so a file whose
   * uses differ by run (by command) is cached per use, each holding only the code it ran.
   */
  key?: string
  /** What the file gets as `host`, beside importModule. */
  host?: Record<string, unknown>
  /**
   * Asked as the run ends: the cache is written only when it answers true. paytx writes its
   * caches only for runs of a command (`--version`, `--help` and a mistyped command only read
   * them): a CI job that asks `npx paytx --version` leaves no folder behind.
   */
  writeIf?: () => boolean
}

type ModuleFunction = (exports: unknown, require: NodeJS.Require, module: {exports: unknown}, filename: string, dirname: string, host: Record<string, unknown>) => void

function cacheNames(file: string, options: CodeCacheOptions): CacheNames {
  const {mtimeMs, size} = statSync(file)
  const ofAnyBuild = `${basename(file)}-`
  const ofThisFile = `${ofAnyBuild}${process.version}-${process.arch}-${options.buildId}-${size}-${Math.trunc(mtimeMs)}`
  return {ofAnyBuild, ofThisFile, name: options.key === undefined ? ofThisFile : `${ofThisFile}-${options.key.replaceAll(/[^\w.-]/g, '+')}`}
}

/**
 * Runs a file of the bundle as Node's require would run a CommonJS module (its own require,
 * module, __filename, __dirname), with V8's compiled code of it from the cache when there is one.
 */
export function requireWithCodeCache(file: string, options: CodeCacheOptions): CodeCachedFile {
  const bytes = readFileSync(file)
  // The build writes the files as ASCII, read several times faster as Latin-1 (the same text) than as UTF-8.
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8')
  const folder = join(cacheDir(process.env), 'code-cache')
  const names = cacheNames(file, options)
  const cached = readCacheFile(join(folder, names.name))
  const script = new vm.Script(source, {filename: file, cachedData: cached?.code})
  const accepted = cached !== undefined && !script.cachedDataRejected
  if (accepted) markUsed(join(folder, names.name))
  const parts = new Set(accepted ? cached.parts : [])
  let saving = false
  const saveAtExit = () => {
    if (saving) return
    saving = true
    // At exit, so that the cache holds the functions this run compiled as it went.
    process.once('exit', () => {
      if (options.writeIf?.() ?? true) writeCacheFile(folder, names, {parts: [...parts].sort(), code: script.createCachedData()})
    })
  }
  if (!accepted) saveAtExit()
  const loaded = {exports: {}}
  ;(script.runInThisContext() as ModuleFunction)(loaded.exports, createRequire(file), loaded, file, dirname(file), {importModule, ...options.host})
  return {
    exports: loaded.exports,
    uses(part) {
      if (parts.has(part)) return
      parts.add(part)
      saveAtExit()
    },
  }
}
