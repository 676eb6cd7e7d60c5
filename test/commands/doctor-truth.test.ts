/**
 * `paytx doctor` in-process, against real servers on 127.0.0.1 that this test runs: what holds an
 * address is named (this test's own process, so its pid and name are known), an answer that is not
 * the payment service's is ✖ with what it looks like, remedies can be pasted, the marks are
 * coloured as flow's on a terminal only, lines fit the terminal's width without cutting a word, and
 * a live line says what the checks wait for (on a terminal only, cleared before the report).
 */
import {readFileSync} from 'node:fs'
import {type Server, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {stripVTControlCharacters} from 'node:util'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import {startEmulator} from '../../src/emulator/index.js'
import {tempConfigDir} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'
import {type CommandResult, runCommand} from '../helpers/run-command.js'

type Answer = (res: ServerResponse) => void

const HTML_404: Answer = (res) => res.writeHead(404, {'content-type': 'text/html'}).end('<!doctype html><html><head><title>Welcome to Other App</title></head><body><h1>Not Found</h1></body></html>')
const OTHER_JSON: Answer = (res) => res.writeHead(404, {'content-type': 'application/json'}).end('{"error":"route not found","path":"/v1/transaction"}')
const SERVICE_404: Answer = (res) => res.writeHead(404, {'content-type': 'application/json'}).end('{"message":"No transaction has that id."}')

/** A server of this process, answering every request as `answer` does (changeable per test). */
let answer: Answer = HTML_404
let server: Server
let address: string
let port: number

/** This process's name as Linux shows it (/proc/self/comm): the name doctor must give the server's owner. */
const OWN_NAME = process.platform === 'linux' ? readFileSync('/proc/self/comm', 'utf8').trim() : undefined

beforeAll(async () => {
  server = createServer((_req, res) => answer(res))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port
  address = `http://127.0.0.1:${port}`
})
afterAll(() => new Promise((resolve) => server.close(resolve)))
afterEach(() => {
  answer = HTML_404
})

/** The local profile pointed at the test's server, as PAYTX_BASE_URL does for a run. */
function atServer(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {PAYTX_BASE_URL: address, PAYTX_H2H_URL: `${address}/h2h`, DISPLAY: undefined, WAYLAND_DISPLAY: undefined, BROWSER: undefined, ...extra}
}

function line(result: CommandResult, label: string): string {
  const lines = stripVTControlCharacters(result.stdout).split('\n')
  const start = lines.findIndex((text) => new RegExp(`^[✔⚠✖] ${label} `).test(text))
  expect(start, result.stdout).toBeGreaterThanOrEqual(0)
  const end = lines.findIndex((text, index) => index > start && /^([✔⚠✖] |$)/.test(text))
  return lines.slice(start, end).join(' ').replace(/\s+/g, ' ')
}

function jsonCheck(result: CommandResult, id: string): {status: string; detail: string; remedy?: string} {
  return (JSON.parse(result.stdout) as {checks: {id: string; status: string; detail: string; remedy?: string}[]}).checks.find((check) => check.id === id)!
}

describe('doctor: what answers is the payment service, or it is named', () => {
  it('another web server at the local profile’s address: ✖ Service naming the HTML page and the program with its pid; exit 1', async () => {
    const result = await runCommand(['doctor'], {env: atServer()})
    expect(result.exitCode).toBe(1)
    const service = line(result, 'Service')
    expect(service).toMatch(/^✖ Service /)
    expect(service).toContain('does not look like the payment service: it sent an HTML page ("Welcome to Other App")')
    if (OWN_NAME) expect(service).toContain(`port ${port} is held by ${OWN_NAME} (pid ${process.pid})`)
    expect(service).not.toContain('key accepted')
    if (OWN_NAME) expect(service).toContain(`Stop ${OWN_NAME} (\`kill ${process.pid}\`)`)
    expect(service).toMatch(/start the emulator on another port \(`paytx emulator start --port \d+`\) and point paytx at it \(`export PAYTX_BASE_URL=http:\/\/127\.0\.0\.1:\d+ PAYTX_H2H_URL=http:\/\/127\.0\.0\.1:\d+\/h2h`\)/)
    expect(service).toContain('(`unset PAYTX_BASE_URL`)')
    // What holds the emulator's port (the local profile's) is named too.
    const emulatorPort = line(result, 'Emulator port')
    expect(emulatorPort).toMatch(/^✖ Emulator port /)
    if (OWN_NAME) expect(emulatorPort).toContain(`${port} is held by ${OWN_NAME} (pid ${process.pid}), not by paytx`)
    expect(line(result, 'Card proxy')).toMatch(/^✖ Card proxy .*not as the paytx emulator's card proxy/)
    // The clock of something that is not the service is not the service's clock.
    expect(line(result, 'Clock')).toContain('not compared')
  })

  it.each([
    ['JSON of another API', OTHER_JSON, 'it sent JSON without the service\'s "message" (fields error, path)'],
    ['a success for an id that cannot exist', (res: ServerResponse) => res.writeHead(200, {'content-type': 'application/json'}).end('[]'), 'it sent a success for a transaction that cannot exist, with JSON that is not an object (a list)'],
    ['plain text', (res: ServerResponse) => res.writeHead(404).end('404 page not found'), 'it sent text ("404 page not found")'],
    ['a redirect', (res: ServerResponse) => res.writeHead(302, {location: 'https://login.example.test/sso'}).end(), 'it sent a redirect to https://login.example.test/sso'],
  ])('%s: ✖ Service with what it looks like (--json too)', async (_, foreign, shown) => {
    answer = foreign
    const result = await runCommand(['doctor', '--json'], {env: atServer()})
    expect(result.exitCode).toBe(1)
    expect(jsonCheck(result, 'service')).toMatchObject({status: 'fail', detail: expect.stringContaining(shown)})
  })

  it('the service’s own error object: ✔ (key accepted), and the clock compared', async () => {
    answer = SERVICE_404
    const configDir = tempConfigDir()
    await addSandboxProfile(configDir, address)
    const result = await runCommand(['doctor', '--profile', 'test', '--json'], {configDir})
    expect(jsonCheck(result, 'service')).toMatchObject({status: 'ok', detail: expect.stringMatching(/GET answered 404 in \d+ ms \(key accepted\)$/)})
    expect(jsonCheck(result, 'clock').detail).toBe('within a second of the service’s')
  })

  it('a paytx emulator at the address: ✔, said to be one because it answered as one', async () => {
    const emulator = await startEmulator({port: 0, store: ':memory:'})
    try {
      const url = `http://127.0.0.1:${emulator.port}`
      const result = await runCommand(['doctor', '--json'], {env: atServer({PAYTX_BASE_URL: url, PAYTX_H2H_URL: `${url}/h2h`})})
      expect(jsonCheck(result, 'service')).toMatchObject({status: 'ok', detail: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+: a paytx emulator; .*GET answered 404 in \d+ ms \(key accepted\)$/)})
      expect(jsonCheck(result, 'card-proxy').status).toBe('ok')
      expect(jsonCheck(result, 'emulator-port')).toMatchObject({status: 'ok', detail: `${emulator.port} is held by a paytx emulator (it answered as one; store :memory:)`})
    } finally {
      await emulator.close()
    }
  })
})

async function addSandboxProfile(configDir: string, url: string): Promise<void> {
  const flags = ['--env', 'sandbox', '--base-url', url, '--h2h-url', `${url}/h2h`, '--proxy-id', '1234567890123456', '--organisation', 'org-1', '--payment-profile', 'pp-1', '--api-key-stdin', '--proxy-key-stdin']
  const added = await runCommand(['profile', 'add', 'test', ...flags], {configDir, input: 'sk_test_truth_0123456789abcdef\npk_test_truth_0123456789abcdef\n'})
  expect(added.exitCode, added.stderr).toBe(0)
}

describe('doctor: remedies fit the cause and can be pasted', () => {
  it('a closed port on 127.0.0.1 (sandbox profile): no proxy advice, which loopback never uses; no remedy holds …', async () => {
    const configDir = tempConfigDir()
    const closed = `http://127.0.0.1:${await freePort()}`
    await addSandboxProfile(configDir, closed)
    const result = await runCommand(['doctor', '--profile', 'test', '--json'], {configDir})
    const service = jsonCheck(result, 'service')
    expect(service).toMatchObject({status: 'fail', detail: expect.stringContaining('TCP failed for 127.0.0.1')})
    expect(service.remedy).not.toMatch(/PROXY/)
    expect(service.remedy).toContain(`Nothing answers at ${new URL(closed).host} on this machine`)
    expect(jsonCheck(result, 'card-proxy').remedy).not.toMatch(/PROXY/)
    for (const check of (JSON.parse(result.stdout) as {checks: {remedy?: string}[]}).checks) expect(check.remedy ?? '').not.toContain('…')
  })

  it('a profile without ids: the remedy is a command line with the card proxy’s address and variables, no …', async () => {
    const configDir = tempConfigDir()
    const added = await runCommand(['profile', 'add', 'half', '--env', 'sandbox', '--base-url', address, '--api-key-stdin'], {configDir, input: 'sk_test_truth_0123456789abcdef\n'})
    expect(added.exitCode, added.stderr).toBe(0)
    answer = SERVICE_404
    const result = await runCommand(['doctor', '--profile', 'half', '--json'], {configDir})
    const profile = jsonCheck(result, 'profile')
    expect(profile.status).toBe('warn')
    expect(profile.remedy).not.toContain('…')
    expect(profile.remedy).toContain('paytx profile add half --proxy-id "$PROXY_ID" --organisation "$ORGANISATION" --payment-profile "$PAYMENT_PROFILE"')
  })

  it('remedies name the command as paytx was run', async () => {
    const result = await runCommand(['doctor'], {env: atServer(), context: {invokedAs: './bin/run.js'}})
    expect(line(result, 'Service')).toMatch(/\(`\.\/bin\/run\.js emulator start --port \d+`\)/)
    expect(result.stdout).not.toMatch(/`paytx /)
  })
})

const COLOURED = {'✔': '\u001B[32m✔\u001B[0m', '✖': '\u001B[31m✖\u001B[0m', '⚠': '\u001B[33m⚠\u001B[0m'}

describe('doctor: marks coloured as flow’s, on a terminal only', () => {
  it('a terminal: ✔ green, ✖ red, ⚠ yellow', async () => {
    const result = await runCommand(['doctor'], {env: atServer({NO_COLOR: undefined, TERM: 'xterm-256color'}), terminalColumns: 200})
    for (const coloured of Object.values(COLOURED)) expect(result.stdout).toContain(coloured)
  })

  it.each([
    ['NO_COLOR', () => ({env: atServer({TERM: 'xterm-256color'}), terminalColumns: 200})],
    ['TERM=dumb', () => ({env: atServer({NO_COLOR: undefined, TERM: 'dumb'}), terminalColumns: 200})],
    ['a pipe', () => ({env: atServer({NO_COLOR: undefined, TERM: 'xterm-256color'})})],
  ])('%s: no colour', async (_, options) => {
    const result = await runCommand(['doctor'], options())
    expect(result.stdout).toMatch(/^✖ Service /m)
    expect(result.stdout).not.toContain('\u001B[')
  })
})

/** The words of a report, numbers (times, free ports) made alike so that two runs compare. */
function words(text: string): string[] {
  return stripVTControlCharacters(text).replace(/\d+/g, '0').split(/\s+/).filter(Boolean)
}

describe('doctor: lines fit the terminal, broken between words', () => {
  it.each([40, 60, 80, 120, 200])('%i columns: every line fits (or is one word alone), and no word is cut', async (columns) => {
    const configDir = tempConfigDir()
    const piped = await runCommand(['doctor'], {env: atServer(), configDir})
    const result = await runCommand(['doctor'], {env: atServer(), configDir, terminalColumns: columns})
    const lines = stripVTControlCharacters(result.stdout).split('\n')
    for (const text of lines) {
      if (text.length >= columns) expect(text.trim(), `a line of ${text.length} at ${columns}: ${text}`).not.toContain(' ')
    }
    expect(words(result.stdout)).toEqual(words(piped.stdout))
    if (columns <= 80) expect(lines.length).toBeGreaterThan(piped.stdout.split('\n').length)
  })

  it('in a pipe the Service line and its remedy stay whole', async () => {
    const piped = await runCommand(['doctor'], {env: atServer()})
    const lines = piped.stdout.split('\n')
    const at = lines.findIndex((text) => text.startsWith('✖ Service '))
    expect(lines[at]).toContain('it sent an HTML page ("Welcome to Other App")')
    expect(lines[at + 1]).toMatch(/^\s+→ Stop .*unset PAYTX_BASE_URL`\)\.$/)
  })
})

