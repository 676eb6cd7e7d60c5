#!/usr/bin/env node
// The build (`npm run build`): bundles the CLI into dist/ with esbuild, then writes oclif's
// command list (scripts/write-manifest.js). Type checking is tsc's job (it emits nothing);
// esbuild only strips the types.
//
// dist/ is CommonJS (dist/package.json says so), as bin/run.js is (bin/package.json): Node 20
// keeps no compiled code of ES modules between runs, and starting its ES module loader took a few
// milliseconds of every run. The code is in two files that src/process/app-bundle.ts runs with
// V8's code cache (src/process/code-cache.ts):
// - dist/core.vm.js, which every run loads: oclif (its module paths listed in
//   scripts/bundle/oclif-core.cjs), the hooks and the help class;
// - dist/commands.vm.js: the commands, with everything they import.
// In each, a module is evaluated only when something that needs it is: what a command imports only
// when it needs it (ora, the prompts, the emulator) costs nothing until then.
//
// The files oclif loads come from package.json: oclif.commands (./dist/commands), where
// src/commands/<topic>/<verb>.ts becomes dist/commands/<topic>/<verb>.js, so that a new command
// file is picked up with no edit; oclif.hooks and oclif.helpClass, each ./dist/X.js for src/X.ts.
// Each is one line that takes its module from the two files. dist/main.js, from src/cli/main.ts, is
// what bin/run.js runs. libsql stays outside the bundle (its native binary is found next to its
// package), and so does `open` (it runs the xdg-open script it ships), and undici (loaded only on
// the proxy path).
import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire, isBuiltin} from 'node:module'
import {basename, dirname, join, posix, relative, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

import {build, transform} from 'esbuild'

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
 * after bundling: each becomes dist/x.js, beside the files the starting code ends up in, so the
 * URL finds it. Any other file found that way is not in the bundle: the build stops and says so.
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

/**
 * Packages oclif requires as its modules load but uses only on some paths: command discovery by
 * file pattern (tinyglobby, with fdir and picomatch; paytx's commands come from the manifest),
 * spinners (cli-spinners), templates (ejs), package.json lookups (lilconfig), plugin patterns
 * (minimatch), colour support (supports-color, which loads tty), colours (ansis, which builds
 * every style as it loads, for help and errors only), and four of Node's own modules
 * it requires for rare paths (child_process with dgram, fs/promises, perf_hooks, readline: Node
 * 20 compiles each on first load). Each require of one gets a stand-in that loads the package on the first use of
 * an export, so `--version` and `status` no longer evaluate them at start-up (about 15 ms).
 * Whether the package marks itself as an ES module (`__esModule`, which the requiring code asks
 * first) is read at build time, so that asking does not load it.
 */
const LAZY_PACKAGES = ['tinyglobby', 'minimatch', 'cli-spinners', 'ejs', 'lilconfig', 'supports-color', 'ansis', 'node:child_process', 'node:fs/promises', 'node:perf_hooks', 'node:readline']
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

/** oclif's `ejs` goes through scripts/bundle/plain-text-ejs.cjs, which hands ejs only the texts that hold a tag. */
const plainTextEjsPlugin = {
  name: 'plain-text-ejs',
  setup(builder) {
    const shim = join(root, 'scripts', 'bundle', 'plain-text-ejs.cjs')
    // The shim's own require of ejs, and the lazy stand-in's (lazyPackagesPlugin) for it, reach the package.
    builder.onResolve({filter: /^ejs$/}, (args) => (args.importer === shim || args.namespace === 'lazy-package' ? undefined : {path: shim}))
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

/**
 * oclif is in dist/core.vm.js, and dist/commands.vm.js takes it from there: each import of
 * @oclif/core or one of its module paths, from a command or a bundled oclif plugin, is that
 * path's module from the oclifCoreModule the file is given as a variable (src/process/app-bundle.ts).
 */
const oclifCoreFromCorePlugin = {
  name: 'oclif-core-from-core',
  setup(builder) {
    builder.onResolve({filter: /^@oclif\/core(\/.*)?$/}, (args) =>
      args.kind === 'import-statement' || args.kind === 'dynamic-import' ? {path: args.path, namespace: 'oclif-core'} : undefined,
    )
    builder.onLoad({filter: /.*/, namespace: 'oclif-core'}, (args) => {
      if (!readFileSync(join(root, 'scripts', 'bundle', 'oclif-core.cjs'), 'utf8').includes(`'${args.path}': () => require('${args.path}')`)) {
        throw new Error(`${args.path} is imported but scripts/bundle/oclif-core.cjs does not list it`)
      }
      return {contents: `module.exports = oclifCoreModule(${JSON.stringify(args.path)})\n`, loader: 'js'}
    })
  },
}

/**
 * Rewrites of oclif's code where it costs every run for nothing paytx needs. The build stops if
 * the code no longer reads as expected (look at the rewrite again after updating oclif).
 * - Its configuration sorts the manifest's commands by id with localeCompare, and the first
 *   localeCompare of a process sets up ICU's collator: 10 to 40 ms of every command. For ids of
 *   lowercase letters, `:` and `-` (every paytx id), the collator's order is that of the
 *   characters' codes, compared directly; any other id is still compared with localeCompare.
 * - It reads package.json, the manifest and the theme with fs/promises: each read four trips
 *   through libuv's threads, and fs/promises itself (required at start, with readline) is a
 *   millisecond of loading on Node 20. They are read synchronously: the same files, the same
 *   errors (node:fs/promises is then loaded only if used: LAZY_PACKAGES).
 * - Command.run loads the configuration again from the one it is given, so that a command built
 *   against another version of oclif gets a configuration of its own. paytx's commands use the
 *   bundle's one oclif, so a configuration of the same oclif is used as it is (about a
 *   millisecond of every command).
 */
const OCLIF_REWRITES = [
  {
    file: /[\\/]node_modules[\\/]@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/,
    from: '.sort((a, b) => a.id.localeCompare(b.id))',
    to: '.sort((a, b) => (/^[a-z:-]*$/.test(a.id + b.id) ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.id.localeCompare(b.id)))',
  },
  {
    file: /[\\/]node_modules[\\/]@oclif[\\/]core[\\/]lib[\\/]util[\\/]fs\.js$/,
    from: "const contents = await (0, promises_1.readFile)(path, 'utf8');",
    to: "const contents = (0, node_fs_1.readFileSync)(path, 'utf8');",
  },
  {
    file: /[\\/]node_modules[\\/]@oclif[\\/]core[\\/]lib[\\/]config[\\/]config\.js$/,
    from: '        if (isConfig(opts)) {\n            debug(`reloading config from ${opts._base} to ${BASE}`);',
    to: '        if (opts instanceof Config && opts._base === BASE)\n            return opts;\n        if (isConfig(opts)) {\n            debug(`reloading config from ${opts._base} to ${BASE}`);',
  },
]

/**
 * Rewrites of the bundled packages' code, for the files run with the code cache. Node 20 loses a
 * script's dynamic import() callback when V8 takes the script's code from a cache ("A dynamic
 * import callback was not specified"), and Node 22 and later refuse import() in a vm.Script given
 * none. So each import() of a path known only at run time (oclif loading a command's or hook's
 * file, lilconfig a config file) calls importModule instead: a variable that
 * src/process/code-cache.ts gives the file, an import() of its own ES module. import() of a
 * named package stays, to be bundled. And OCLIF_REWRITES.
 */
const packageRewritesPlugin = {
  name: 'package-rewrites',
  setup(builder) {
    builder.onLoad({filter: /[\\/]node_modules[\\/].*\.c?js$/}, (args) => {
      const source = readFileSync(args.path, 'utf8')
      let rewritten = source.replaceAll(/\bawait import\((?!\s*['"`])/g, 'await importModule(')
      for (const {file, from, to} of OCLIF_REWRITES.filter((rewrite) => rewrite.file.test(args.path))) {
        if (!rewritten.includes(from)) throw new Error(`${args.path} no longer reads as scripts/build.js expects (${from}): look at OCLIF_REWRITES again`)
        rewritten = rewritten.replace(from, to)
      }
      return rewritten === source ? undefined : {contents: rewritten, loader: 'js'}
    })
  },
}

/** Packages left outside the bundle (see the header); typescript: oclif reads tsconfig with it only when developing a plugin from source. */
const EXTERNAL = ['libsql', 'open', 'typescript', 'undici']

/**
 * In a file run with the code cache, an import() must not reach V8 (see packageRewritesPlugin).
 * One of Node's own modules becomes a require() (esbuild lowers it: `supported` below). A package
 * left outside stays an import() in the output (`open` is an ES module, which Node 20 cannot
 * require), which this points at importModule. The build stops on any other import().
 */
function importsThroughImportModule(output, text, file) {
  let rewritten = text
  for (const {path, kind, external} of output.imports) {
    if (kind !== 'dynamic-import' || !external || isBuiltin(path)) continue
    const call = `import(${JSON.stringify(path)})`
    if (!EXTERNAL.includes(path) || !rewritten.includes(call)) throw new Error(`${file}: an import() of ${path} the build does not point at importModule`)
    rewritten = rewritten.replaceAll(call, `importModule(${JSON.stringify(path)})`)
  }
  return rewritten
}

/**
 * The CommonJS files are read as Latin-1 when they are ASCII (code-cache.ts), several times faster
 * than UTF-8, and V8 keeps one byte a character. esbuild (its charset is ASCII) escapes every
 * string, template and name, but keeps comments and regular expression literals as written: there,
 * a character outside ASCII becomes \uXXXX, which means the same in a regular expression (with or
 * without the u flag, a pair of surrogate escapes included). Such a character anywhere else (a
 * tagged template's raw text) stops the build.
 */
function asciiOnly(text, file) {
  if (!/[^\x00-\x7f]/.test(text)) return text
  const ts = createRequire(import.meta.url)('typescript')
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS)
  const escapable = []
  const visit = (node) => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) escapable.push([node.getStart(source), node.end])
    for (const comment of [...(ts.getLeadingCommentRanges(text, node.pos) ?? []), ...(ts.getTrailingCommentRanges(text, node.end) ?? [])]) escapable.push([comment.pos, comment.end])
    ts.forEachChild(node, visit)
  }
  visit(source)
  return text.replaceAll(/[^\x00-\x7f]/g, (character, at) => {
    if (!escapable.some(([start, end]) => at >= start && at < end)) {
      throw new Error(`${file}: a character outside ASCII that is not in a comment or a regular expression, at line ${text.slice(0, at).split('\n').length}`)
    }
    return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`
  })
}

/**
 * A file run with the code cache is a CommonJS module wrapped in the function Node would wrap it
 * in (src/process/code-cache.ts gives V8 the file as read), with what the loader hands it as
 * `host` (importModule, oclifCoreModule).
 */
const MODULE_FUNCTION_END = '})'
/** Strict, as the ES modules the files are built from were; the URL of the file, for import.meta.url. */
const MODULE_PROLOGUE = "'use strict';\nconst __paytxModuleUrl = require('node:url').pathToFileURL(__filename).href;"
const MODULE_FUNCTION_START = `(function (exports, require, module, __filename, __dirname, host) {\n${MODULE_PROLOGUE}\nconst {importModule, oclifCoreModule} = host;`
/**
 * The files run with the code cache are read whole on every run (Node copies them twice, into a
 * buffer and a string): without the whitespace and comments they are a quarter to a third
 * smaller (2.37 to 1.82 MB, 0.74 to 0.50 MB), about a millisecond of every status. Names are
 * kept, so a stack trace (--verbose, DEBUG) still names the functions.
 */
const CODE_CACHED_MINIFY = {minifyWhitespace: true}

/**
 * Builds a CommonJS file. `codeCache`: the file is run by src/process/code-cache.ts, wrapped (see
 * above, and packageRewritesPlugin); the build returns its id, a hash of the file. Otherwise Node
 * runs it (dist/main.js, the scripts).
 */
async function buildCommonJs(outfile, {define, plugins = [], ...options}, {codeCache}) {
  const result = await build({
    absWorkingDir: root,
    outfile,
    write: false,
    metafile: true,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    ...(codeCache ? {supported: {'dynamic-import': false}, ...CODE_CACHED_MINIFY} : {}),
    // The URL of the module itself: a file in dist/, beside the scripts found with new URL('x.js', import.meta.url).
    define: {'import.meta.url': '__paytxModuleUrl', ...define},
    banner: {js: codeCache ? MODULE_FUNCTION_START : MODULE_PROLOGUE},
    footer: {js: codeCache ? MODULE_FUNCTION_END : ''},
    logLevel: 'warning',
    ...options,
    plugins: [...plugins, lazyPackagesPlugin, quietDebugPlugin, wslCheckPlugin, ...(codeCache ? [packageRewritesPlugin] : [])],
  })
  const [file] = result.outputFiles
  const output = Object.values(result.metafile.outputs)[0]
  const text = asciiOnly(codeCache ? importsThroughImportModule(output, file.text, outfile) : file.text, outfile)
  mkdirSync(dirname(file.path), {recursive: true})
  writeFileSync(file.path, text)
  return buildId(text)
}

const hookTargets = [
  ...Object.values(oclif.hooks ?? {}).flatMap((hook) => [hook].flat().map((entry) => (typeof entry === 'string' ? entry : entry.target))),
  ...(oclif.helpClass ? [oclif.helpClass] : []),
]
/** The hooks and the help class: what oclif may load before or instead of a command. */
const frameEntries = hookTargets.map(entryFor)

/** A module exporting, by name, a function that loads each entry when called. */
const entriesModule = (entries) => `{\n${entries.map((entry) => `  ${JSON.stringify(entry.out)}: () => require(${JSON.stringify(entry.in)}),`).join('\n')}\n}`

/** The build id of a file: a hash of its content. */
const buildId = (text) => createHash('sha256').update(text).digest('hex').slice(0, 16)

/**
 * dist/commands.vm.js: the commands as esbuild splits them into ES modules (each command's own file
 * and the chunks they share), each turned into a CommonJS function, in a table run from by a
 * require of its own (a chunk is run once, when first required). V8 compiles a file's top level in
 * full, with a record of each function declared there: built as one bundle, the commands' top
 * level (over 1,000 functions hoisted there) was 390 KB of every command's code cache. Here it is
 * the table, and a chunk is compiled only when a command requires it.
 */
async function buildCommandsFile() {
  const result = await build({
    absWorkingDir: root,
    entryPoints: commandEntries(),
    outdir: 'dist',
    chunkNames: 'chunk-[hash]',
    write: false,
    metafile: true,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    define: {'import.meta.url': '__paytxModuleUrl'},
    plugins: [oclifCoreFromCorePlugin, lazyPackagesPlugin, quietDebugPlugin, wslCheckPlugin, packageRewritesPlugin],
    logLevel: 'warning',
  })
  const chunks = []
  for (const file of result.outputFiles) {
    const name = relative(join(root, 'dist'), file.path).split(sep).join('/')
    const esm = importsThroughImportModule(result.metafile.outputs[`dist/${name}`], file.text, name)
    // import() of a chunk or of Node's own module becomes a require() (a package left outside went through importModule above).
    const {code} = await transform(esm, {format: 'cjs', loader: 'js', target: 'node20', supported: {'dynamic-import': false}, sourcefile: name, ...CODE_CACHED_MINIFY})
    chunks.push({name, code})
  }
  const names = new Set(chunks.map((chunk) => chunk.name))
  // A chunk's require of another chunk goes straight to the table, resolved here rather than on every run.
  const table = chunks.map(({name, code}) => {
    const linked = code.replaceAll(/\brequire\("(\.{1,2}\/[^"]+)"\)/g, (call, specifier) => {
      const target = posix.join(posix.dirname(name), specifier)
      if (!names.has(target)) throw new Error(`dist/commands.vm.js: ${name} requires ${specifier}, which is no chunk`)
      return `__paytxRequire(${JSON.stringify(target)})`
    })
    return `${JSON.stringify(name)}(exports, require, module) {\n${linked}},\n`
  })
  const entries = commandEntries().map((entry) => `  ${JSON.stringify(entry.out)}: () => __paytxRequire(${JSON.stringify(`${entry.out}.js`)}),\n`)
  const text = `${MODULE_FUNCTION_START}
const __paytxChunks = {
${table.join('')}};
const __paytxLoaded = new Map();
function __paytxRequire(name) {
  const loaded = __paytxLoaded.get(name);
  if (loaded) return loaded.exports;
  const module = {exports: {}};
  __paytxLoaded.set(name, module);
  __paytxChunks[name].call(module.exports, module.exports, require, module);
  return module.exports;
}
module.exports = {entries: {
${entries.join('')}}};
${MODULE_FUNCTION_END}
`
  const ascii = asciiOnly(text, 'dist/commands.vm.js')
  writeFileSync(join(root, 'dist', 'commands.vm.js'), ascii)
  return buildId(ascii)
}

/** dist/core.vm.js and dist/commands.vm.js (see the header); returns their build ids. */
async function buildCodeCachedFiles() {
  const core = `module.exports = {\n  oclifCore: require(${JSON.stringify(join(root, 'scripts', 'bundle', 'oclif-core.cjs'))}),\n  entries: ${entriesModule(frameEntries)},\n}\n`
  return {
    core: await buildCommonJs(join('dist', 'core.vm.js'), {stdin: {contents: core, resolveDir: root, sourcefile: 'core-entries.cjs', loader: 'js'}, plugins: [plainTextEjsPlugin]}, {codeCache: true}),
    commands: await buildCommandsFile(),
  }
}

/** The files oclif loads for a command, a hook or the help class: each is that entry's module, from dist/main.js. */
function writeEntryFiles() {
  for (const entry of [...frameEntries, ...commandEntries()]) {
    const file = join(root, 'dist', `${entry.out}.js`)
    const main = relative(dirname(file), join(root, 'dist', 'main.js')).split(sep).join('/')
    mkdirSync(dirname(file), {recursive: true})
    writeFileSync(file, `'use strict'\nmodule.exports = require(${JSON.stringify(main.startsWith('.') ? main : `./${main}`)}).appModule(${JSON.stringify(entry.out)})\n`)
  }
}

rmSync(join(root, 'dist'), {recursive: true, force: true})
const typeCheck = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')], {stdio: 'inherit'})
if (typeCheck.status !== 0) process.exit(typeCheck.status ?? 1)

const bundleIds = await buildCodeCachedFiles()
await buildCommonJs(join('dist', 'main.js'), {entryPoints: [join(srcDir, 'cli', 'main.ts')], define: {PAYTX_BUNDLE_IDS: JSON.stringify(bundleIds)}}, {codeCache: false})
for (const script of scriptEntries()) await buildCommonJs(join('dist', `${script.out}.js`), {entryPoints: [script.in]}, {codeCache: false})
writeEntryFiles()
writeFileSync(join(root, 'dist', 'package.json'), `${JSON.stringify({type: 'commonjs'}, null, 2)}\n`)

// The library (package.json `exports`: paytx, paytx/contract, paytx/emulator, paytx/testing): each facade of
// src/lib/ bundled as dist/lib-<name>.js, beside the worker scripts the emulator finds with
// new URL('x.js', import.meta.url), and its types under dist/types/ (tsconfig.types.json).
const LIBRARY_FACADES = ['contract', 'emulator', 'testing']
// The index re-exports the other facades' files, and paytx/testing takes the emulator from
// paytx/emulator's: `paytx`, `paytx/emulator` and `paytx/testing` share one emulator module, not copies.
const libraryFacadesPlugin = {
  name: 'library-facades',
  setup(builder) {
    builder.onResolve({filter: new RegExp(`^\\./(${LIBRARY_FACADES.join('|')})\\.js$`)}, (args) =>
      dirname(args.importer) === join(srcDir, 'lib') ? {path: `./lib-${args.path.slice(2)}`, external: true} : undefined,
    )
    builder.onResolve({filter: /^\.\.\/emulator\/index\.js$/}, (args) =>
      args.importer === join(srcDir, 'testing', 'test-emulator.ts') ? {path: './lib-emulator.js', external: true} : undefined,
    )
  },
}
for (const name of LIBRARY_FACADES) await buildCommonJs(join('dist', `lib-${name}.js`), {entryPoints: [join(srcDir, 'lib', `${name}.ts`)], plugins: [libraryFacadesPlugin]}, {codeCache: false})
await buildCommonJs(join('dist', 'lib-index.js'), {entryPoints: [join(srcDir, 'lib', 'index.ts')], plugins: [libraryFacadesPlugin]}, {codeCache: false})
const types = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.types.json')], {stdio: 'inherit'})
if (types.status !== 0) process.exit(types.status ?? 1)

// The command list oclif reads at start-up (oclif.manifest.json).
const manifest = spawnSync(process.execPath, [join(root, 'scripts', 'write-manifest.js')], {stdio: 'inherit'})
if (manifest.status !== 0) process.exit(manifest.status ?? 1)
