#!/usr/bin/env node
// Writes oclif.manifest.json, the command list oclif reads at start-up, for the package in the
// folder given (default: this one), with `oclif manifest`. OCLIF_SKIP_NEW_VERSION_CHECK: the
// oclif tool otherwise looks up its own newer version and prints "oclif update available" in
// every build, a warning about a build tool that no user of paytx can act on. PAYTX_CACHE_DIR:
// loading the commands writes V8's code cache (src/process/code-cache.ts), which goes to a
// temporary folder, not the cache folder of whoever builds.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
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
if (result.status !== 0) process.exit(result.status ?? 1)

// oclif reads the manifest on every run: compact and ASCII (other characters as \u escapes, the
// same JSON), it is a third smaller and parsed from a one-byte string, 134 KB of indented text
// with a few arrows and quotes read as 268 KB of two-byte string before.
const manifestPath = join(target, 'oclif.manifest.json')
const compact = JSON.stringify(JSON.parse(readFileSync(manifestPath, 'utf8'))).replaceAll(/[^\x00-\x7f]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)
writeFileSync(manifestPath, `${compact}\n`)
