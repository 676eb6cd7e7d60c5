/**
 * An emulator dies with its owner (src/process/owner.ts): a harness killed outright (SIGKILL, as
 * a CI timeout does) leaves no emulator running, whether the emulator is its child or sits behind
 * a wrapper that stays alive itself (as `npx` does). And under --json an error is one line.
 * Each process here is spawned with a timeout; the test waits for the emulator's output to close,
 * which happens only when every process holding it has exited.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {createServer} from 'node:net'
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {BIN, ROOT, cleanEnv, runCli, tempConfigDir} from '../helpers/cli.js'

const CHILD_TIMEOUT_MS = 30_000

/**
 * A node program that starts `args` (a node command line) with stdio inherited, and exits with it:
 * a stand-in for a harness's runner or for `npx`, which keeps running while its child does.
 */
const WRAPPER = `
const {spawn} = require('node:child_process')
const [stdinMode, ...args] = process.argv.slice(1)
const child = spawn(process.execPath, args, {stdio: [stdinMode, 'inherit', 'inherit'], timeout: ${CHILD_TIMEOUT_MS}})
process.stdout.write(JSON.stringify({spawned: child.pid}) + '\\n')
child.on('exit', (code) => process.exit(code ?? 1))
`

function wrapped(stdinMode: 'inherit' | 'pipe', args: string[]): string[] {
  return ['-e', WRAPPER, stdinMode, ...args]
}

interface Watched {
  child: ChildProcess
  stdout: () => string
  /** Settles once every process holding the output has closed it (exited); rejects after 20 s. */
  closed: Promise<void>
  /** Kills every process the harness started (they say their pids), should one have outlived it. */
  killAll(): void
  waitForStdout(pattern: RegExp): Promise<void>
}

function watch(child: ChildProcess): Watched {
  let output = ''
  const waiters: {pattern: RegExp; resolve: () => void}[] = []
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
    for (const waiter of [...waiters]) if (waiter.pattern.test(output)) waiters.splice(waiters.indexOf(waiter), 1), waiter.resolve()
  })
  const closed = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still running 20 s after its owner was killed; output:\n${output}`)), 20_000)
    child.stdout!.on('close', () => (clearTimeout(timer), resolve()))
  })
  return {
    child,
    stdout: () => output,
    closed,
    killAll() {
      for (const [, pid] of output.matchAll(/"spawned":(\d+)/g)) {
        try {
          process.kill(Number(pid), 'SIGKILL')
        } catch {
          // gone already, as it should be
        }
      }
    },
    waitForStdout: (pattern) => (pattern.test(output) ? Promise.resolve() : new Promise((resolve) => waiters.push({pattern, resolve}))),
  }
}

function emulatorArgs(...more: string[]): string[] {
  return [BIN, 'emulator', 'start', '--port', '0', '--store', ':memory:', '--json', ...more]
}

function env(): NodeJS.ProcessEnv {
  return cleanEnv({PAYTX_DATA_DIR: mkdtempSync(join(tmpdir(), 'paytx-owner-'))}, tempConfigDir())
}

/**
 * Runs the harness (node with `args`), waits for the emulator's listening line, kills the harness
 * with SIGKILL, waits until every process holding the output has exited, and gives the output's
 * last line. Whatever outlived the harness is killed after.
 */
async function lastLineAfterKillingHarness(args: string[]): Promise<string | undefined> {
  const harness = watch(spawn(process.execPath, args, {cwd: ROOT, env: env(), stdio: ['ignore', 'pipe', 'ignore'], timeout: CHILD_TIMEOUT_MS}))
  await harness.waitForStdout(/"event":"listening"/)
  harness.child.kill('SIGKILL')
  try {
    await harness.closed
  } finally {
    harness.killAll()
  }
  return harness.stdout().trim().split('\n').at(-1)
}

describe('an emulator dies with its owner', () => {
  it('its parent killed with SIGKILL: it stops cleanly by itself, saying why', async () => {
    // test -> harness (killed) -> emulator: the emulator's parent goes away.
    expect(await lastLineAfterKillingHarness(wrapped('inherit', emulatorArgs()))).toBe('{"event":"stopped","reason":"parent-exited"}')
  })

  it('with --exit-with-stdin, behind a wrapper that stays alive (as npx does): the harness killed closes the pipe, and it stops', async () => {
    // test -> harness (killed; holds the pipe) -> wrapper (alive while its child is) -> emulator.
    // --no-exit-with-parent: the emulator's own parent never goes away here; only stdin tells.
    const wrapper = wrapped('inherit', emulatorArgs('--exit-with-stdin', '--no-exit-with-parent'))
    expect(await lastLineAfterKillingHarness(wrapped('pipe', wrapper))).toBe('{"event":"stopped","reason":"stdin-closed"}')
  })

  it('under --json an error is one line on stdout that a line reader parses, and words on stderr', async () => {
    const busy = createServer()
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
    const {port} = busy.address() as {port: number}
    try {
      const result = await runCli(['emulator', 'start', '--port', String(port), '--store', ':memory:', '--json'], {env: {PAYTX_DATA_DIR: mkdtempSync(join(tmpdir(), 'paytx-owner-'))}})
      expect(result.code).toBe(2)
      const lines = result.stdout.split('\n').filter(Boolean)
      expect(lines).toHaveLength(1)
      expect(JSON.parse(lines[0])).toMatchObject({error: {kind: 'input', exitCode: 2}})
      expect(JSON.parse(lines[0]).error.message).toContain(String(port))
      expect(result.stderr).toMatch(/^Error: .*\d+/m)
    } finally {
      busy.close()
    }
  })
})
