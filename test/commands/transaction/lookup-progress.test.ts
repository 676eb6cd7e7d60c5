/**
 * Progress of `status` / `checkoutsuccess` with many ids, and the signs of life of their waits,
 * in-process: the live line only when stdout and stderr are both terminals and no --json, cleared
 * before the first row and before every note; plain lines at most every few seconds by the
 * context's clock elsewhere; `status -` on a terminal and `status <id> --wait` say what they wait
 * for, for how long and how to stop. What only a real terminal shows (Ctrl-C) is in
 * test/e2e/lookup-progress-pty.test.ts.
 */
import {Writable} from 'node:stream'
import {PassThrough} from 'node:stream'
import {describe, expect, it} from 'vitest'

import {STDIN_PROMPT} from '../../../src/cli/transaction-lookup-command.js'
import type {CommandContext} from '../../../src/context/command-context.js'
import {systemTimer} from '../../../src/flow/timer.js'
import {runCommand} from '../../helpers/run-command.js'
import {screenAfter} from '../../helpers/screen.js'
import {lookupServerPerTest, serviceAnswer} from '../../helpers/lookup-server.js'

/** stdout and stderr as one terminal would show them (both written in order into `screen`), each with its own isTTY. */
function terminalIo(options: {stdoutTTY: boolean; stderrTTY: boolean; stdinTTY?: boolean; columns?: number; input?: string}) {
  const transcript = {all: '', stdout: '', stderr: ''}
  const stream = (name: 'stdout' | 'stderr', tty: boolean) => {
    const out = new Writable({
      write(chunk, _encoding, done) {
        transcript.all += chunk.toString()
        transcript[name] += chunk.toString()
        done()
      },
    }) as Writable & {isTTY?: boolean; columns?: number}
    if (tty) {
      out.isTTY = true
      out.columns = options.columns ?? 80
    }
    return out
  }
  const stdin = new PassThrough() as PassThrough & {isTTY?: boolean}
  stdin.end(options.input ?? '')
  if (options.stdinTTY) stdin.isTTY = true
  const io: CommandContext['io'] = {stdin, stdout: stream('stdout', options.stdoutTTY), stderr: stream('stderr', options.stderrTTY)}
  return {io, transcript}
}

const ESCAPE = /\u001B/g

