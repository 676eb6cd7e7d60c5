/**
 * Every table of paytx fits the terminal's width (from the command context): in-process at 40,
 * 60, 80, 120 and 200 columns, every line of stdout is at most one column short of the edge, every
 * id is whole on a line (support staff copy them), the least needed columns are dropped first on
 * narrow terminals, and in a pipe the rows are whole and tab-separated.
 */
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {startEmulator, type RunningEmulator} from '../../src/emulator/index.js'
import {systemTimer} from '../../src/flow/timer.js'
import {ROOT} from '../helpers/cli.js'
import {API_KEY, type Answer, LookupServer, transaction} from '../helpers/lookup-server.js'
import {runCommand} from '../helpers/run-command.js'

const WIDTHS = [40, 60, 80, 120, 200]

/** Every line of `text` leaves the terminal's last column free. */
function expectFits(text: string, width: number): void {
  for (const line of text.split('\n')) expect(line.length, `${width} columns: ${JSON.stringify(line)}`).toBeLessThan(width)
}

/** The header line's column names (the aligned form), or undefined when the table is drawn as blocks. */
function headerOf(text: string, first: string): string[] | undefined {
  const line = text.split('\n')[0]
  return line.startsWith(first) ? line.split(/\s{2,}/) : undefined
}

/** `id` alone on a line (a block's title) or as the first word of a row, whole. */
function expectIdWhole(text: string, id: string): void {
  expect(text.split('\n').some((line) => line.trim() === id || line.startsWith(`${id} `)), `${id} whole in\n${text}`).toBe(true)
}

