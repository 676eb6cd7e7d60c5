/**
 * paytx's code as dist/main.js hands it out: the files oclif loads for a command, a hook or the
 * help class (dist/commands/…, dist/hooks/…, dist/help.js) are one line that asks for their
 * module here. The code is in two files (scripts/build.js), each run once per process with V8's
 * code cache (code-cache.ts): on Node 20, which keeps no compiled ES module between runs, a
 * command no longer compiles some forty modules on every run.
 * - dist/core.vm.js, which every run loads: oclif, the hooks and the help class;
 * - dist/commands.vm.js: the commands, with everything they import, loaded when oclif runs one and
 *   cached by command, so that a command reads no other command's compiled code.
 */
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {type CodeCachedFile, requireWithCodeCache} from './code-cache.js'

/** Hashes of the two files, written in by the build: the code cache of another build is never used. */
declare const PAYTX_BUNDLE_IDS: {core: string; commands: string}

type Entries = Record<string, () => unknown>
interface CoreExports {
  oclifCore: (path: string) => Record<string, unknown>
  entries: Entries
}

// dist/main.js, where this module is bundled, sits beside the two files.
const here = dirname(fileURLToPath(import.meta.url))
let core: CodeCachedFile | undefined
let commands: CodeCachedFile | undefined

function coreFile(): CodeCachedFile {
  // Written only by a run that loaded a command: --version and --help leave no cache behind.
  core ??= requireWithCodeCache(join(here, 'core.vm.js'), {buildId: PAYTX_BUNDLE_IDS.core, writeIf: () => commands !== undefined})
  return core
}

/** One of @oclif/core's module paths ('@oclif/core/run', …), as every import of it in the bundle gets it. */
export function oclifCoreModule(path: string): Record<string, unknown> {
  return (coreFile().exports as CoreExports).oclifCore(path)
}

/** An entry module by name ('commands/transaction/status', 'help', 'hooks/command-not-found'). */
export function appModule(name: string): unknown {
  // What oclif runs differs by entry: core's cache grows to hold each one's (see code-cache.ts).
  coreFile().uses(name)
  const frame = (coreFile().exports as CoreExports).entries
  if (Object.hasOwn(frame, name)) return frame[name]()
  commands ??= requireWithCodeCache(join(here, 'commands.vm.js'), {buildId: PAYTX_BUNDLE_IDS.commands, key: name, host: {oclifCoreModule}})
  commands.uses(name)
  const entries = (commands.exports as {entries: Entries}).entries
  if (!Object.hasOwn(entries, name)) throw new Error(`the bundle has no module ${name}: run npm run build`)
  return entries[name]()
}
