/**
 * `paytx webhook listen` in-process through the command context, on a terminal of 40 to 200
 * columns: each webhook line fits, broken between words with a hanging indent (an id never cut),
 * the time of day only; in a pipe a line stays whole with its full ISO time. The listener is
 * stopped the way a closed pipe stops it.
 */
import {PassThrough, Writable} from 'node:stream'
import {stripVTControlCharacters} from 'node:util'

import {describe, expect, it} from 'vitest'

import type {CommandIO} from '../../../src/context/command-context.js'
import {postJson} from '../../helpers/post-json.js'
import {runCommand} from '../../helpers/run-command.js'
import {waitFor} from '../../helpers/wait-for.js'

const TX = '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'

class Screen extends Writable {
  text = ''
  constructor(
    readonly isTTY: boolean,
    readonly columns: number | undefined,
  ) {
    super()
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString()
    done()
  }
}

/** Runs `webhook listen`, posts one webhook, and returns what stdout showed once its line is there. */
async function listenAndReceive(columns: number | undefined): Promise<{text: string; stderr: string}> {
  const terminal = columns !== undefined
  const stdin = new PassThrough() as PassThrough & {isTTY?: boolean}
  stdin.end()
  const io: CommandIO = {stdin, stdout: new Screen(terminal, columns), stderr: new Screen(terminal, columns)}
  const stdout = io.stdout as Screen
  const stderr = io.stderr as Screen
  const run = runCommand(['webhook', 'listen', '--port', '0', '--token', 'a-token-of-24-characters'], {context: {io}})
  const url = await waitFor(() => /Listening for webhooks at (\S+)/.exec(stripVTControlCharacters(stderr.text).replaceAll(/\n\s+/g, ' '))?.[1], 'the listener')
  expect((await postJson(url, JSON.stringify({type: 'transaction', id: TX, status: 'SETTLEMENT_REQUESTED'}))).status).toBe(200)
  await waitFor(() => stdout.text.includes('SETTLEMENT_'), 'the webhook line')
  // A reader that went away ends the listener, as `| head` would.
  stdout.emit('error', Object.assign(new Error('write EPIPE'), {code: 'EPIPE'}))
  await run
  return {text: stdout.text, stderr: stderr.text}
}

describe('webhook listen lines at the terminal’s width', () => {
  it.each([40, 60, 80, 120, 200])('at %i columns every line fits, words whole, with a hanging indent and the time of day', async (columns) => {
    const {text, stderr} = await listenAndReceive(columns)
    const lines = text.trimEnd().split('\n')
    for (const line of lines) expect(line.length, line).toBeLessThan(columns)
    // The notes on stderr too; only a word longer than the line (the listener's address) stands alone.
    for (const line of stderr.trimEnd().split('\n')) expect(line.length < columns || line.trim().split(' ').length === 1, line).toBe(true)
    expect(lines.slice(1).every((line) => line.startsWith('  '))).toBe(true)
    const words = text.trim().split(/\s+/)
    expect(words[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3}$/)
    expect(words.slice(1)).toEqual(['transaction', TX, 'SETTLEMENT_REQUESTED'])
  })

  it('in a pipe, the line stays whole with its ISO time', async () => {
    const {text} = await listenAndReceive(undefined)
    expect(text).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z  transaction  ${TX}  SETTLEMENT_REQUESTED\\n$`))
  })
})