describe('status and checkoutsuccess with several ids', () => {
  // Built from local parts: "today" in any time zone.
  const now = new Date(2026, 10, 28, 15, 30, 0).getTime()
  const updated = new Date(2026, 10, 28, 14, 2, 9).toISOString()
  const statuses: Record<string, string> = {
    '3f1c2a9e-5b7d-4e8a-9c0b-1d2e3f4a5b6c': 'SETTLEMENT_COMPLETED',
    '7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d': 'CANCELLED',
    'c0ffee00-1234-4abc-9def-0123456789ab': 'PENDING',
  }
  const missing = 'deadbeef-0000-4000-8000-000000000000'
  const ids = [...Object.keys(statuses), missing]
  const reason = 'cancelled by the customer on the approval page'
  const answer = (path: string): Answer => {
    const [, id, checkout] = /^\/v1\/transaction\/([^/]+)(\/checkoutsuccess)?$/.exec(path) ?? []
    const status = statuses[id]
    if (!status) return {status: 404, json: {code: '404', message: `No transaction has the id "${id}"`}}
    if (checkout) return {json: {status, success: status === 'SETTLEMENT_COMPLETED', status_reason: status === 'CANCELLED' ? reason : ''}}
    return {json: transaction(id, status, {merchant_reference: 'order-2026-11-28-000123', last_status_update: updated})}
  }
  let server: LookupServer
  beforeAll(async () => {
    server = new LookupServer(answer)
    await server.start()
  })
  afterAll(() => server.close())
  const run = (command: string, terminalColumns?: number) =>
    runCommand([command, ...ids], {env: {PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY}, terminalColumns, context: {clock: {...systemTimer, now: () => now}}})

  /** In a pipe: whole tab-separated rows, exact times. */
  const expectPipe = async (command: string) => {
    const {stdout} = await run(command)
    const rows = stdout.trimEnd().split('\n')
    expect(rows).toHaveLength(ids.length + 1)
    expect(rows[0].split('\t')).toHaveLength(command === 'status' ? 7 : 5)
    for (const [index, id] of ids.entries()) expect(rows[index + 1].split('\t')[0]).toBe(id)
    if (command === 'status') expect(rows[1]).toBe(`${ids[0]}\tSETTLEMENT_COMPLETED\tyes\tyes\t1499\torder-2026-11-28-000123\t${updated}`)
    else expect(rows[2]).toBe(`${ids[1]}\tCANCELLED\tyes\tno\t${reason}`)
  }

  it('one id: the label and value lists of status and checkoutsuccess wrap a long reason between words at 40, 60, 80, 120 and 200 columns', async () => {
    const long = 'the customer cancelled the payment on the approval page after the bank asked for a second factor'
    const one = new LookupServer((path) => {
      const id = ids[1]
      if (path === `/v1/transaction/${id}/checkoutsuccess`) return {json: {status: 'CANCELLED', success: false, status_reason: long}}
      return {json: transaction(id, 'CANCELLED', {status_reason: long})}
    })
    await one.start()
    try {
      for (const command of ['status', 'checkoutsuccess']) {
        for (const width of WIDTHS) {
          const {stdout} = await runCommand([command, ids[1]], {env: {PAYTX_BASE_URL: `${one.url}/v1`, PAYTX_API_KEY: API_KEY}, terminalColumns: width})
          // Every line fits, but a word too long for any line (ref-<id> at 40 columns): that stands alone, whole.
          expectFits(stdout.split('\n').filter((line) => line.trim().includes(' ')).join('\n'), width)
          expect(stdout).toMatch(new RegExp(`^(Transaction {2}|  )${ids[1]}$`, 'm'))
          const lines = stdout.split('\n')
          const at = lines.findIndex((line) => line.startsWith('Reason'))
          const column = /^Reason +/.exec(lines[at])![0].length
          const shown = lines.slice(at).filter((line, index) => index === 0 || line.startsWith(' '.repeat(column))).map((line) => line.slice(column))
          expect(shown.join(' ')).toBe(long)
          expect(shown.length > 1).toBe(width < 120)
        }
        const piped = await runCommand([command, ids[1]], {env: {PAYTX_BASE_URL: `${one.url}/v1`, PAYTX_API_KEY: API_KEY}})
        expect(piped.stdout).toMatch(new RegExp(`^Reason +${long}$`, 'm'))
      }
    } finally {
      await one.close()
    }
  })

  it('status at 40, 60, 80, 120 and 200 columns: every line fits, ids whole, FINAL and SUCCESS go first, today as HH:MM:SS; whole TSV rows in a pipe', async () => {
    const check = async (width: number) => {
      const {stdout, exitCode} = await run('status', width)
      expect(exitCode).toBe(1)
      expectFits(stdout, width)
      for (const id of ids) expectIdWhole(stdout, id)
      const time = new Date(updated)
      const hhmmss = [time.getHours(), time.getMinutes(), time.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':')
      const header = headerOf(stdout, 'ID')
      if (width === 40) {
        // Too narrow for an id and its status side by side: a block per id.
        expect(header).toBeUndefined()
        expect(stdout).toContain(`${ids[0]}\n  status     SETTLEMENT_COMPLETED\n`)
        expect(stdout).toContain(`  updated    ${hhmmss}`)
        return
      }
      const expected: Record<number, string[]> = {
        60: ['ID', 'STATUS'],
        80: ['ID', 'STATUS', 'AMOUNT', 'UPDATED'],
        120: ['ID', 'STATUS', 'FINAL', 'SUCCESS', 'AMOUNT', 'REFERENCE', 'UPDATED'],
        200: ['ID', 'STATUS', 'FINAL', 'SUCCESS', 'AMOUNT', 'REFERENCE', 'UPDATED'],
      }
      expect(header).toEqual(expected[width])
      expect(stdout.split('\n')[1]).toMatch(new RegExp(`^${ids[0]}\\s+SETTLEMENT_COMPLETED\\b`))
      if (header?.includes('UPDATED')) expect(stdout.split('\n')[1].endsWith(`  ${hhmmss}`)).toBe(true)
      if (header?.includes('REFERENCE')) expect(stdout).toContain('order-2026-11-28-000123')
    }
    for (const width of WIDTHS) await check(width)
    await expectPipe('status')
  })

  it('checkoutsuccess at 40, 60, 80, 120 and 200 columns: REASON wraps between words or goes, never broken in a word; whole TSV rows in a pipe', async () => {
    const check = async (width: number) => {
      const {stdout} = await run('checkoutsuccess', width)
      expectFits(stdout, width)
      for (const id of ids) expectIdWhole(stdout, id)
      const header = headerOf(stdout, 'ID')
      if (width === 40) {
        expect(header).toBeUndefined()
        expect(stdout).toContain(`${ids[1]}\n  status   CANCELLED\n  final    yes\n  success  no\n  reason   cancelled by the customer on\n           the approval page\n`)
        return
      }
      // REASON is given at least 16 columns: FINAL and SUCCESS (which STATUS implies) make room for it at 80.
      expect(header).toEqual(width === 60 ? ['ID', 'STATUS'] : width === 80 ? ['ID', 'STATUS', 'REASON'] : ['ID', 'STATUS', 'FINAL', 'SUCCESS', 'REASON'])
      if (width === 60) return
      const lines = stdout.split('\n')
      const reasonAt = lines[0].indexOf('REASON')
      const start = lines.findIndex((line) => line.startsWith(ids[1]))
      const end = lines.findIndex((line, index) => index > start && line.startsWith(ids[2]))
      expect(lines.slice(start, end).map((line) => line.slice(reasonAt).trim()).join(' ')).toBe(reason)
      // Not squeezed: the first line of the reason holds several words.
      expect(lines[start].slice(reasonAt).trim().length).toBeGreaterThanOrEqual(16)
    }
    for (const width of WIDTHS) await check(width)
    await expectPipe('checkoutsuccess')
  })

})

