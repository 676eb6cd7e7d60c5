#!/usr/bin/env node
// Runs the benchmarks: every bench/<name>.js but this file, one after another, against the
// built CLI (run `npm run build` first). `npm run bench -- startup` runs only the named ones;
// `npm run bench -- --node 24` runs them on Node 24 (fetched with npx, as `npx -p node@24`), or
// `--node /path/to/node` on that binary: each benchmark and everything it starts run on it.
// Each benchmark prints its own figures and ratios measured side by side in the same run,
// and exits non-zero when a target is missed.
import {spawnSync} from 'node:child_process'
import {readdirSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {benchEnv} from './lib/measure.js'

const here = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const nodeAt = args.indexOf('--node')
const nodeWanted = nodeAt === -1 ? undefined : args.splice(nodeAt, 2)[1]
const all = readdirSync(here)
  .filter((file) => file.endsWith('.js') && file !== 'run.js')
  .map((file) => basename(file, '.js'))
  .sort()
const chosen = args.length > 0 ? args : all
const unknown = chosen.filter((name) => !all.includes(name))
if (unknown.length > 0 || (nodeAt !== -1 && !nodeWanted)) {
  console.error(unknown.length > 0 ? `Unknown benchmark: ${unknown.join(', ')}. Known: ${all.join(', ')}` : '--node needs a major version (24) or the path of a node binary')
  process.exit(2)
}

/** The node binary to run on: this one, a path, or a major version fetched with npx. */
function nodeBinary(wanted) {
  if (wanted === undefined) return process.execPath
  if (!/^\d+$/.test(wanted)) return wanted
  const found = spawnSync('npx', ['-y', '-p', `node@${wanted}`, '--', 'node', '-p', 'process.execPath'], {encoding: 'utf8', env: benchEnv()})
  if (found.status !== 0) {
    console.error(`Could not get Node ${wanted} with npx:\n${found.stderr}`)
    process.exit(1)
  }
  return found.stdout.trim()
}

const node = nodeBinary(nodeWanted)
const started = performance.now()
const failed = []
for (const name of chosen) {
  console.log(`\n=== bench/${name}`)
  const result = spawnSync(node, [join(here, `${name}.js`)], {stdio: 'inherit', env: benchEnv()})
  if (result.status !== 0) failed.push(name)
}
// A benchmark exits 0 when none of its measured targets is missed; targets not measured yet say OPEN.
console.log(`\n${chosen.length - failed.length} of ${chosen.length} benchmarks exited 0${failed.length > 0 ? ` (missed a target: ${failed.join(', ')})` : ''}, on node ${spawnSync(node, ['-v'], {encoding: 'utf8'}).stdout.trim()}, in ${((performance.now() - started) / 1000).toFixed(0)} s`)
process.exit(failed.length === 0 ? 0 : 1)
