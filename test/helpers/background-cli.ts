/**
 * Spawns the built CLI for commands that keep running (listeners): read its output while it
 * runs, wait for a line, then stop it with a signal and get stdout, stderr and the exit code.
 */
import {spawn} from 'node:child_process'

import {BIN, type CliOptions, type CliResult, ROOT, cleanEnv} from './cli.js'

export interface BackgroundCli {
  pid: number
  stdout(): string
  stderr(): string
  /** Resolves once the stream's text matches; rejects on timeout or when the process ends first. */
  waitFor(stream: 'stdout' | 'stderr', match: RegExp | ((text: string) => boolean), timeoutMs?: number): Promise<void>
  /** Sends the signal (default SIGINT) and resolves when the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>
  exited: Promise<CliResult>
}

export function startCli(args: string[], options: Omit<CliOptions, 'input'> = {}): BackgroundCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: cleanEnv(options.env, options.configDir),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const output = {stdout: '', stderr: ''}
  const listeners = new Set<() => void>()
  const changed = () => {
    for (const listener of listeners) listener()
  }
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk
    changed()
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk
    changed()
  })
  const killer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 25_000)
  const exited = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(killer)
      resolve({code, signal, stdout: output.stdout, stderr: output.stderr})
      changed()
    })
  })
  let ended = false
  void exited.then(() => (ended = true))

  return {
    pid: child.pid!,
    stdout: () => output.stdout,
    stderr: () => output.stderr,
    waitFor(stream, match, timeoutMs = 10_000) {
      const test = typeof match === 'function' ? match : (text: string) => match.test(text)
      return new Promise((resolve, reject) => {
        const check = () => {
          if (test(output[stream])) {
            done()
            resolve()
          } else if (ended || child.exitCode !== null) {
            done()
            reject(new Error(`the CLI exited (${child.exitCode}) before ${stream} matched ${match}\n--- stdout:\n${output.stdout}\n--- stderr:\n${output.stderr}`))
          }
        }
        const timer = setTimeout(() => {
          done()
          reject(new Error(`timed out waiting for ${stream} to match ${match}\n--- stdout:\n${output.stdout}\n--- stderr:\n${output.stderr}`))
        }, timeoutMs)
        const done = () => {
          clearTimeout(timer)
          listeners.delete(check)
        }
        listeners.add(check)
        check()
      })
    },
    stop(signal = 'SIGINT') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
    exited,
  }
}
