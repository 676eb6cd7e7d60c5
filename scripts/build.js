#!/usr/bin/env node
// The build (`npm run build`): bundles the CLI into dist/ with esbuild, so that start-up reads a
// few prepared files instead of hundreds of modules. oclif finds the commands by its explicit
// strategy (package.json oclif.commands): dist/commands.js exports COMMANDS, an object of command
// ids to classes, generated here from the files under src/commands, so a new command file is
// picked up with no edit. Code a command imports dynamically (undici, ora, prompts, the emulator)
// becomes chunks of its own, still loaded only when used. libsql stays outside the bundle (its
// native binary is found next to its package), and so does `open` (it runs the xdg-open script
// it ships). Type checking is tsc's job; esbuild only strips the types.
import {execFileSync} from 'node:child_process'
import {existsSync, readFileSync, readdirSync, rmSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join, relative, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const commandsDir = join(root, 'src', 'commands')
const COMMANDS_INDEX = 'paytx:commands-index'

/** Command id for a file under src/commands, by oclif's own rule: folders are topics, `index` names the topic itself. */
function commandId(file) {
  const parts = relative(commandsDir, file).replace(/\.ts$/, '').split(sep)
  if (parts.at(-1) === 'index') parts.pop()
  return parts.join(':')
}

function commandFiles(dir) {
  return readdirSync(dir, {withFileTypes: true})
    .flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return commandFiles(path)
      return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
    })
    .sort()
}

/** The module behind dist/commands.js: every command file's default export, under its id. */
function commandsIndexSource() {
  const files = commandFiles(commandsDir)
  const imports = files.map((file, index) => `import command${index} from ${JSON.stringify(file)}`)
  const entries = files.map((file, index) => `  ${JSON.stringify(commandId(file))}: command${index},`)
  return `${imports.join('\n')}\n\nexport const COMMANDS = {\n${entries.join('\n')}\n}\n`
}

const commandsIndexPlugin = {
  name: 'commands-index',
  setup(builder) {
    builder.onResolve({filter: new RegExp(`^${COMMANDS_INDEX}$`)}, () => ({path: COMMANDS_INDEX, namespace: 'paytx'}))
    builder.onLoad({filter: /.*/, namespace: 'paytx'}, () => ({contents: commandsIndexSource(), loader: 'ts', resolveDir: root}))
  },
}

/** True when Node runs this file as CommonJS: `.cjs`, or `.js` under a package.json without `"type": "module"`. */
function isCommonJs(file) {
  if (file.endsWith('.cjs')) return true
  if (!file.endsWith('.js')) return false
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')).type !== 'module'
  }
  return true
}

/**
 * `await import('undici')` gives the CommonJS package's exports as named exports in Node, but a
 * chunk esbuild splits off for a CommonJS package exports only `default`. This puts the names
 * back: the dynamically imported package goes through a module that re-exports each of its
 * exports by name (listed by loading the package here, at build time).
 */
const commonJsNamedExportsPlugin = {
  name: 'commonjs-named-exports',
  setup(builder) {
    builder.onResolve({filter: /^[^./]/}, async (args) => {
      if (args.kind !== 'dynamic-import' || args.namespace !== 'file') return undefined
      const resolved = await builder.resolve(args.path, {kind: 'import-statement', resolveDir: args.resolveDir})
      if (resolved.errors.length > 0 || resolved.external || !isCommonJs(resolved.path)) return undefined
      return {path: args.path, namespace: 'commonjs-named-exports', pluginData: {file: resolved.path, resolveDir: args.resolveDir}}
    })
    builder.onLoad({filter: /.*/, namespace: 'commonjs-named-exports'}, (args) => {
      const names = Object.keys(createRequire(args.pluginData.file)(args.pluginData.file)).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default')
      const contents = `import commonJsExports from ${JSON.stringify(args.path)}\nexport default commonJsExports\nexport const {${names.join(', ')}} = commonJsExports\n`
      return {contents, loader: 'js', resolveDir: args.pluginData.resolveDir}
    })
  },
}

rmSync(join(root, 'dist'), {recursive: true, force: true})
execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], {stdio: 'inherit'})

await build({
  absWorkingDir: root,
  entryPoints: [
    {in: 'src/main.ts', out: 'main'},
    {in: COMMANDS_INDEX, out: 'commands'},
    {in: 'src/hooks/command-not-found.ts', out: 'hooks/command-not-found'},
  ],
  outdir: 'dist',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // typescript: oclif reads tsconfig with it only when developing a plugin from source.
  external: ['libsql', 'open', 'typescript'],
  // Bundled CommonJS (oclif, undici) calls require() for Node's own modules.
  banner: {js: "import {createRequire as __paytxCreateRequire} from 'node:module'; const require = __paytxCreateRequire(import.meta.url);"},
  plugins: [commandsIndexPlugin, commonJsNamedExportsPlugin],
  logLevel: 'warning',
})
