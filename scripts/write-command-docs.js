#!/usr/bin/env node
// Writes docs/commands.md, the reference of every command, with oclif's own generator
// (`oclif readme`) from oclif.manifest.json, which `npm run build` writes; `npm run docs` does
// both. Given a path, it writes there instead: the test compares a fresh copy with the committed one.
import {spawnSync} from 'node:child_process'
import {existsSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join, resolve} from 'node:path'

const root = join(import.meta.dirname, '..')
const target = resolve(process.argv[2] ?? join(root, 'docs', 'commands.md'))

if (!existsSync(join(root, 'oclif.manifest.json'))) {
  console.error('oclif.manifest.json is missing: run `npm run build` first (or `npm run docs`, which builds).')
  process.exit(1)
}

// `oclif readme` fills the part between these markers and keeps the text around them. It writes
// a file beside the target, which replaces the target only once it is complete.
const draft = `${target}.draft`
writeFileSync(
  draft,
  `# Commands

Every command and flag of paytx, as \`paytx help <command>\` shows them. Generated from the
commands themselves by \`npm run docs\` (oclif's \`oclif readme\`); do not edit by hand: change the
command, then run \`npm run docs\`. The guides: [the README](../README.md#documentation).

<!-- commands -->
`,
)

// The width the help is wrapped at is fixed, so that the page does not depend on the terminal;
// oclif does not look for a newer version of itself on the registry; and NODE_ENV=test (vitest's)
// would put oclif in development mode, which reads src/ instead of the manifest.
const env = {...process.env, COLUMNS: '100', OCLIF_SKIP_NEW_VERSION_CHECK: 'true'}
delete env.NODE_ENV
const oclif = join(dirname(createRequire(import.meta.url).resolve('oclif/package.json')), 'bin', 'run.js')
const result = spawnSync(process.execPath, [oclif, 'readme', '--readme-path', draft, '--no-source-links', '--no-aliases'], {
  cwd: root,
  env,
  stdio: ['ignore', 'ignore', 'inherit'],
  timeout: 60_000,
})
if (result.status !== 0) {
  rmSync(draft, {force: true})
  console.error(`oclif readme failed (${result.error?.message ?? `exit code ${result.status ?? result.signal}`}).`)
  process.exit(1)
}
renameSync(draft, target)
