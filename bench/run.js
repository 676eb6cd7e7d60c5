#!/usr/bin/env node
// Runs the benchmarks: every bench/<name>.js but this file, one after another, against the
// built CLI (run `npm run build` first). `npm run bench -- startup` runs only the named ones;
// `npm run bench -- --node 24` runs them on Node 24 (fetched with npx, as `npx -p node@24`), or
// `--node /path/to/node` on that binary: each benchmark and everything it starts run on it.
// Each benchmark prints its own figures and ratios measured side by side in the same run, a line
// per target saying the figure measured and the target (`ok` or `MISS`), and exits non-zero when
// a target is missed; the summary at the end repeats those lines.
import {spawn, spawnSync} from 'node:child_process'
import {readFileSync, readdirSync} from 'node:fs'
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

/**
 * Runs one benchmark on `node`, its output shown as it comes; resolves with its exit code and the
 * lines that say whether a target is met (`ok` or `MISS`, from bench/lib/measure.js finish()).
 */
function runBenchmark(node, name) {
  const child = spawn(node, [join(here, `${name}.js`)], {stdio: ['ignore', 'pipe', 'inherit'], env: benchEnv()})
  const verdicts = []
  let partial = ''
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    process.stdout.write(chunk)
    const lines = (partial + chunk).split('\n')
    partial = lines.pop()
    verdicts.push(...lines.filter((line) => /^(ok|MISS) {2}/.test(line)))
  })
  return new Promise((resolve) => child.once('close', (code) => resolve({code, verdicts})))
}

const node = nodeBinary(nodeWanted)
const started = performance.now()
const results = []
for (const name of chosen) {
  console.log(`\n=== bench/${name}`)
  results.push({name, ...(await runBenchmark(node, name))})
}
// A benchmark exits 0 when none of its measured targets is missed.
const failed = results.filter((result) => result.code !== 0).map((result) => result.name)
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
console.log(`\n=== summary: each target, measured in this run`)
for (const {name, code, verdicts} of results) {
  console.log(`bench/${name}: exit ${code}`)
  for (const line of verdicts) console.log(`  ${line}`)
}
console.log(
  `\n${chosen.length - failed.length} of ${chosen.length} benchmarks exited 0${failed.length > 0 ? ` (missed a target: ${failed.join(', ')})` : ''}, ` +
    `on node ${spawnSync(node, ['-v'], {encoding: 'utf8'}).stdout.trim()}, in ${((performance.now() - started) / 1000).toFixed(0)} s, load average at the end ${load}`,
)
process.exit(failed.length === 0 ? 0 : 1)
