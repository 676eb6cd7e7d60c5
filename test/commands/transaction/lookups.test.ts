/**
 * `status` and `checkoutsuccess` with several ids (src/cli/transaction-lookup-command.ts), in-process
 * against a scripted service on 127.0.0.1. What only a terminal shows (the fitted table, the
 * progress line and Ctrl-C) is in test/e2e/transaction-lookups.test.ts.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {parseJsonOutput, tempConfigDir} from '../../helpers/cli.js'
import {runCommand} from '../../helpers/run-command.js'
import {API_KEY, lookupServerPerTest, serviceAnswer, transaction} from '../../helpers/lookup-server.js'

describe('several transaction ids at once', () => {
  const lookups = lookupServerPerTest()

  const env = () => lookups.env()

  it('answers in input order under --json whatever order the lookups finish in', async () => {
    const ids = ['slow400-paid-1', 'slow10-declined-2', 'missing-3', 'slow200-pending-4', 'requested-5']
    const result = await runCommand(['status', ...ids, '--json'], {env: env()})
    expect(result.exitCode).toBe(1)
    const array = parseJsonOutput<{id: string; transaction?: {status: string}; error?: {status: number}}[]>(result)
    expect(array.map((entry) => entry.id)).toEqual(ids)
    expect(array[0].transaction).toEqual(transaction('slow400-paid-1', 'SETTLEMENT_COMPLETED'))
    expect(array[1].transaction?.status).toBe('DECLINED')
    expect(array[2]).toEqual({id: 'missing-3', error: expect.objectContaining({kind: 'service', status: 404, exitCode: 1})})
    expect(array[2].transaction).toBeUndefined()
    expect(result.stderr).toContain('missing-3: The service answered 404 Not Found')
    expect(result.stdout).not.toContain(API_KEY)
  })

  it('keeps at most --concurrency lookups in flight (default 4)', async () => {
    const ids = Array.from({length: 12}, (_, index) => `slow150-paid-${index}`)
    const three = await runCommand(['status', ...ids, '--concurrency', '3', '--json'], {env: env()})
    expect(three.exitCode).toBe(0)
    expect(lookups.server.requests).toHaveLength(12)
    expect(lookups.server.maxInFlight).toBe(3)

    lookups.server.maxInFlight = 0
    const byDefault = await runCommand(['checkoutsuccess', ...ids, '--json'], {env: env()})
    expect(byDefault.exitCode).toBe(0)
    expect(lookups.server.maxInFlight).toBe(4)
  })

  it('pauses every lookup for the Retry-After of a 429, then succeeds', async () => {
    lookups.answer = (path, nth) =>
      path.includes('paid-0') && nth === 1 ? {status: 429, json: {message: 'slow down'}, headers: {'retry-after': '1'}} : {...serviceAnswer(path), delayMs: 30}
    const ids = Array.from({length: 6}, (_, index) => `paid-${index}`)
    const result = await runCommand(['status', ...ids, '--concurrency', '2', '--json'], {env: env()})
    expect(result.exitCode).toBe(0)
    expect(parseJsonOutput<unknown[]>(result)).toHaveLength(6)
    expect(lookups.server.pathsFor('paid-0')).toHaveLength(2)
    const limited = lookups.server.requests.find((request) => request.path.endsWith('paid-0'))!.at
    // The other worker's first lookup may arrive alongside the 429 (sent before it came back);
    // everything later was held back until the Retry-After had passed.
    const later = lookups.server.requests.filter((request) => request.at - limited > 50)
    expect(later.length).toBeGreaterThanOrEqual(5)
    for (const request of later) expect(request.at - limited).toBeGreaterThanOrEqual(950)
  })

  it('never tries a GET more often than the retry policy allows, however often 429 comes back', async () => {
    lookups.answer = (path) => (path.includes('paid-0') ? {status: 429, json: {message: 'slow down'}, headers: {'retry-after': '0'}} : serviceAnswer(path))
    const result = await runCommand(['status', 'paid-0', 'paid-1', '--json'], {env: env()})
    expect(result.exitCode).toBe(1)
    expect(lookups.server.pathsFor('paid-0')).toHaveLength(3)
    expect(parseJsonOutput(result)[0]).toEqual({id: 'paid-0', error: expect.objectContaining({status: 429})})
  })

  it('reads ids from stdin: trimmed, blank lines and comments skipped, a line that is not an id reported and not sent', async () => {
    const input = '# ids from ticket 4711\n  paid-1  \n\n\tdeclined-2\r\nnot an id\nhas/slash\n'
    const result = await runCommand(['status', '-', '--json'], {env: env(), input})
    expect(result.exitCode).toBe(1)
    expect(lookups.server.requests.map((request) => request.path).sort()).toEqual(['/v1/transaction/declined-2', '/v1/transaction/paid-1'])
    const array = parseJsonOutput<{id: string; error?: {kind: string}}[]>(result)
    expect(array.map((entry) => entry.id)).toEqual(['paid-1', 'declined-2', 'not an id', 'has/slash'])
    expect(array[2].error?.kind).toBe('input')
    expect(array[3].error?.kind).toBe('input')
    expect(result.stderr).toMatch(/"not an id" \(stdin line 5\) is not a transaction id: it contains whitespace/)
    expect(result.stderr).toMatch(/"has\/slash" \(stdin line 6\) is not a transaction id: it contains "\/"/)
  })

  it('reports a 10 MB junk line beside an id and looks the id up (exit 1, not 2)', async () => {
    const input = `${'J'.repeat(10 * 1024 * 1024)}\npaid-1\n`
    const result = await runCommand(['status', '-', '--json'], {env: env(), input})
    expect(result.exitCode).toBe(1)
    expect(lookups.server.requests.map((request) => request.path)).toEqual(['/v1/transaction/paid-1'])
    const array = parseJsonOutput<{id: string; transaction?: {status: string}; error?: {kind: string}}[]>(result)
    expect(array.map((entry) => entry.id)).toEqual([`${'J'.repeat(40)}… (10485760 bytes)`, 'paid-1'])
    expect(array[0].error?.kind).toBe('input')
    expect(array[1].transaction?.status).toBe('SETTLEMENT_COMPLETED')
    expect(result.stderr).toMatch(/\(stdin line 1\) is not a transaction id: it is longer than 1 MiB \(10485760 bytes\); an id is at most 200 characters/)
    expect(result.stderr.length).toBeLessThan(2000)
  })

  it('reads ids from --from-file after the arguments', async () => {
    const file = join(tempConfigDir(), 'ids.txt')
    writeFileSync(file, 'requested-2\n# done\npaid-3\n')
    const result = await runCommand(['checkoutsuccess', 'paid-1', '--from-file', file, '--json'], {env: env()})
    expect(result.exitCode).toBe(0)
    expect(parseJsonOutput<{id: string}[]>(result).map((entry) => entry.id)).toEqual(['paid-1', 'requested-2', 'paid-3'])
  })

  it.each([
    {name: 'a file that does not exist', args: ['status', '--from-file', '/nonexistent/ids.txt'], input: undefined, message: /--from-file \/nonexistent\/ids.txt cannot be read: it does not exist/},
    {name: 'only comments on stdin', args: ['status', '-'], input: '# nothing\n\n', message: /No transaction id to look up/},
    {name: 'no line is an id', args: ['status', '-'], input: 'a b\nc/d\n', message: /None of the 2 lines is a transaction id; nothing was sent/},
    {name: '100,000 lines, none an id', args: ['status', '-'], input: 'a b\n'.repeat(100_000), message: /None of the 100000 lines is a transaction id; nothing was sent; the first 10:[^]*… and 99990 more/},
    {name: 'one id that is not one', args: ['checkoutsuccess', ' a b '], input: undefined, message: /"a b" \(the id argument\) is not a transaction id/},
    {name: '--wait-timeout that is not a duration', args: ['status', 'paid-1', 'paid-2', '--wait', '--wait-timeout', 'soon'], input: undefined, message: /--wait-timeout/},
    {name: '--concurrency 0', args: ['status', 'paid-1', 'paid-2', '--concurrency', '0'], input: undefined, message: /--concurrency must be a whole number from 1 to 32/},
  ])('refuses $name with exit 2 and sends nothing', async ({args, input, message}) => {
    const result = await runCommand(args, {env: env(), input})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(message)
    expect(result.stdout).toBe('')
    expect(lookups.server.requests).toHaveLength(0)
  })

  // "moving" settles on its third read, 1.25 s in (pauses of 0.5 and 0.75 s): a wait of 2 s left
  // a loaded machine 0.75 s for three reads; 4 s leaves it 2.75 s.
  it.each([
    {ids: ['moving-1', 'requested-2'], code: 0, extra: []},
    {ids: ['moving-1', 'declined-2', 'pending-3'], code: 3, extra: ['--wait-timeout', '4s']},
    {ids: ['moving-1', 'pending-2'], code: 4, extra: ['--wait-timeout', '4s']},
    {ids: ['moving-1', 'missing-2'], code: 1, extra: []},
  ])('status --wait $ids waits for all of them and exits $code', async ({ids, code, extra}) => {
    // "moving" reads PENDING twice, then SETTLEMENT_COMPLETED.
    lookups.answer = (path, nth) => (path.includes('moving') ? {json: transaction('moving-1', nth <= 2 ? 'PENDING' : 'SETTLEMENT_COMPLETED')} : serviceAnswer(path))
    const result = await runCommand(['status', ...ids, '--wait', ...extra, '--json'], {env: env()})
    expect(result.exitCode, result.stderr).toBe(code)
    const array = parseJsonOutput<{id: string; transaction?: {status: string}}[]>(result)
    expect(array.map((entry) => entry.id)).toEqual(ids)
    expect(array[0].transaction?.status).toBe('SETTLEMENT_COMPLETED')
    expect(result.stderr).toMatch(/^moving-1: PENDING → SETTLEMENT_COMPLETED \(final, success\)  \(after [\d.]+ m?s\)$/m)
    expect(lookups.server.pathsFor('moving-1').length).toBeGreaterThanOrEqual(3)
    if (code === 4) expect(result.stderr).toMatch(/Warning: transaction pending-2 is still PENDING after 4\.0 s; not conclusive\./)
  })

  it('status --wait with several ids keeps at most --concurrency reads in flight', async () => {
    lookups.answer = (path) => ({...serviceAnswer(path), delayMs: 150})
    const ids = Array.from({length: 6}, (_, index) => `pending-${index}`)
    // Two rounds of six reads of 150 ms, two at a time, and a pause of 0.5 s take about 1.4 s: the
    // wait of 4 s leaves a loaded machine room for the second round (2 s left it 0.6 s).
    const result = await runCommand(['status', ...ids, '--wait', '--wait-timeout', '4s', '--concurrency', '2'], {env: env()})
    expect(result.exitCode).toBe(4)
    expect(lookups.server.maxInFlight).toBe(2)
    for (const id of ids) expect(lookups.server.pathsFor(id).length, id).toBeGreaterThanOrEqual(2)
    expect(result.stdout.split('\n')[0]).toBe('ID\tSTATUS\tFINAL\tSUCCESS\tAMOUNT\tREFERENCE\tUPDATED')
  })

  it('trims a single id and keeps the one-id view', async () => {
    const result = await runCommand(['status', '  paid-1 '], {env: env()})
    expect(result.exitCode).toBe(0)
    expect(lookups.server.requests.map((request) => request.path)).toEqual(['/v1/transaction/paid-1'])
    expect(result.stdout).toMatch(/^Transaction\s+paid-1$/m)
    expect(result.stdout).toMatch(/SETTLEMENT_COMPLETED \(final, success\)/)
  })

  it('checkoutsuccess --json for one id includes the id; status --json keeps the object unchanged', async () => {
    const checkout = await runCommand(['checkoutsuccess', 'paid-1', '--json'], {env: env()})
    expect(checkout.exitCode).toBe(0)
    expect(parseJsonOutput(checkout)).toEqual({id: 'paid-1', status: 'SETTLEMENT_COMPLETED', success: true, status_reason: 'paid'})
    const status = await runCommand(['transaction', 'status', 'paid-1', '--json'], {env: env()})
    expect(parseJsonOutput(status)).toEqual(transaction('paid-1', 'SETTLEMENT_COMPLETED'))
  })

  it.each([
    {command: 'checkoutsuccess', ids: ['paid-1', 'requested-2'], code: 0},
    {command: 'checkoutsuccess', ids: ['paid-1', 'pending-2'], code: 4},
    {command: 'checkoutsuccess', ids: ['paid-1', 'unknown-2'], code: 4},
    {command: 'checkoutsuccess', ids: ['paid-1', 'declined-2'], code: 3},
    {command: 'checkoutsuccess', ids: ['pending-1', 'declined-2'], code: 3},
    {command: 'checkoutsuccess', ids: ['declined-1', 'missing-2'], code: 1},
    {command: 'checkoutsuccess', ids: ['paid-1', 'bad/id'], code: 1},
    {command: 'status', ids: ['declined-1', 'pending-2'], code: 0},
    {command: 'status', ids: ['paid-1', 'missing-2'], code: 1},
    {command: 'transaction checkoutsuccess', ids: ['paid-1', 'declined-2'], code: 3},
  ])('$command $ids exits $code', async ({command, ids, code}) => {
    const result = await runCommand([...command.split(' '), ...ids], {env: env()})
    expect(result.exitCode).toBe(code)
    expect(result.stdout.split('\n')[0]).toMatch(/^ID\tSTATUS\tFINAL\tSUCCESS\t/)
  })

  it('prints tab-separated rows under a header line in a pipe', async () => {
    const result = await runCommand(['status', 'paid-1', 'declined-2', 'missing-3'], {env: env()})
    expect(result.exitCode).toBe(1)
    expect(result.stdout.split('\n').slice(0, -1)).toEqual([
      'ID\tSTATUS\tFINAL\tSUCCESS\tAMOUNT\tREFERENCE\tUPDATED',
      'paid-1\tSETTLEMENT_COMPLETED\tyes\tyes\t1499\tref-paid-1\t2026-11-20T10:00:03.123Z',
      'declined-2\tDECLINED\tyes\tno\t1499\tref-declined-2\t2026-11-20T10:00:03.123Z',
      'missing-3\terror: 404\t\t\t\t\t',
    ])
  })

  it('prints CSV with --csv, quoting where needed', async () => {
    lookups.answer = (path) => (path.includes('paid-1') ? {json: transaction('paid-1', 'SETTLEMENT_COMPLETED', {merchant_reference: 'order 7, "gift"'})} : serviceAnswer(path))
    const result = await runCommand(['status', 'paid-1', 'pending-2', '--csv'], {env: env()})
    expect(result.exitCode).toBe(0)
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      'ID,STATUS,FINAL,SUCCESS,AMOUNT,REFERENCE,UPDATED',
      'paid-1,SETTLEMENT_COMPLETED,yes,yes,1499,"order 7, ""gift""",2026-11-20T10:00:03.123Z',
      'pending-2,PENDING,no,no,1499,ref-pending-2,2026-11-20T10:00:03.123Z',
    ])
  })
})
