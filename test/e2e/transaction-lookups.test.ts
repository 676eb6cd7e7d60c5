/**
 * What only a real process shows of `status` and `checkoutsuccess` with several ids: the table
 * fitted to a terminal, the progress line and Ctrl-C, rows written while stdin is still open, and
 * a line over 1 MiB on stdin. Everything else is in test/commands/transaction/lookups.test.ts.
 */
import {describe, expect, it} from 'vitest'

import {parseJsonOutput, runCli, startCli} from '../helpers/cli.js'
import {ptyAvailable, runInPty} from '../helpers/pty.js'
import {screenAfter} from '../helpers/screen.js'
import {lookupServerPerTest, serviceAnswer, transaction} from '../helpers/lookup-server.js'

describe('several transaction ids at once', () => {
  const lookups = lookupServerPerTest()

  const env = () => lookups.env()

  it('reads stdin as it comes and writes each row as soon as it and those before it are known', async () => {
    const cli = startCli(['status', '-'], {env: env(), openStdin: true})
    cli.child.stdin.write('paid-1\ndeclined-2\n')
    await cli.waitForStdout(/^declined-2\tDECLINED\t/m)
    expect(lookups.server.requests.map((request) => request.path)).toEqual(['/v1/transaction/paid-1', '/v1/transaction/declined-2'])
    cli.child.stdin.end('missing-3\n')
    const result = await cli.done
    expect(result.code).toBe(1)
    expect(result.stdout.split('\n').map((line) => line.split('\t')[0])).toEqual(['ID', 'paid-1', 'declined-2', 'missing-3', ''])
  })

  it('writes the --json array element by element: the first is out while stdin is still open, and it ends as one document', async () => {
    const cli = startCli(['checkoutsuccess', '-', '--json'], {env: env(), openStdin: true})
    cli.child.stdin.write('paid-1\nrequested-2\n')
    await cli.waitForStdout(/"id": "requested-2"/)
    cli.child.stdin.end('paid-3\n')
    const result = await cli.done
    expect(result.code).toBe(0)
    expect(parseJsonOutput<{id: string}[]>(result).map((entry) => entry.id)).toEqual(['paid-1', 'requested-2', 'paid-3'])
  })

  it('reports a line over 1 MiB as not an id by its first characters, and looks up the ids on both sides of it', async () => {
    const input = `paid-1\npaid-2\n${'0'.repeat(1024 * 1024 + 1)}\npaid-4\n`
    const result = await runCli(['status', '-'], {env: env(), input})
    expect(result.code).toBe(1)
    expect(lookups.server.requests.map((request) => request.path)).toEqual(['/v1/transaction/paid-1', '/v1/transaction/paid-2', '/v1/transaction/paid-4'])
    expect(result.stdout.split('\n')[3]).toBe(`${'0'.repeat(40)}… (1048577 bytes)\terror: not an id\t\t\t\t\t`)
    expect(result.stdout.split('\n')[4]).toMatch(/^paid-4\t/)
    expect(result.stderr).toMatch(/\(stdin line 3\) is not a transaction id: it is longer than 1 MiB \(1048577 bytes\)/)
  })

  it.skipIf(!ptyAvailable)('draws an aligned table fitted to the terminal on a TTY', async () => {
    const long = `ref-${'x'.repeat(120)}`
    lookups.answer = (path) => (path.includes('paid-1') ? {json: transaction('paid-1', 'SETTLEMENT_COMPLETED', {merchant_reference: long})} : serviceAnswer(path))
    const session = runInPty(['status', 'paid-1', 'declined-2', 'missing-3'], {env: env()})
    expect(await session.exited).toBe(1)
    const lines = session
      .output()
      .replace(/\r/g, '')
      .split('\n')
      .filter((line) => /^(ID|paid-1|declined-2|missing-3)\s/.test(line))
    expect(lines).toHaveLength(4)
    // FINAL, which STATUS implies, is the first column to go at 80 columns.
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+SUCCESS\s+AMOUNT\s+REFERENCE\s+UPDATED$/)
    for (const line of lines) {
      expect(line, JSON.stringify(lines, null, 1)).not.toContain('\t')
      // The pseudo-terminal has no size, which counts as 80 columns.
      expect(line.length, line).toBeLessThan(80)
    }
    expect(lines[1]).toMatch(/^paid-1\s+SETTLEMENT_COMPLETED\s+yes\s+1499\s+ref-x+…\s+[A-Z][a-z]{2} \d{1,2} (\d\d:\d\d|\d{4})$/)
    expect(lines[1]).not.toContain(long)
    // Columns line up: every row's STATUS starts where the header's does.
    const statusAt = lines[0].indexOf('STATUS')
    for (const line of lines.slice(1)) expect(line.slice(statusAt)).toMatch(/^(SETTLEMENT_COMPLETED|DECLINED|error: 404)/)
  })

  it.skipIf(!ptyAvailable)('shows a progress line on a terminal from 10 ids on, and Ctrl-C leaves none of it behind', async () => {
    lookups.answer = (path) => ({...serviceAnswer(path), delayMs: 300})
    const ids = Array.from({length: 12}, (_, index) => `paid-${index}`)
    const session = runInPty(['status', ...ids, '--concurrency', '1'], {env: env()})
    await session.waitFor(/Looked up 2 of 12…/, 15_000)
    session.type('\u0003')
    expect(await session.exited).toBe(130)
    expect(screenAfter(session.output()).join('\n')).not.toContain('Looked up')
  })
})
