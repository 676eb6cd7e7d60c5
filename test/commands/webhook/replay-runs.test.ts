/**
 * `paytx webhook replay` in-process: a save file sent again to a recording endpoint on 127.0.0.1.
 * Replaying into a running `webhook listen` is in test/e2e/webhook-replay.test.ts.
 */
import {execFileSync} from 'node:child_process'
import {appendFileSync, createWriteStream, mkdtempSync, readFileSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {runCommand} from '../../helpers/run-command.js'
import {freePort} from '../../helpers/ports.js'
import {TX_A, TX_B, receiver, record, saveFile, long, fiveWebhooks} from '../../helpers/saved-webhooks.js'

describe('webhook replay', () => {
  it('sends every webhook in file order with its recorded headers, minus hop-by-hop ones, and prints one line each', async () => {
    const server = await receiver()
    const result = await runCommand(['webhook', 'replay', fiveWebhooks(), '--to', `${server.url}/hooks?x=1`])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(server.requests.map((req) => req.body.status)).toEqual(['INITIATED', 'SETTLEMENT_REQUESTED', 'INITIATED', 'DECLINED', 'SETTLEMENT_COMPLETED'])
    expect(server.requests.every((req) => req.path === '/hooks?x=1' && req.method === 'POST')).toBe(true)
    const second = server.requests[1]
    expect(second.headers['x-trace']).toBe('kept-as-recorded')
    expect(second.headers['user-agent']).toBe('paytx-emulator')
    expect(second.headers['content-type']).toBe('application/json')
    // Host and length belong to the new connection, not to the recorded one.
    expect(second.headers.host).toBe(`127.0.0.1:${server.port}`)
    expect(second.headers['content-length']).toBe(String(Buffer.byteLength(second.rawBody)))
    const lines = result.stdout.trim().split('\n')
    expect(lines).toHaveLength(5)
    expect(lines[0]).toMatch(new RegExp(`^seq 1  INITIATED  ${TX_A}  → HTTP 200  \\d+ms$`))
    expect(result.stderr).toMatch(/Replayed 5 of 5 webhooks .* 5 answered 2xx, 0 failed\./)
  })

  it('shows the control sequences a saved webhook carries as escapes, one line each; --json keeps them exact', async () => {
    const server = await receiver()
    // Writes the clipboard (OSC 52), retitles the window, erases the screen, and starts a line of its own.
    const hostile = record(1, `${TX_A}\u001b]0;pwned\u0007`, 'SETTLED\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2J\nseq 2  SETTLEMENT_COMPLETED', '2026-11-20T10:00:00.000Z')
    const file = saveFile([hostile])
    const text = await runCommand(['webhook', 'replay', file, '--to', server.url])
    expect(text.exitCode, text.stderr).toBe(0)
    expect(text.stdout.replace(/\d+ms\n$/, 'Nms\n')).toBe(`seq 1  SETTLED\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J\\nseq 2  SETTLEMENT_COMPLETED  ${TX_A}\\x1b]0;pwned\\x07  → HTTP 200  Nms\n`)
    expect(text.stdout + text.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
    const json = await runCommand(['webhook', 'replay', file, '--to', server.url, '--json'])
    const [delivery] = json.stdout.trim().split('\n').map((line) => JSON.parse(line))
    expect(delivery).toMatchObject({status: hostile.body.status, transaction_id: hostile.body._id})
  })

  it.each([
    [['--seq', '2,4-5'], [2, 4, 5]],
    [['--seq', '3'], [3]],
    [['--transaction', TX_B], [3, 4]],
    [['--since', '10m'], [3, 4, 5]],
    [['--since', '10m', '--transaction', TX_A], [5]],
    [['--seq', '1-3', '--transaction', TX_A], [1, 2]],
  ])('selects with %j', async (args, seqs) => {
    const server = await receiver()
    const result = await runCommand(['webhook', 'replay', fiveWebhooks(), '--to', server.url, '--json', ...args])
    expect(result.exitCode, result.stderr).toBe(0)
    const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line))
    expect(events.filter((event) => event.event === 'delivery').map((event) => event.seq)).toEqual(seqs)
    expect(events.at(-1)).toEqual({event: 'replayed', sent: seqs.length, failed: 0, selected: seqs.length})
    expect(server.requests).toHaveLength(seqs.length)
  })

  it('exits 1 when the receiver answers 500, and still sends the rest', async () => {
    const server = await receiver(200, 500)
    const result = await runCommand(['webhook', 'replay', fiveWebhooks(), '--to', server.url, '--seq', '1-3', '--json'])
    expect(result.exitCode).toBe(1)
    const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line))
    expect(events.slice(0, 3).map((event) => [event.seq, event.http_status, event.ok])).toEqual([
      [1, 200, true],
      [2, 500, false],
      [3, 200, true],
    ])
    expect(events[3]).toEqual({event: 'replayed', sent: 3, failed: 1, selected: 3})
    expect(result.stderr).toMatch(/2 answered 2xx, 1 failed/)
  })

  it('exits 1 when the connection is refused, naming it on the line', async () => {
    const port = await freePort()
    const result = await runCommand(['webhook', 'replay', fiveWebhooks(), '--to', `http://127.0.0.1:${port}/hooks`, '--seq', '1'])
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toMatch(/^seq 1  INITIATED  \S+  → failed: connection refused/)
  })

  it.each([
    [['--seq', '9-7'], /--seq must list numbers and ranges such as 3,7-9: the range 9-7 runs backwards/],
    [['--seq', 'x'], /--seq must list numbers and ranges.*"x" is not a number/],
    [['--since', 'soon'], /--since must be a duration/],
    [['--seq', '40'], /No webhook in .* matches the selection \(5 in the file\)/],
  ])('refuses %j with exit 2, sending nothing', async (args, message) => {
    const server = await receiver()
    const result = await runCommand(['webhook', 'replay', fiveWebhooks(), '--to', server.url, ...args])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(message)
    expect(result.stdout).toBe('')
    expect(server.requests).toHaveLength(0)
  })

  it('names the line of a file that is not a save file, and sends nothing', async () => {
    const server = await receiver()
    const file = saveFile([record(1, TX_A, 'INITIATED', long), '', '{"seq": 2, "received_at": "yesterday"}'])
    const result = await runCommand(['webhook', 'replay', file, '--to', server.url])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain(`${file}:3: not a saved webhook: "received_at" must be a time (ISO 8601).`)
    const notJson = await runCommand(['webhook', 'replay', saveFile(['{oops']), '--to', server.url])
    expect(notJson.exitCode).toBe(2)
    expect(notJson.stderr).toMatch(/webhooks\.ndjson:1: not a JSON line/)
    expect(notJson.stderr).toContain('Hint: Pass a file written by `paytx webhook listen --save <file>`.')
    const missing = await runCommand(['webhook', 'replay', join(tmpdir(), 'no-such-paytx-file.ndjson'), '--to', server.url])
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toMatch(/Cannot read the save file .*: it does not exist\./)
    const badUrl = await runCommand(['webhook', 'replay', file, '--to', 'localhost:3000'])
    expect(badUrl.exitCode).toBe(2)
    expect(badUrl.stderr).toMatch(/--to must be an absolute http\(s\) URL/)
    expect(server.requests).toHaveLength(0)
  })

  it('skips, and names, the lines a kill cut short: in the middle (a listener went on after it) and at the end', async () => {
    const server = await receiver()
    const cut = (seq: number) => JSON.stringify(record(seq, TX_A, 'SETTLEMENT_REQUESTED', long)).slice(0, 60)
    const file = saveFile([record(1, TX_A, 'INITIATED', long), cut(2), record(3, TX_A, 'SETTLEMENT_COMPLETED', long)])
    appendFileSync(file, cut(4))
    const result = await runCommand(['webhook', 'replay', file, '--to', server.url, '--json'])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stderr).toContain(`Note: skipped lines 2, 4 of ${file}: cut short when a listener was stopped while writing them, so never acknowledged.`)
    expect(server.requests.map((request) => request.body.status)).toEqual(['INITIATED', 'SETTLEMENT_COMPLETED'])
    expect(JSON.parse(result.stdout.trim().split('\n').at(-1)!)).toEqual({event: 'replayed', sent: 2, failed: 0, selected: 2})
  })

  it('says on stderr that redacted values are sent redacted', async () => {
    const server = await receiver()
    const redacted = {...record(1, TX_A, 'INITIATED', long, {authorization: 'Bear…n-77'}), body: {_id: TX_A, card: {pan: '•••• 4242'}}}
    const result = await runCommand(['webhook', 'replay', saveFile([redacted, record(2, TX_A, 'DECLINED', long)]), '--to', server.url])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stderr).toContain('Note: redacted values are sent as recorded (redacted), in webhook seq 1.')
    expect(server.requests[0].body.card.pan).toBe('•••• 4242')
    expect(server.requests[0].headers.authorization).toBe('Bear...n-77')
    const plain = await runCommand(['webhook', 'replay', saveFile([record(2, TX_A, 'DECLINED', long)]), '--to', server.url])
    expect(plain.stderr).not.toContain('redacted')
  })

  it.each([
    ['a CR LF in a value', {'x-trace': 'a\r\nX-Injected: 1'}, '"headers.x-trace" holds a line break (CR or LF), which no HTTP header can carry'],
    ['a lone LF in a value', {'x-trace': 'a\nb'}, '"headers.x-trace" holds a line break (CR or LF), which no HTTP header can carry'],
    ['a name that is no token', {'x trace\r\n': 'a'}, '"headers" has "x trace\\r\\n", which is not an HTTP header name'],
    ['a character above Latin-1', {'x-trace': 'caf\u2603'}, '"headers.x-trace" holds "\u2603" (U+2603), which an HTTP header cannot carry'],
  ])('a recorded header with %s is a bad file (exit 2, line and field named), not a failed delivery; nothing is sent', async (_, headers, problem) => {
    const server = await receiver()
    const file = saveFile([record(1, TX_A, 'INITIATED', long), record(2, TX_A, 'DECLINED', long, headers)])
    const result = await runCommand(['webhook', 'replay', file, '--to', server.url])
    expect(result.exitCode, result.stderr).toBe(2)
    expect(result.stderr).toContain(`${file}:2: not a saved webhook: ${problem}.`)
    expect(result.stdout).toBe('')
    expect(server.requests).toHaveLength(0)
  })

  it('reads the save file from stdin with `-`', async () => {
    const server = await receiver()
    const input = readFileSync(fiveWebhooks(), 'utf8')
    const result = await runCommand(['webhook', 'replay', '-', '--to', server.url, '--seq', '2-3'], {input})
    expect(result.exitCode, result.stderr).toBe(0)
    expect(server.requests.map((req) => req.body.status)).toEqual(['SETTLEMENT_REQUESTED', 'INITIATED'])
    expect(result.stderr).toMatch(/Replayed 2 of 2 webhooks/)
  })

  it('reads a FIFO until its writer closes it, then sends what it held, once', async () => {
    const server = await receiver()
    const fifo = join(mkdtempSync(join(tmpdir(), 'paytx-replay-')), 'pipe')
    execFileSync('mkfifo', [fifo], {timeout: 5_000})
    const writer = createWriteStream(fifo)
    writer.end(readFileSync(fiveWebhooks()))
    const result = await runCommand(['webhook', 'replay', fifo, '--to', server.url])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(server.requests).toHaveLength(5)
  })

  it.each([
    ['/dev/zero', () => '/dev/zero', 'Cannot read the save file /dev/zero: it is a device, not a regular file.'],
    ['a link to /dev/zero', () => {
      const link = join(mkdtempSync(join(tmpdir(), 'paytx-replay-')), 'saved.ndjson')
      symlinkSync('/dev/zero', link)
      return link
    }, 'it is a link to /dev/zero, a device, not a regular file.'],
    ['a folder', () => mkdtempSync(join(tmpdir(), 'paytx-replay-')), 'it is a folder.'],
  ])('refuses %s with exit 2 before reading it', async (_, path, message) => {
    const server = await receiver()
    const result = await runCommand(['webhook', 'replay', path(), '--to', server.url])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain(message)
    expect(server.requests).toHaveLength(0)
  })
})