describe('progress of many lookups', () => {
  const lookups = lookupServerPerTest()

  const env = (extra: Record<string, string> = {}) => lookups.env({TERM: 'xterm', ...extra})
  const ids = (count: number, name = 'paid') => Array.from({length: count}, (_, index) => `${name}-${index}`)

  it.each([80, 120])('on a terminal of %i columns: a live line while looking up, cleared before the header; no line glued to it', async (columns) => {
    const {io, transcript} = terminalIo({stdoutTTY: true, stderrTTY: true, columns})
    const result = await runCommand(['status', ...ids(30), '--concurrency', '1'], {env: env(), context: {io}})
    expect(result.exitCode).toBe(0)
    expect(transcript.stderr).toContain('Looked up 30 of 30…')
    const screen = screenAfter(transcript.all)
    expect(screen.join('\n')).not.toContain('Looked up')
    expect(screen[0]).toMatch(/^ID\s+STATUS\s+FINAL/)
    expect(screen.filter((line) => line.startsWith('paid-'))).toHaveLength(30)
    // Before the first byte of stdout, the live line was erased.
    const firstRow = transcript.all.indexOf('ID ')
    expect(transcript.all.slice(0, firstRow)).toMatch(/\r\u001B\[K$/)
  })

  it('clears the live line before a failure note, so the note starts its own line', async () => {
    const {io, transcript} = terminalIo({stdoutTTY: true, stderrTTY: true, columns: 80})
    const list = [...ids(11), 'missing-99']
    const result = await runCommand(['status', ...list, '--concurrency', '1'], {env: env(), context: {io}})
    expect(result.exitCode).toBe(1)
    const screen = screenAfter(transcript.all)
    expect(screen).toContain(screen.find((line) => line.startsWith('missing-99: The service answered 404')))
    expect(screen.join('\n')).not.toContain('Looked up')
  })

  it('fits the live line to a narrow terminal (40 columns)', async () => {
    const {io, transcript} = terminalIo({stdoutTTY: true, stderrTTY: true, columns: 40})
    await runCommand(['status', ...ids(11), ...ids(1, 'missing'), '--concurrency', '1'], {env: env(), context: {io}})
    const frames = transcript.stderr.split(/\r\u001B\[K|\n/).filter((frame) => frame.startsWith('Looked up'))
    expect(frames.length).toBeGreaterThan(1)
    for (const frame of frames) expect(frame.length, frame).toBeLessThan(40)
  })

  it.each([
    ['stdout in a pipe (| less)', {stdoutTTY: false, stderrTTY: true}, [] as string[], {}],
    ['--json to a file', {stdoutTTY: false, stderrTTY: true}, ['--json'], {}],
    ['--json on a terminal', {stdoutTTY: true, stderrTTY: true}, ['--json'], {}],
    ['TERM=dumb', {stdoutTTY: true, stderrTTY: true}, [], {TERM: 'dumb'}],
    ['both in pipes', {stdoutTTY: false, stderrTTY: false}, [], {}],
  ])('%s: not one escape sequence in stdout or stderr', async (_what, ttys, flags, extra) => {
    const {io, transcript} = terminalIo(ttys)
    const result = await runCommand(['status', ...ids(30), '--concurrency', '2', ...flags], {env: env(extra), context: {io}})
    expect(result.exitCode).toBe(0)
    expect(transcript.stdout.match(ESCAPE) ?? []).toHaveLength(0)
    expect(transcript.stderr.match(ESCAPE) ?? []).toHaveLength(0)
    expect(transcript.stderr).toContain('Looked up 30 transactions.')
  })

  it('without a terminal, a plain progress line at most every 5 s by the context’s clock, then one at the end', async () => {
    let now = Date.parse('2026-11-28T10:00:00.000Z')
    // Each lookup takes 2 s of the test's clock (concurrency 1: one after the other).
    lookups.answer = (path) => {
      now += 2000
      return serviceAnswer(path)
    }
    const clock = {now: () => now, sleep: systemTimer.sleep}
    const {io, transcript} = terminalIo({stdoutTTY: false, stderrTTY: false})
    const result = await runCommand(['checkoutsuccess', ...ids(12), '--concurrency', '1'], {env: env(), context: {io, clock}})
    expect(result.exitCode).toBe(0)
    expect(transcript.stderr.split('\n').filter(Boolean)).toEqual(['Looked up 3 of 12…', 'Looked up 6 of 12…', 'Looked up 9 of 12…', 'Looked up 12 transactions.'])
  })

  it('says nothing of progress below 10 ids, nor when they come quickly', async () => {
    const clock = {now: () => 0, sleep: systemTimer.sleep}
    const few = terminalIo({stdoutTTY: false, stderrTTY: false})
    await runCommand(['status', ...ids(9)], {env: env(), context: {io: few.io, clock}})
    expect(few.transcript.stderr).toBe('')
    const quick = terminalIo({stdoutTTY: false, stderrTTY: false})
    await runCommand(['status', ...ids(30)], {env: env(), context: {io: quick.io, clock}})
    expect(quick.transcript.stderr).toBe('Looked up 30 transactions.\n')
  })
})

describe('waits that say what they wait for', () => {
  const lookups = lookupServerPerTest()
  const env = () => lookups.env()

  it('status - on a terminal says it reads ids from the terminal until Ctrl-D; from a pipe it says nothing', async () => {
    const typed = terminalIo({stdoutTTY: true, stderrTTY: true, stdinTTY: true, input: 'paid-1\ndeclined-2\n'})
    const atTerminal = await runCommand(['status', '-'], {env: env(), context: {io: typed.io}})
    expect(atTerminal.exitCode).toBe(0)
    // Fitted to the terminal's 80 columns: its continuation lines joined.
    expect(typed.transcript.stderr.replaceAll(/\n +/g, ' ').split('\n')[0]).toBe(STDIN_PROMPT)
    expect(STDIN_PROMPT).toMatch(/stdin|terminal/)
    expect(STDIN_PROMPT).toContain('Ctrl-D')
    expect(STDIN_PROMPT).toContain('Ctrl-C to stop')

    const piped = terminalIo({stdoutTTY: true, stderrTTY: true, input: 'paid-1\ndeclined-2\n'})
    await runCommand(['status', '-'], {env: env(), context: {io: piped.io}})
    expect(piped.transcript.stderr).not.toContain('Ctrl-D')
  })

  it('status <id> --wait says first what it waits for, for how long at most, and how to stop', async () => {
    const final = await runCommand(['status', 'paid-1', '--wait', '--wait-timeout', '90s'], {env: env()})
    expect(final.exitCode).toBe(0)
    expect(final.stderr.split('\n')[0]).toBe('Waiting for transaction paid-1 to reach a final status, up to 1m30s (Ctrl-C to stop).')
    const settled = await runCommand(['status', 'paid-1', '--wait', '--until', 'settled'], {env: env()})
    expect(settled.stderr.split('\n')[0]).toBe('Waiting for transaction paid-1 to settle (SETTLEMENT_COMPLETED), up to 10m (Ctrl-C to stop).')
  })
})
