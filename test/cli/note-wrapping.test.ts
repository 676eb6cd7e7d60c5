/**
 * Every line the base command writes to stderr fits the terminal (issue 37): notes, progress and
 * `Warning:` lines are broken at spaces with the continuation indented (under the text after
 * `Warning: `), a command in backticks kept whole, as Error:/Hint: lines are
 * (failure-wrapping.test.ts). In-process at 40, 60, 80, 120 and 200 columns; in a pipe every
 * line stays whole.
 */
import {mkdirSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {API_KEY, type Answer, LookupServer, serviceAnswer, transaction} from '../helpers/lookup-server.js'
import {runCommand} from '../helpers/run-command.js'
import {writeNote} from '../../src/cli/notes.js'

const WIDTHS = [40, 60, 80, 120, 200]

/** The words of a text, in order: wrapping moves line breaks, never a word or a letter. */
const words = (text: string) => text.split(/\s+/).filter(Boolean)

/** The lines of stderr from the one starting with `start` to the end of that note (its continuation lines). */
function noteAt(stderr: string, start: string): string[] {
  const lines = stderr.split('\n')
  const first = lines.findIndex((line) => line.startsWith(start))
  expect(first, `a line starting with ${start} in\n${stderr}`).toBeGreaterThan(-1)
  const rest = lines.slice(first + 1)
  const end = rest.findIndex((line) => !line.startsWith(' '))
  return [lines[first], ...rest.slice(0, end === -1 ? rest.length : end)]
}

function expectFitted(lines: string[], whole: string, width: number, hang: number): void {
  // A word longer than the line (a temporary folder's path at 40 columns) stands alone on its line, whole.
  for (const line of lines) if (line.trim().includes(' ')) expect(line.length, `"${line}" at ${width} columns`).toBeLessThan(width)
  for (const line of lines.slice(1)) expect(line.startsWith(' '.repeat(hang)), `"${line}" hangs ${hang} at ${width} columns`).toBe(true)
  expect(words(lines.join('\n'))).toEqual(words(whole))
}

describe('notes and warnings at the terminal width', () => {
  const longMessage = 'No transaction has this id in the organisation of this key; it may belong to another organisation or it was never created, check the id you were given and the profile you use'
  const oddStatus = 'held by the acquirer for a manual review of the payment by its risk team, which may take up to three working days'
  let server: LookupServer
  beforeAll(async () => {
    server = new LookupServer((path): Answer => {
      if (path === '/v1/transaction/missing-0') return {status: 404, json: {code: '404', message: longMessage}}
      if (path === '/v1/transaction/odd-1') return {json: transaction('odd-1', oddStatus)}
      return serviceAnswer(path)
    })
    await server.start()
  })
  afterAll(() => server.close())
  const env = () => ({PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY})

  it.each(WIDTHS)("status of many ids: a failed id's note at %i columns", async (width) => {
    const piped = await runCommand(['status', 'paid-1', 'missing-0'], {env: env()})
    const shown = await runCommand(['status', 'paid-1', 'missing-0'], {env: env(), terminalColumns: width})
    const whole = piped.stderr.split('\n').find((line) => line.startsWith('missing-0: '))!
    expect(whole.length).toBeGreaterThan(200)
    expectFitted(noteAt(shown.stderr, 'missing-0: '), whole, width, 2)
  })

  it.each(WIDTHS)('a Warning: line (a status paytx does not know) at %i columns, continued under the text', async (width) => {
    const piped = await runCommand(['status', 'odd-1'], {env: env()})
    const shown = await runCommand(['status', 'odd-1'], {env: env(), terminalColumns: width})
    const whole = piped.stderr.split('\n').find((line) => line.startsWith('Warning: '))!
    expect(whole.length).toBeGreaterThan(200)
    expectFitted(noteAt(shown.stderr, 'Warning: '), whole, width, 'Warning: '.length)
  })

  it('in a pipe each note and warning stays one line', async () => {
    const piped = await runCommand(['status', 'paid-1', 'missing-0'], {env: env()})
    const failed = piped.stderr.split('\n').filter((line) => line.startsWith('missing-0: '))
    expect(failed).toHaveLength(1)
    expect(failed[0]).toContain(longMessage)
    const warned = await runCommand(['status', 'odd-1'], {env: env()})
    expect(warned.stderr).toContain(`Warning: the service reported the status "${oddStatus}", which is none of the ten paytx knows`)
  })
})

describe("smoke run's running note at the terminal width", () => {
  let emulator: RunningEmulator
  let file: string
  beforeAll(async () => {
    emulator = await startEmulator({port: 0, settleAfterMs: 0, pendingForMs: 0})
    // A folder with spaces in its name (as `My Documents`): the note is long enough to wrap at 200 columns too.
    const folder = join(mkdtempSync(join(tmpdir(), 'paytx-notes-')), 'the smoke scenarios of the checkout team for the spring release of the web shop and its mobile app')
    mkdirSync(folder)
    file = join(folder, 'cases.yaml')
    writeFileSync(file, 'version: 1\ncases:\n  - {name: declined, product: dummy, amount: 100, outcome: DECLINED, expect: {status: DECLINED}}\n')
  })
  afterAll(() => emulator.close())
  const env = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl})

  it.each(WIDTHS)('at %i columns', async (width) => {
    const args = ['smoke', 'run', file, '--concurrency', '3']
    const piped = await runCommand(args, {env: env()})
    const shown = await runCommand(args, {env: env(), terminalColumns: width})
    expect(shown.exitCode, shown.stderr).toBe(0)
    const whole = piped.stderr.split('\n').find((line) => line.startsWith('Running 1 case of '))!
    expect(whole.length).toBeGreaterThan(200)
    expectFitted(noteAt(shown.stderr, 'Running 1 case of'), whole, width, 2)
  })
})

describe('writeNote', () => {
  const terminal = (columns: number) => {
    let text = ''
    return {isTTY: true, columns, write: (chunk: string) => ((text += chunk), true), text: () => text}
  }

  it.each(WIDTHS)('keeps a command in backticks on one line at %i columns, so it can be pasted', (width) => {
    const stderr = terminal(width)
    const note = 'Readings written to readings.json: `paytx emulator start --readings readings.json --port 4010` answers with them.'
    writeNote(stderr as unknown as NodeJS.WritableStream, note, [])
    const lines = stderr.text().trimEnd().split('\n')
    expect(lines.filter((line) => line.includes('`paytx emulator start --readings readings.json --port 4010`'))).toHaveLength(1)
    expect(words(lines.join('\n'))).toEqual(words(note))
    if (width === 200) expect(lines).toEqual([note])
  })

  it('scrubs secrets before it wraps, and keeps every line whole without a terminal', () => {
    let text = ''
    const pipe = {write: (chunk: string) => ((text += chunk), true)}
    writeNote(pipe as unknown as NodeJS.WritableStream, `the key sk_live_0123456789abcdef is ${'long '.repeat(60).trim()}`, ['sk_live_0123456789abcdef'])
    expect(text.split('\n')).toHaveLength(2)
    expect(text).not.toContain('sk_live_0123456789abcdef')
  })
})
