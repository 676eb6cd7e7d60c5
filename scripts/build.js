#!/usr/bin/env node
// The build (`npm run build`): bundles the CLI into dist/ with esbuild, so that start-up reads a
// few prepared files instead of hundreds of modules. Type checking is tsc's job (it emits
// nothing); esbuild only strips the types.
//
// What is built comes from package.json, where oclif looks for it:
// - oclif.commands (./dist/commands): every file under src/commands becomes its own entry,
//   dist/commands/<topic>/<verb>.js, so a new command file is picked up with no edit, and a
//   command loads its own module graph only (code the commands share sits in common chunks);
// - oclif.hooks and oclif.helpClass: each target ./dist/X.js is built from src/X.ts;
// - dist/main.js, from src/main.ts, is what bin/run.js loads.
// Code imported dynamically (ora, prompts, the emulator) becomes chunks of its own, still
// loaded only when used. libsql stays outside the bundle (its native binary is found next to its
// package), and so does `open` (it runs the xdg-open script it ships).
import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync, readdirSync, rmSync} from 'node:fs'
import {createRequire} from 'node:module'
import {basename, dirname, join, relative, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

import {build} from 'esbuild'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const srcDir = join(root, 'src')
const commandsDir = join(srcDir, 'commands')
const {oclif} = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
if (oclif.commands !== './dist/commands') throw new Error('package.json: oclif.commands must be ./dist/commands, where this build writes the commands')

function filesUnder(dir) {
  return readdirSync(dir, {withFileTypes: true})
    .flatMap((entry) => (entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)]))
    .sort()
}

function sourceFiles(dir) {
  return filesUnder(dir).filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
}

