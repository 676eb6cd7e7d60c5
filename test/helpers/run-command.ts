/**
 * Runs a paytx command in this process, as `bin/run.js` would run it, with a context of the
 * test's making: stdin given, stdout and stderr captured apart, a private config folder, the
 * environment cleaned as for a spawned CLI (cli.ts cleanEnv), a browser that only records, no
 * keychain, and whatever else the test replaces. The result has the same stdout, stderr and exit
 * code as the spawned CLI: errors go through the base command's one error-to-exit-code mapping,
 * and `--json` errors print their JSON object.
 *
 * The oclif Config is loaded once per test file; commands are loaded from src/, so no build is
 * needed. A test that needs the real process (signals, a terminal, the packaged bin) spawns.
 */
import {PassThrough, Writable} from 'node:stream'
import {join} from 'node:path'
import {Config} from '@oclif/core/config'

import type {CommandContext} from '../../src/context/command-context.js'
import {processContext} from '../../src/context/process-context.js'
import {systemTimer} from '../../src/flow/timer.js'
import type {KeychainAnswer, KeychainOp} from '../../src/profiles/keychain.js'
import {ROOT, cleanEnv} from './cli.js'

export interface CommandResult {
  stdout: string
  stderr: string
  exitCode: number
  /** What `run()` returned (what --json prints), or undefined when it failed. */
  result: unknown
}

export interface RunCommandOptions {
  /** Added to the cleaned environment; undefined removes a variable. */
  env?: Record<string, string | undefined>
  /** Written to stdin, which then ends; without it stdin is empty. */
  input?: string
  configDir?: string
  /** Pretend stdin, stdout and stderr are a terminal of this many columns. */
  terminalColumns?: number
  /** With terminalColumns: stderr is not a terminal (`2>log`), so only stdin and stdout are. */
  stderrToFile?: boolean
  /** Replaces any part of the context (browser, emulator, keychain, clock, service, ...). */
  context?: Partial<CommandContext>
}

let config: Promise<Config> | undefined

/** oclif's Config of this package, loaded once for the test file. */
export function paytxConfig(): Promise<Config> {
  config ??= Config.load({root: ROOT})
  return config
}

/** A browser that opens nothing and remembers every address it was asked to open. */
export function recordingBrowser(): CommandContext['browser'] & {opened: string[]} {
  const opened: string[] = []
  const open = async (url: string) => {
    opened.push(url)
    return {opened: true as const}
  }
  return Object.assign(open, {opened})
}

/** A keychain in memory: `set`, `get` and `delete` on a map the test can read. */
export function memoryKeychain(entries = new Map<string, string>()): CommandContext['keychain'] & {entries: Map<string, string>} {
  return {
    entries,
    async run(ops: readonly KeychainOp[]): Promise<KeychainAnswer[]> {
      return ops.map((op): KeychainAnswer => {
        if (op.op === 'get') return {ok: true, value: entries.get(op.account)}
        if (op.op === 'delete') return {ok: true, deleted: entries.delete(op.account)}
        entries.set(op.account, op.value)
        return {ok: true}
      })
    },
  }
}

/** A keychain that is not there, as on a machine without a Secret Service. */
export const noKeychain: CommandContext['keychain'] = {
  run: async (ops) => ops.map(() => ({ok: false, reason: 'no keychain in this test'})),
}

class Capture extends Writable {
  text = ''
  isTTY?: boolean
  columns?: number

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString()
    done()
  }
}

/** The command id (`customer:create`, or an alias such as `status`) that argv starts with, and the rest. */
function splitCommand(loaded: Config, argv: readonly string[]): {id: string; rest: string[]} {
  for (let words = argv.length; words > 0; words--) {
    const typed = argv.slice(0, words).join(':')
    const found = loaded.commands.find((command) => command.id === typed || command.aliases.includes(typed))
    if (found) return {id: found.id, rest: argv.slice(words)}
  }
  throw new Error(`no paytx command in ${JSON.stringify(argv)}`)
}

interface RunnableCommand {
  id?: string
  useContext(context: CommandContext): RunnableCommand
  _run(): Promise<unknown>
}

type CommandClass = new (argv: string[], config: Config) => RunnableCommand

async function loadCommand(id: string): Promise<CommandClass> {
  const module = (await import(`${join(ROOT, 'src', 'commands', ...id.split(':'))}.ts`)) as {default: CommandClass}
  return module.default
}

/** The command's context for a test: the real one's pieces where harmless, test doubles where not. */
export function testContext(options: RunCommandOptions & {configDir: string}): {context: CommandContext; stdout: Capture; stderr: Capture; exitCode: () => number} {
  const stdout = new Capture()
  const stderr = new Capture()
  const stdin = new PassThrough() as PassThrough & {isTTY?: boolean}
  stdin.end(options.input ?? '')
  if (options.terminalColumns) {
    for (const stream of [stdin, stdout, stderr]) stream.isTTY = true
    stdout.columns = stderr.columns = options.terminalColumns
    if (options.stderrToFile) {
      stderr.isTTY = false
      stderr.columns = undefined
    }
  }
  const env = cleanEnv(options.env, options.configDir)
  let exitCode = 0
  const real = processContext(options.configDir)
  const context: CommandContext = {
    ...real,
    io: {stdin, stdout, stderr},
    env,
    clock: systemTimer,
    invokedAs: 'paytx',
    setExitCode: (code) => (exitCode = code),
    emulator: async (resolved, launch) => {
      const {ensureEmulator} = await import('../../src/flow/embedded-emulator.js')
      return ensureEmulator(resolved, env, launch)
    },
    browser: recordingBrowser(),
    keychain: noKeychain,
    ...options.context,
  }
  return {context, stdout, stderr, exitCode: () => exitCode}
}

/**
 * Runs `paytx <argv>` in this process and returns what the spawned CLI would have shown:
 * `await runCommand(['customer', 'create', '--json', ...flags], {env: {PAYTX_BASE_URL: url}})`.
 */
export async function runCommand(argv: readonly string[], options: RunCommandOptions = {}): Promise<CommandResult> {
  const loaded = await paytxConfig()
  const {id, rest} = splitCommand(loaded, argv)
  const Command = await loadCommand(id)
  // PAYTX_CONFIG_DIR in the test's environment moves the config folder, as it does for the spawned CLI.
  const configDir = options.env?.PAYTX_CONFIG_DIR ?? options.configDir ?? cleanEnv().PAYTX_CONFIG_DIR!
  const run = testContext({...options, configDir})
  const command = new Command(rest, loaded)
  command.id = id
  const result = await command.useContext(run.context)._run()
  return {stdout: run.stdout.text, stderr: run.stderr.text, exitCode: run.exitCode(), result}
}
