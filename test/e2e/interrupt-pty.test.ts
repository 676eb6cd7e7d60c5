/**
 * `^C` at a real terminal is followed by a new line in every command that waits without a spinner
 * (terminal/interrupt.ts, through the base command's interruption): what the command writes
 * after it, and the shell's prompt, start a line of their own instead of gluing to `^C`.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ptyAvailable, runInPty} from '../helpers/pty.js'
import {screenAfter} from '../helpers/screen.js'
import {API_KEY, LookupServer, serviceAnswer} from '../helpers/lookup-server.js'

const size = {columns: 100, rows: 30}

/** The screen's lines, with `^C` (the terminal's echo of Ctrl-C) on a line that nothing else continues. */
function expectCtrlCEndsItsLine(output: string): string[] {
  expect(output).toContain('^C')
  const screen = screenAfter(output)
  const echoed = screen.filter((line) => line.includes('^C'))
  expect(echoed, screen.join('\n')).toHaveLength(1)
  expect(echoed[0], screen.join('\n')).toMatch(/\^C$/)
  return screen
}

describe.skipIf(!ptyAvailable)('Ctrl-C at a real terminal starts a new line', () => {
  let server: LookupServer
  beforeEach(async () => {
    server = new LookupServer((path) => serviceAnswer(path))
    await server.start()
  })
  afterEach(() => server.close())

  it('webhook listen: the counts after ^C start a line of their own', async () => {
    const session = runInPty(['webhook', 'listen', '--port', '0'], {size})
    await session.waitFor(/Ready\. Press Ctrl-C to stop\./, 20_000)
    session.type('\u0003')
    expect(await session.exited).toBe(130)
    const screen = expectCtrlCEndsItsLine(session.output())
    expect(screen.find((line) => line.startsWith('Stopped.')), screen.join('\n')).toBeDefined()
  })

  it('status - reading ids from the terminal: ^C ends its line, so the shell prompt does not glue to it', async () => {
    const env = {PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY}
    const session = runInPty(['status', '-'], {size, env})
    await session.waitFor(/until Ctrl-D \(Ctrl-C to stop\)\./, 20_000)
    session.type('\u0003')
    expect(await session.exited).toBe(130)
    expect(session.output()).toMatch(/\^C\r?\n$/)
    expectCtrlCEndsItsLine(session.output())
  })

  it('status of several ids --wait: the notes after ^C start a line of their own', async () => {
    const env = {PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY}
    const session = runInPty(['status', 'pending-1', 'pending-2', '--wait', '--wait-timeout', '2m'], {size, env})
    await session.waitFor(/pending-2: PENDING/, 20_000)
    session.type('\u0003')
    expect(await session.exited).toBe(130)
    const screen = expectCtrlCEndsItsLine(session.output())
    expect(screen[screen.findIndex((line) => line === '^C') + 1], screen.join('\n')).toBe('pending-1: Interrupted.')
  })
})
