#!/usr/bin/env node
// Runs the benchmarks: every bench/<name>.js but this file, one after another, against the
// built CLI (run `npm run build` first). `npm run bench -- startup` runs only the named ones.
// Each benchmark prints its own figures and ratios measured side by side in the same run,
// and exits non-zero when a target is missed.
import {spawnSync} from 'node:child_process'
import {readdirSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const wanted = process.argv.slice(2)
const all = readdirSync(here)
  .filter((file) => file.endsWith('.js') && file !== 'run.js')
  .map((file) => basename(file, '.js'))
  .sort()
const chosen = wanted.length > 0 ? wanted : all
const unknown = chosen.filter((name) => !all.includes(name))
if (unknown.length > 0) {
  console.error(`Unknown benchmark: ${unknown.join(', ')}. Known: ${all.join(', ')}`)
  process.exit(2)
}

let failed = 0
for (const name of chosen) {
  console.log(`\n=== bench/${name}`)
  const result = spawnSync(process.execPath, [join(here, `${name}.js`)], {stdio: 'inherit'})
  if (result.status !== 0) failed++
}
process.exit(failed === 0 ? 0 : 1)
