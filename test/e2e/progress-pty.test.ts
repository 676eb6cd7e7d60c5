/**
 * Progress and waits in a real pseudo-terminal (with a size, as a person's terminal has): keys
 * typed during a spinner are not echoed and leave no frozen spinner line, Ctrl-C is followed by
 * a new line, the many-id live line is cleared before the table, and a wait says what it waits
 * for. The in-process side of the same rules is test/commands/transaction/lookup-progress.test.ts.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'

import {ptyAvailable, runInPty} from '../helpers/pty.js'
import {screenAfter} from '../helpers/screen.js'
import {lookupServerPerTest, serviceAnswer} from '../helpers/lookup-server.js'

const SPINNER_FRAME = /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/
const size = {columns: 100, rows: 30}

describe.skipIf(!ptyAvailable)('progress at a real terminal', () => {
  const lookups = lookupServerPerTest()

  const env = () => lookups.env()
  let emulator: RunningEmulator
  beforeAll(async () => {
    emulator = await startEmulator({port: 0})
  })
  afterAll(() => emulator.close())

  it('flow: keys typed while the spinner runs are not echoed and leave no frozen spinner line; Ctrl-C ends on a new line', async () => {
    // A BROWSER that opens nothing: the flow spins, waiting for the redirect, until Ctrl-C.
    const session = runInPty(['flow', '--product', 'dummy', '--amount', '100', '--wait-timeout', '60s'], {size, env: {BROWSER: 'true', PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl}})
    await session.waitFor(/⠋ waiting for the redirect: /, 20_000)
    session.type('\r')
    session.type('\r')
    session.type('typed-by-habit\r')
    // The keys are discarded while the spinner draws on; one more frame shows it is still alive.
    const before = session.output().length
    await session.waitFor(new RegExp(`[\\s\\S]{${before}}[\\s\\S]*waiting for the redirect: \\d`), 10_000)
    session.type('\u0003')
    expect(await session.exited).toBe(130)
    const output = session.output()
    expect(output).not.toContain('typed-by-habit')
    const screen = screenAfter(output)
    expect(screen.filter((line) => SPINNER_FRAME.test(line)), screen.join('\n')).toEqual([])
    expect(screen.find((line) => line.startsWith('Error: Interrupted'))).toBeDefined()
    expect(output.replace(/\u001B\[\?25h$/, '')).toMatch(/\r?\n$/)
  })

  it('status <id> --wait says what it waits for and how to stop; after Ctrl-C the error starts its own line', async () => {
    const session = runInPty(['status', 'pending-1', '--wait', '--wait-timeout', '2m'], {size, env: env()})
    await session.waitFor(/Waiting for transaction pending-1 to reach a final status, up to 2m \(Ctrl-C to stop\)\./)
    await session.waitFor(/PENDING/)
    session.type('\u0003')
    expect(await session.exited).toBe(130)
    const screen = screenAfter(session.output())
    expect(screen.find((line) => line.startsWith('Error: Interrupted while waiting for transaction pending-1')), screen.join('\n')).toBeDefined()
  })

  it('status - waiting for typed ids says so, and Ctrl-D ends the list', async () => {
    const session = runInPty(['status', '-'], {size, env: env()})
    await session.waitFor(/Reading transaction ids from the terminal, one per line, until Ctrl-D \(Ctrl-C to stop\)\./)
    session.type('paid-1\rdeclined-2\r\u0004')
    expect(await session.exited).toBe(0)
    const screen = screenAfter(session.output())
    expect(screen.some((line) => /^paid-1\s+SETTLEMENT_COMPLETED/.test(line))).toBe(true)
  })

  it('many ids: the live line is drawn, then cleared before the table, which starts at the line’s start', async () => {
    lookups.answer = (path) => ({...serviceAnswer(path), delayMs: 40})
    const ids = Array.from({length: 15}, (_, index) => `paid-${index}`)
    const session = runInPty(['status', ...ids, '--concurrency', '1'], {size, env: env()})
    expect(await session.exited).toBe(0)
    const output = session.output()
    expect(output).toContain('Looked up 15 of 15…')
    expect(output).not.toMatch(/…ID/)
    const screen = screenAfter(output)
    expect(screen.join('\n')).not.toContain('Looked up')
    expect(screen.find((line) => line.startsWith('ID '))).toMatch(/^ID\s+STATUS/)
  })
})
