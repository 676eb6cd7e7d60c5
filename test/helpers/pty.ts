/**
 * Runs bin/run.js inside a real pseudo-terminal (util-linux `script`), so that prompts are drawn
 * and answered as a person would: keystrokes go in, the terminal's screen comes out.
 */
import {spawn} from 'node:child_process'

import {has} from './capabilities.js'
import {BIN, ROOT, cleanEnv} from './cli.js'

export interface PtySession {
  /** Everything the terminal showed so far (stdout and stderr together, as on a screen). */
  readonly output: () => string
  type(text: string): void
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>
  exited: Promise<number | null>
}

/** Gated by test/tiers.ts: util-linux's `script` is on every Linux that has util-linux. */
export const ptyAvailable = has('terminal')

const quote = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`

export interface PtyOptions {
  env?: Record<string, string | undefined>
  configDir?: string
  /** Gives the pseudo-terminal a size (`stty`), as a real terminal has; without it the size is 0 × 0. */
  size?: {columns: number; rows: number}
}

export function runInPty(args: string[], options: PtyOptions = {}): PtySession {
  const run = [process.execPath, BIN, ...args].map(quote).join(' ')
  const command = options.size ? `stty cols ${options.size.columns} rows ${options.size.rows}; exec ${run}` : run
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: ROOT,
    // Not CI, whatever the machine running the tests says: a person is at this terminal.
    env: {...cleanEnv({CI: undefined, ...options.env}, options.configDir), TERM: 'xterm', COLUMNS: '200', LINES: '50'},
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let output = ''
  const waiters: {pattern: RegExp; resolve: () => void}[] = []
  const onData = (chunk: string) => {
    output += chunk
    for (const waiter of [...waiters]) {
      if (waiter.pattern.test(output)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
    }
  }
  child.stdout.setEncoding('utf8').on('data', onData)
  child.stderr.setEncoding('utf8').on('data', onData)
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000)
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(killer)
      resolve(code)
    }),
  )
  return {
    output: () => output,
    type: (text) => child.stdin.write(text),
    waitFor: (pattern, timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        if (pattern.test(output)) return resolve()
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${pattern} in:\n${output}`)), timeoutMs)
        waiters.push({pattern, resolve: () => (clearTimeout(timer), resolve())})
      }),
    exited,
  }
}
