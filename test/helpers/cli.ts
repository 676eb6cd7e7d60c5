/**
 * Spawns the built CLI (`bin/run.js`) with the same Node as the test runner, in a private config
 * dir, and returns stdout, stderr and the exit code separately.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

export const ROOT = resolve(import.meta.dirname, '..', '..')
export const BIN = join(ROOT, 'bin', 'run.js')

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export interface CliOptions {
  env?: Record<string, string | undefined>
  /** Written to stdin, then stdin is closed. */
  input?: string
  /** startCli only: stdin stays open for the test to write to (child.stdin) and end. */
  openStdin?: boolean
  configDir?: string
  timeoutMs?: number
  cwd?: string
}

export function tempConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'paytx-test-'))
}

/**
 * An environment without the caller's PAYTX_* variables, so tests never touch a real profile, and
 * without vitest's NODE_ENV=test, which would put oclif in development mode (not what users run).
 */
export function cleanEnv(extra: Record<string, string | undefined> = {}, configDir?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  // Proxy variables too: a test that wants a proxy sets its own, and no test goes through the machine's.
  const proxyVariable = /^(https?|no|all)_proxy$/i
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('PAYTX_') && !proxyVariable.test(key) && !['BROWSER', 'DEBUG', 'NODE_ENV'].includes(key)) env[key] = value
  env.PAYTX_CONFIG_DIR = configDir ?? tempConfigDir()
  // The emulator's store of local commands lives beside the test's config, never in the user's data folder.
  env.PAYTX_DATA_DIR = join(env.PAYTX_CONFIG_DIR, 'data')
  // So is oclif's cache (shell completion scripts), never the user's ~/.cache/paytx.
  env.PAYTX_CACHE_DIR = join(env.PAYTX_CONFIG_DIR, 'cache')
  env.NO_COLOR = '1'
  // Not a CI job, whatever the host is (CI sets CI=true): prompts, live lines and spinners depend
  // on it, and a test that wants a CI job sets CI itself.
  delete env.CI
  // Nor one of a sharded CI job: `smoke run` reads these to pick its shard.
  for (const shard of ['CI_NODE_INDEX', 'CI_NODE_TOTAL', 'CIRCLE_NODE_INDEX', 'CIRCLE_NODE_TOTAL', 'BUILDKITE_PARALLEL_JOB', 'BUILDKITE_PARALLEL_JOB_COUNT']) delete env[shard]
  // Keys go to the OS keychain: no test reaches the user's. Keychain tests pass the address of a
  // private bus with its own keyring (test/helpers/secret-service.ts); the rest see none at all.
  env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${join(env.PAYTX_CONFIG_DIR, 'no-session-bus')}`
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return env
}

/**
 * Every CLI a test started that is still running. test/helpers/setup.ts kills them after each
 * test file, so that a failed test (which never reaches its own stop()) leaves no emulator or
 * listener running after the suite.
 */
const running = new Set<ChildProcess>()

export function killStartedClis(): void {
  for (const child of running) child.kill('SIGKILL')
  running.clear()
}

function tracked<T extends ChildProcess>(child: T): T {
  running.add(child)
  child.once('exit', () => running.delete(child))
  return child
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = tracked(
      spawn(process.execPath, [BIN, ...args], {
        cwd: options.cwd ?? ROOT,
        env: cleanEnv(options.env, options.configDir),
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
    )
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 25_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolvePromise({code, signal, stdout, stderr})
    })
    if (options.input !== undefined) child.stdin.end(options.input)
    else child.stdin.end()
  })
}

/** Parses stdout as exactly one JSON document (fails the test otherwise). */
export function parseJsonOutput<T = any>(result: Pick<CliResult, 'stdout' | 'stderr'>): T {
  try {
    return JSON.parse(result.stdout) as T
  } catch {
    throw new Error(`stdout is not one JSON document:\n${result.stdout}\n--- stderr:\n${result.stderr}`)
  }
}

export interface RunningCli {
  child: import('node:child_process').ChildProcessWithoutNullStreams
  stdout(): string
  stderr(): string
  /** Resolves with the first match of the pattern in stdout, as it streams in. */
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>
  /** Resolves with the first match of the pattern in stderr, as it streams in. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>
  /** Resolves once the stream's text passes the test (a pattern or a predicate); rejects on timeout or when the process ends first. */
  waitFor(stream: 'stdout' | 'stderr', test: RegExp | ((text: string) => boolean), timeoutMs?: number): Promise<void>
  /** Sends the signal (default SIGINT) unless the process has ended, and resolves when it has. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>
  /** Resolves when the process has ended. */
  done: Promise<CliResult>
}

/**
 * Starts bin/run.js without waiting for it, for tests that act while it runs (browser, Ctrl-C,
 * listeners, `emulator start`). It is killed after `timeoutMs` (default 25 s) in any case.
 */
export function startCli(args: string[], options: CliOptions = {}): RunningCli {
  const child = tracked(
    spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: cleanEnv(options.env, options.configDir),
      stdio: ['pipe', 'pipe', 'pipe'],
    }),
  )
  const output = {stdout: '', stderr: ''}
  const watchers = new Set<() => void>()
  const changed = () => {
    for (const watcher of watchers) watcher()
  }
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk
    changed()
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk
    changed()
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 25_000)
  const done = new Promise<CliResult>((resolvePromise, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      changed()
      resolvePromise({code, signal, stdout: output.stdout, stderr: output.stderr})
    })
  })
  if (options.input !== undefined) child.stdin.end(options.input)
  else if (!options.openStdin) child.stdin.end()

  const waitFor = (stream: 'stdout' | 'stderr', test: RegExp | ((text: string) => boolean), timeoutMs = 15_000) =>
    new Promise<void>((resolvePromise, reject) => {
      const passes = typeof test === 'function' ? test : (text: string) => test.test(text)
      const check = () => {
        if (passes(output[stream])) {
          cleanup()
          resolvePromise()
        } else if (child.exitCode !== null || child.signalCode !== null) {
          cleanup()
          reject(new Error(`the CLI ended before ${stream} matched ${test}:\n--- stdout:\n${output.stdout}\n--- stderr:\n${output.stderr}`))
        }
      }
      const giveUp = setTimeout(() => {
        cleanup()
        reject(new Error(`${stream} did not match ${test} within ${timeoutMs} ms:\n--- stdout:\n${output.stdout}\n--- stderr:\n${output.stderr}`))
      }, timeoutMs)
      const cleanup = () => {
        clearTimeout(giveUp)
        watchers.delete(check)
      }
      watchers.add(check)
      check()
    })

  return {
    child,
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    done,
    waitFor,
    async waitForStdout(pattern, timeoutMs) {
      await waitFor('stdout', pattern, timeoutMs)
      return output.stdout.match(pattern)!
    },
    async waitForStderr(pattern, timeoutMs) {
      await waitFor('stderr', pattern, timeoutMs)
      return output.stderr.match(pattern)!
    },
    stop(signal = 'SIGINT') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return done
    },
  }
}