describe('doctor: while the checks wait', () => {
  it('on a terminal: a line on stderr says what is waited for, how long at most, and Ctrl-C; cleared before the report', async () => {
    const result = await runCommand(['doctor'], {env: atServer({TERM: 'xterm-256color'}), terminalColumns: 120})
    expect(result.stderr).toMatch(new RegExp(`Waiting for the service at 127\\.0\\.0\\.1:${port}.*: 11 s at most; Ctrl-C to stop`))
    expect(result.stderr.endsWith('\r\u001B[2K')).toBe(true)
    for (const drawn of result.stderr.split('\r\u001B[2K')) expect(drawn.length).toBeLessThan(120)
    expect(result.stdout).not.toContain('Waiting')
  })

  it('a service that never answers: the line counts down from the limit, and the check ends ✖ within it, naming what holds the port', async () => {
    const held = new Set<ServerResponse>()
    answer = (res) => held.add(res)
    try {
      const started = performance.now()
      const result = await runCommand(['doctor', '--timeout', '1'], {env: atServer({TERM: 'xterm-256color'}), terminalColumns: 200})
      expect(performance.now() - started).toBeLessThan(10_000)
      expect(result.stderr).toMatch(/Waiting for the service at [^:]+:\d+, the card proxy at [^:]+:\d+, port \d+, port 4020: 2 s at most; Ctrl-C to stop/)
      const service = line(result, 'Service')
      expect(service).toMatch(/^✖ Service .*within \d+ ms/)
      if (OWN_NAME) expect(service).toContain(`port ${port} is held by ${OWN_NAME} (pid ${process.pid})`)
      // Doctor allows no more time than its limit: the remedy is about the program, not --timeout.
      expect(service).toContain(`(\`kill ${process.pid}\`)`)
      expect(service).not.toContain('--timeout')
    } finally {
      for (const res of held) res.destroy()
    }
  })

  it('a narrow terminal: the waiting line still fits one line', async () => {
    const result = await runCommand(['doctor'], {env: atServer({TERM: 'xterm-256color'}), terminalColumns: 40})
    expect(result.stderr).toContain('Ctrl-C')
    for (const drawn of result.stderr.split('\r\u001B[2K')) expect(drawn.length).toBeLessThan(40)
  })

  it.each([
    ['a pipe', () => ({env: atServer()})],
    ['--json on a terminal', () => ({env: atServer({TERM: 'xterm-256color'}), terminalColumns: 120, json: true})],
  ])('%s: no waiting line', async (_, options) => {
    const {json, ...rest} = options() as {json?: boolean; env: Record<string, string | undefined>; terminalColumns?: number}
    const result = await runCommand(['doctor', ...(json ? ['--json'] : [])], rest)
    expect(result.stdout).toContain('Service')
    expect(result.stderr).not.toContain('Waiting')
    expect(result.stderr).not.toContain('\r')
  })
})