/** The source of a built file package.json names: ./dist/X.js is built from src/X.ts, to dist/X.js. */
function entryFor(target) {
  const out = target.replace(/^\.\/dist\//, '').replace(/\.js$/, '')
  if (out === target) throw new Error(`package.json names ${target}; the build writes only ./dist/*.js`)
  return {in: join(srcDir, `${out}.ts`), out}
}

/** Each command file as an entry: src/commands/x/y.ts is built to dist/commands/x/y.js, where oclif looks. */
function commandEntries() {
  return sourceFiles(commandsDir).map((file) => ({in: file, out: relative(srcDir, file).replace(/\.ts$/, '').split(sep).join('/')}))
}

/**
 * A module that runs as a script of its own (a child process's entry, found with
 * `new URL('x.js', import.meta.url)` next to the module that starts it) must still be a file
 * after bundling: each becomes an entry point in dist/ itself, where every chunk is too, so the
 * URL finds it from whichever file the starting code ends up in. Any other file found that way
 * is not in the bundle: the build stops and says so.
 */
function scriptEntries() {
  const entries = []
  for (const file of sourceFiles(srcDir)) {
    for (const [, reference] of readFileSync(file, 'utf8').matchAll(/new URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g)) {
      const name = reference.replace(/^\.\//, '').replace(/\.js$/, '')
      const script = join(dirname(file), `${name}.ts`)
      if (name.includes('/') || !reference.endsWith('.js') || !existsSync(script)) {
        throw new Error(`${relative(root, file)}: new URL('${reference}', import.meta.url) names a file the bundle does not have (only a module in the same folder, as 'name.js', can be found this way)`)
      }
      if (entries.some((entry) => entry.out === name && entry.in !== script)) throw new Error(`two scripts would be dist/${name}.js`)
      entries.push({in: script, out: basename(name)})
    }
  }
  return entries
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
 * `await import('proper-lockfile')` gives the CommonJS package's exports as named exports in Node, but a
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

/**
 * Node's http module, required rather than imported. On Node 22 and later an `import` of
 * node:http builds an ES module facade that reads every export, and among them are lazy getters
 * (WebSocket, CloseEvent, MessageEvent) that load Node's bundled undici: about 20 ms of start-up
 * for every command that makes a request, for classes paytx never uses. `require` reads nothing
 * until it is asked. The module the imports are pointed to exports the http module's plain
 * values by name (listed here, at build time), never its getters; importing a getter's name
 * fails the build.
 */
const requiredHttpPlugin = {
  name: 'required-node-http',
  setup(builder) {
    builder.onResolve({filter: /^(node:)?http$/}, (args) =>
      args.kind === 'import-statement' || args.kind === 'dynamic-import' ? {path: 'node:http', namespace: 'required-node-http'} : undefined,
    )
    builder.onLoad({filter: /.*/, namespace: 'required-node-http'}, () => {
      const http = createRequire(import.meta.url)('node:http')
      const names = Object.keys(http).filter((name) => 'value' in Object.getOwnPropertyDescriptor(http, name) && /^[A-Za-z_$][\w$]*$/.test(name))
      const contents = `const http = require('node:http')\nexport default http\nexport const {${names.join(', ')}} = http\n`
      return {contents, loader: 'js'}
    })
  },
}

/**
 * Packages oclif requires as its modules load but uses only on some paths: command discovery by
 * file pattern (tinyglobby, with fdir and picomatch; paytx's commands come from the manifest),
 * spinners (cli-spinners), templates (ejs), package.json lookups (lilconfig), plugin patterns
 * (minimatch), colour support (supports-color, which loads tty), and three of Node's own modules
 * it requires for rare paths (child_process with dgram, perf_hooks, readline: Node 20 compiles
 * each on first load). Each require of one gets a stand-in that loads the package on the first use of
 * an export, so `--version` and `status` no longer evaluate them at start-up (about 15 ms).
 * Whether the package marks itself as an ES module (`__esModule`, which the requiring code asks
 * first) is read at build time, so that asking does not load it.
 */
const LAZY_PACKAGES = ['tinyglobby', 'minimatch', 'cli-spinners', 'ejs', 'lilconfig', 'supports-color', 'node:child_process', 'node:perf_hooks', 'node:readline']
const lazyPackagesPlugin = {
  name: 'lazy-packages',
  setup(builder) {
    const filter = new RegExp(`^(${LAZY_PACKAGES.join('|')})$`)
    builder.onResolve({filter}, (args) =>
      args.namespace === 'lazy-package' || args.kind !== 'require-call' ? undefined : {path: args.path, namespace: 'lazy-package', pluginData: {resolveDir: args.resolveDir}},
    )
    builder.onLoad({filter: /.*/, namespace: 'lazy-package'}, (args) => {
      const esModule = createRequire(join(args.pluginData.resolveDir, 'index.js'))(args.path).__esModule === true
      const contents = `let loaded
const load = () => (loaded ??= require(${JSON.stringify(args.path)}))
module.exports = new Proxy({}, {
  get: (_, key) => (key === '__esModule' ? ${esModule} : load()[key]),
  has: (_, key) => key in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, key) => ({...Reflect.getOwnPropertyDescriptor(load(), key), configurable: true}),
})
`
      return {contents, loader: 'js', resolveDir: args.pluginData.resolveDir}
    })
  },
}

/** `debug` goes through scripts/bundle/quiet-debug.cjs, which loads the package only when DEBUG is set. */
const quietDebugPlugin = {
  name: 'quiet-debug',
  setup(builder) {
    const shim = join(root, 'scripts', 'bundle', 'quiet-debug.cjs')
    builder.onResolve({filter: /^debug$/}, (args) => (args.importer === shim ? undefined : {path: shim}))
  },
}

/**
 * oclif asks wsl-utils whether it runs under WSL every time its configuration loads, and
 * wsl-utils loads child_process (with dgram) and PowerShell helpers as it is imported. The
 * answer comes from is-wsl alone; the PowerShell path, which oclif asks for only on WSL, still
 * comes from wsl-utils, imported when asked.
 */
const wslCheckPlugin = {
  name: 'wsl-check',
  setup(builder) {
    builder.onResolve({filter: /^wsl-utils$/}, (args) =>
      args.namespace === 'wsl-check' ? undefined : {path: 'wsl-utils', namespace: 'wsl-check', pluginData: {resolveDir: args.resolveDir}},
    )
    builder.onLoad({filter: /.*/, namespace: 'wsl-check'}, (args) => ({
      contents: "export {default as isWsl} from 'is-wsl'\nexport const powerShellPath = async () => (await import('wsl-utils')).powerShellPath()\n",
      loader: 'js',
      resolveDir: args.pluginData.resolveDir,
    }))
  },
}

const hookTargets = [
  ...Object.values(oclif.hooks ?? {}).flatMap((hook) => [hook].flat().map((entry) => (typeof entry === 'string' ? entry : entry.target))),
  ...(oclif.helpClass ? [oclif.helpClass] : []),
]

rmSync(join(root, 'dist'), {recursive: true, force: true})
const typeCheck = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], {stdio: 'inherit'})
if (typeCheck.status !== 0) process.exit(typeCheck.status ?? 1)

await build({
  absWorkingDir: root,
  entryPoints: [
    {in: join(srcDir, 'main.ts'), out: 'main'},
    ...commandEntries(),
    ...hookTargets.map(entryFor),
    ...scriptEntries(),
  ],
  outdir: 'dist',
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // typescript: oclif reads tsconfig with it only when developing a plugin from source.
  external: ['libsql', 'open', 'typescript'],
  // Bundled CommonJS (oclif) calls require() for Node's own modules.
  banner: {js: "import {createRequire as __paytxCreateRequire} from 'node:module'; const require = __paytxCreateRequire(import.meta.url);"},
  plugins: [commonJsNamedExportsPlugin, requiredHttpPlugin, lazyPackagesPlugin, quietDebugPlugin, wslCheckPlugin],
  logLevel: 'warning',
})