describe('profile list', () => {
  const configDir = mkdtempSync(join(tmpdir(), 'paytx-table-widths-'))
  const base = 'http://127.0.0.1:49152/api/v1/merchants/acme-payments'
  beforeAll(async () => {
    const added = await runCommand(['profile', 'add', 'acme-sandbox', '--env', 'sandbox', '--base-url', base, '--api-key-stdin', '--no-input'], {
      configDir,
      input: 'sk_test_0123456789abcdef\n',
    })
    expect(added.exitCode, added.stderr).toBe(0)
  })
  const run = (terminalColumns?: number) => runCommand(['profile', 'list'], {configDir, terminalColumns, env: {PAYTX_API_KEY: 'sk_test_override_0123456789'}})

  /** In a pipe: whole tab-separated rows. */
  const expectPipe = async () => {
    const {stdout} = await run()
    expect(stdout.split('\n')[0]).toBe('ACTIVE\tNAME\tENV\tBASE URL\tAPI KEY\tOVERRIDES')
    expect(stdout).toMatch(new RegExp(`^\\tacme-sandbox\\tsandbox\\t${base.replaceAll('.', '\\.')}\\t[^\\t]+\\t$`, 'm'))
  }

  it('at 40, 60, 80, 120 and 200 columns: every line fits, names whole, an address cut only in its path or left out; whole TSV rows in a pipe', async () => {
    const check = async (width: number) => {
      const {stdout, exitCode} = await run(width)
      expect(exitCode).toBe(0)
      expectFits(stdout, width)
      const lines = stdout.trimEnd().split('\n')
      expect(lines.find((line) => line.includes(' local'))).toMatch(/^\*\s+local\s+local\b/)
      expect(lines.find((line) => line.includes('acme-sandbox'))).toMatch(/^\s+acme-sandbox\s+sandbox\b/)
      const header = headerOf(stdout, 'ACTIVE')!
      expect(header.slice(0, 3)).toEqual(['ACTIVE', 'NAME', 'ENV'])
      if (width === 40) expect(header).not.toContain('BASE URL')
      if (width === 60) expect(header).toEqual(['ACTIVE', 'NAME', 'ENV', 'BASE URL'])
      if (width === 200) expect(header).toEqual(['ACTIVE', 'NAME', 'ENV', 'BASE URL', 'API KEY', 'OVERRIDES'])
      const shown = /http\S*/.exec(lines.find((line) => line.includes('acme-sandbox'))!)?.[0]
      if (width === 60) expect(shown).toMatch(/^http:\/\/127\.0\.0\.1:49152\/\S*…$/)
      if (header.includes('BASE URL')) {
        // Whole, or cut after the port's slash: never `http://127.0.0.1:49…`.
        expect(shown === base || (shown!.endsWith('…') && base.startsWith(shown!.slice(0, -1)) && shown!.startsWith('http://127.0.0.1:49152/'))).toBe(true)
      } else expect(shown).toBeUndefined()
    }
    for (const width of WIDTHS) await check(width)
    await expectPipe()
  })

  it('a name too long for 40 columns: each profile a block titled by its whole name, nothing past the edge', async () => {
    const longDir = mkdtempSync(join(tmpdir(), 'paytx-table-widths-'))
    const name = 'acme-payments-eu-west-sandbox-2026'
    const added = await runCommand(['profile', 'add', name, '--env', 'sandbox', '--base-url', base, '--api-key-stdin', '--no-input'], {configDir: longDir, input: 'sk_test_0123456789abcdef\n'})
    expect(added.exitCode, added.stderr).toBe(0)
    const {stdout, exitCode} = await runCommand(['profile', 'list'], {configDir: longDir, terminalColumns: 40})
    expect(exitCode).toBe(0)
    expectFits(stdout, 40)
    const lines = stdout.split('\n')
    expect(lines).toContain(name)
    expect(lines).toContain('local')
    expect(lines.some((line) => /^\s+env\s+sandbox$/.test(line))).toBe(true)
    expect(lines.some((line) => /^\s+active\s+\*$/.test(line))).toBe(true)
  })
})

