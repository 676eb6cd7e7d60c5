/**
 * A long-running CLI process (such as `paytx emulator start`): spawned like `runCli`, with its
 * output watched while it runs and a signal to stop it.
 */
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process'

import {BIN, type CliResult, ROOT, cleanEnv} from './cli.js'

export interface CliProcess {
  child: ChildProcessWithoutNullStreams
  stdout(): string
  stderr(): string
  /** Resolves with the first match in stdout (or stderr with `stream: 'stderr'`). */
  waitFor(pattern: RegExp, options?: {stream?: 'stdout' | 'stderr'; timeoutMs?: number}): Promise<RegExpMatchArray>
  /** Sends the signal and resolves when the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>
  /** Resolves when the process exits by itself. */
  exited: Promise<CliResult>
}

export function startCli(args: string[], options: {env?: Record<string, string | undefined>; configDir?: string} = {}): CliProcess {
  const child = spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env: cleanEnv(options.env, options.configDir), stdio: ['pipe', 'pipe', 'pipe']})
  let stdout = ''
  let stderr = ''
  const listeners = new Set<() => void>()
  const changed = () => {
    for (const listener of listeners) listener()
  }
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    changed()
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
    changed()
  })
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  const exited = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(killer)
      resolve({code, signal, stdout, stderr})
      changed()
    })
  })
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    waitFor(pattern, {stream = 'stdout', timeoutMs = 15_000} = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = (stream === 'stdout' ? stdout : stderr).match(pattern)
          if (match) {
            finish()
            resolve(match)
          } else if (child.exitCode !== null || child.signalCode !== null) {
            finish()
            reject(new Error(`the process exited before ${stream} matched ${pattern}\n--- stdout:\n${stdout}\n--- stderr:\n${stderr}`))
          }
        }
        const timer = setTimeout(() => {
          finish()
          reject(new Error(`${stream} did not match ${pattern} within ${timeoutMs}ms\n--- stdout:\n${stdout}\n--- stderr:\n${stderr}`))
        }, timeoutMs)
        const finish = () => {
          clearTimeout(timer)
          listeners.delete(check)
        }
        listeners.add(check)
        check()
      })
    },
    async stop(signal = 'SIGINT') {
      child.kill(signal)
      return exited
    },
  }
}
