/**
 * `paytx webhook replay` in-process: a save file sent again to a recording endpoint on 127.0.0.1.
 * Replaying into a running `webhook listen` is in test/e2e/webhook-replay.test.ts.
 */
import {appendFileSync} from 'node:fs'
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
})