describe('emulator faults list', () => {
  let emulator: RunningEmulator
  const env = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl})
  beforeAll(async () => {
    emulator = await startEmulator({port: 0, settleAfterMs: 0, pendingForMs: 0, faults: {rules: [], seed: 7}})
    const added = await runCommand(['emulator', 'faults', 'add', '--file', join(ROOT, 'examples', 'faults.yaml')], {env: env()})
    expect(added.exitCode, added.stderr).toBe(0)
  })
  afterAll(() => emulator.close())

  it('at 40, 60, 80, 120 and 200 columns: every line fits, rule ids whole, the counts go first', async () => {
    const check = async (width: number) => {
      const {stdout, exitCode} = await runCommand(['emulator', 'faults', 'list'], {env: env(), terminalColumns: width})
      expect(exitCode).toBe(0)
      expectFits(stdout, width)
      for (const id of ['f1', 'f2', 'f3', 'f4']) expectIdWhole(stdout, id)
      expect(stdout.trimEnd().split('\n').at(-1)).toBe('seed 42')
      // What a rule matches is never broken inside a word.
      expect(stdout).toContain('merchant_reference=flaky-*')
      const header = headerOf(stdout, 'ID')
      const expected: Record<number, string[] | undefined> = {
        40: undefined,
        60: ['ID', 'FAULT', 'MATCHES', 'APPLIES'],
        80: ['ID', 'NAME', 'FAULT', 'MATCHES', 'APPLIES', 'HITS'],
        120: ['ID', 'NAME', 'FAULT', 'MATCHES', 'APPLIES', 'HITS', 'MATCHED'],
        200: ['ID', 'NAME', 'FAULT', 'MATCHES', 'APPLIES', 'HITS', 'MATCHED'],
      }
      expect(header).toEqual(expected[width])
    }
    for (const width of WIDTHS) await check(width)
  })

  it('in a pipe: whole tab-separated rows, the seed on stderr', async () => {
    const {stdout, stderr} = await runCommand(['emulator', 'faults', 'list'], {env: env()})
    const rows = stdout.trimEnd().split('\n')
    expect(rows[0]).toBe('ID\tNAME\tFAULT\tMATCHES\tAPPLIES\tHITS\tMATCHED')
    expect(rows[3]).toBe('f3\tlost-webhook\tdrop\twebhook product=card merchant_reference=flaky-* status=SETTLEMENT_REQUESTED\tevery match\t0\t0')
    expect(stderr).toContain('seed 42')
  })
})

