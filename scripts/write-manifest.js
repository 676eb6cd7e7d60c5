#!/usr/bin/env node
// Writes oclif.manifest.json, the command list oclif reads at start-up, for the package in the
// folder given (default: this one), with `oclif manifest`. OCLIF_SKIP_NEW_VERSION_CHECK: the
// oclif tool otherwise looks up its own newer version and prints "oclif update available" in
// every build, a warning about a build tool that no user of paytx can act on. PAYTX_CACHE_DIR:
// loading the commands writes V8's code cache (src/process/code-cache.ts), which goes to a
// temporary folder, not the cache folder of whoever builds.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const target = resolve(process.argv[2] ?? root)
const cacheDir = mkdtempSync(join(tmpdir(), 'paytx-manifest-cache-'))
const result = spawnSync(process.execPath, [join(root, 'node_modules', 'oclif', 'bin', 'run.js'), 'manifest', target], {
  cwd: target,
  stdio: 'inherit',
  env: {...process.env, OCLIF_SKIP_NEW_VERSION_CHECK: 'true', PAYTX_CACHE_DIR: cacheDir},
})
rmSync(cacheDir, {recursive: true, force: true})
process.exit(result.status ?? 1)
