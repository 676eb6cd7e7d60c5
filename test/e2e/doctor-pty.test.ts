/**
 * `paytx doctor` at a real terminal (a pseudo-terminal): while a check waits, one line says what
 * for, how long at most and that Ctrl-C stops; it is cleared before the report, and Ctrl-C leaves
 * none of it behind.
 */
import {type Server, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {ptyAvailable, runInPty} from '../helpers/pty.js'
import {screenAfter} from '../helpers/screen.js'

/** Another web server, holding each request until the test lets it answer. */
let server: Server
let url: string
const held = new Set<ServerResponse>()
let answering = false

function answer(res: ServerResponse): void {
  res.writeHead(404, {'content-type': 'text/html'}).end('<html><head><title>Other App</title></head></html>')
}

/** From now on every request is answered, those held first. */
function answerHeld(): void {
  answering = true
  for (const res of held) answer(res)
  held.clear()
}

beforeAll(async () => {
  server = createServer((_req, res) => (answering ? answer(res) : held.add(res)))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => {
  for (const res of held) res.destroy()
  return new Promise((resolve) => server.close(resolve))
})

const env = () => ({PAYTX_BASE_URL: url, PAYTX_H2H_URL: `${url}/h2h`})
const WAITING = /Waiting for the service at 127\.0\.0\.1:\d+.*\d+ s at most; Ctrl-C to stop/

describe.skipIf(!ptyAvailable)('doctor at a terminal', () => {
  // First, while the server still holds every request.
  it('Ctrl-C while it waits: exit 130, and the waiting line is gone', async () => {
    const session = runInPty(['doctor', '--timeout', '15'], {env: env()})
    await session.waitFor(WAITING)
    session.type('\u0003')
    expect(await session.exited).toBe(130)
    expect(screenAfter(session.output()).join('\n')).not.toContain('Waiting')
  })

  it('says what it waits for while the service is slow, then clears the line before the report', async () => {
    const session = runInPty(['doctor', '--timeout', '15'], {env: env()})
    await session.waitFor(WAITING)
    answerHeld()
    expect(await session.exited).toBe(1)
    // Continuation lines joined to the line they continue.
    const screen = screenAfter(session.output()).join('\n').replaceAll(/\n +/g, ' ')
    expect(screen).not.toContain('Waiting')
    expect(screen).toMatch(/^✖ Service .*it sent an HTML page \("Other App"\)/m)
    // The server runs in this test's process: doctor names it by this pid.
    expect(screen).toContain(`(pid ${process.pid})`)
  })
})