describe('smoke run', () => {
  let emulator: RunningEmulator
  let file: string
  const env = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl})
  beforeAll(async () => {
    emulator = await startEmulator({port: 0, settleAfterMs: 0, pendingForMs: 0, assumptions: {webhookPayload: 'full'}})
    file = join(mkdtempSync(join(tmpdir(), 'paytx-table-widths-')), 'cases.yaml')
    writeFileSync(
      file,
      `defaults: {product: dummy, amount: 1499}
cases:
  - name: declined-dummy-payment
    outcome: DECLINED
    expect: {status: DECLINED, success: false}
  - name: expects-the-wrong-thing
    outcome: CANCELLED
    expect: {status: DECLINED}
`,
    )
  })
  afterAll(() => emulator.close())

  it('at 40, 60, 80, 120 and 200 columns: every line fits, transaction ids whole, EXPECTED, GOT and DURATION go first', async () => {
    const check = async (width: number) => {
      // stderr to a log: no live view draws the cases, so stdout's table shows them (the live view is test/commands/smoke/run-terminal.test.ts).
      const result = await runCommand(['smoke', 'run', file], {env: env(), terminalColumns: width, stderrToFile: true})
      expect(result.exitCode, result.stderr).toBe(3)
      expectFits(result.stdout, width)
      const ids = result.stdout.match(/[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}/g) ?? []
      expect(new Set(ids).size).toBe(2)
      for (const id of ids) expect(result.stdout.split('\n').some((line) => line.trim() === id || line.split(/\s+/).includes(id))).toBe(true)
      const header = headerOf(result.stdout, 'CASE')
      const expected: Record<number, string[] | undefined> = {
        40: undefined,
        60: undefined,
        80: ['CASE', 'TRANSACTION', 'RESULT'],
        120: ['CASE', 'TRANSACTION', 'EXPECTED', 'GOT', 'RESULT'],
        200: ['CASE', 'TRANSACTION', 'EXPECTED', 'GOT', 'DURATION', 'RESULT'],
      }
      expect(header).toEqual(expected[width])
      // The failure's difference is shown whatever the width, its words whole.
      const lines = result.stdout.split('\n')
      const start = lines.findIndex((line) => line.startsWith('expects-the-wrong-thing'))
      const end = lines.indexOf('', start)
      const resultText = header
        ? lines.slice(start, end).map((line) => line.slice(lines[0].indexOf('RESULT')).trim())
        : lines.slice(lines.findIndex((line, index) => index > start && line.startsWith('  result')), end).map((line) => line.replace(/^ {2}result/, '').trim())
      expect(resultText.join(' ')).toBe('FAIL: status: expected DECLINED, got CANCELLED')
    }
    for (const width of WIDTHS) await check(width)
  })
})

describe("flow's summary", () => {
  let emulator: RunningEmulator
  const env = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl})
  beforeAll(async () => {
    emulator = await startEmulator({port: 0, settleAfterMs: 0, pendingForMs: 0})
  })
  afterAll(() => emulator.close())

  it("takes its width from the command context's stdout: wrapped between words on a terminal, one line a value in a pipe", async () => {
    const args = ['flow', '--product', 'dummy', '--amount', '250', '--approve', 'DECLINED', '--no-open']
    // CI: no spinner (the captured stderr is no real terminal); stdout still counts as one 50 wide.
    const narrow = await runCommand(args, {env: {...env(), CI: '1'}, terminalColumns: 50})
    expect(narrow.exitCode, narrow.stderr).toBe(3)
    // Every line fits but one holding a single word too long for any line (an id is never cut).
    for (const line of narrow.stdout.split('\n')) if (line.trim().includes(' ')) expect(line.length, line).toBeLessThan(50)
    expect(narrow.stdout).toMatch(/^Steps {2,}\S.*\n {2,}\S/m)
    const piped = await runCommand(args, {env: env()})
    const steps = piped.stdout.split('\n').find((line) => line.startsWith('Steps'))!
    expect(steps.length).toBeGreaterThan(50)
    expect(piped.stdout.split('\n')[piped.stdout.split('\n').indexOf(steps) + 1]).toMatch(/^Duration/)
  })
})
