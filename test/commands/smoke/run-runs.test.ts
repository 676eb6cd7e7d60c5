/**
 * `paytx smoke run` in-process against a real emulator on a free port (started here, with short
 * timings) or against a recording server that must receive nothing. SIGINT and SIGTERM are in
 * test/e2e/smoke-run.test.ts.
 */
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {EmulatorEvent, RunningEmulator} from '../../../src/emulator/index.js'
import {startEmulator} from '../../../src/emulator/index.js'
import {ROOT, parseJsonOutput} from '../../helpers/cli.js'
import {runCommand} from '../../helpers/run-command.js'
import {parseJUnit} from '../../helpers/junit.js'
import {startRecordingServer} from '../../helpers/recording-server.js'
import {waitFor} from '../../helpers/wait-for.js'

const EXAMPLE = join(ROOT, 'examples', 'smoke.yaml')

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'paytx-smoke-'))
}

function writeScenario(dir: string, name: string, text: string): string {
  const file = join(dir, name)
  writeFileSync(file, text)
  return file
}

describe('smoke run against the emulator', () => {
  let emulator: RunningEmulator
  const events: EmulatorEvent[] = []
  const env = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl})

  beforeAll(async () => {
    // With no delays a status lasts no time, so only a body that names it (the full payload) can
    // tell the cases every status they expect; the minimal default is covered by the flow tests.
    emulator = await startEmulator({port: 0, settleAfterMs: 0, pendingForMs: 0, assumptions: {webhookPayload: 'full'}, onEvent: (event) => events.push(event)})
  })
  afterAll(() => emulator.close())

  it('names the JUnit suite after the file, smoke for stdin, or --name; reads ${env.NAME} from the environment', async () => {
    const dir = tempDir()
    const scenario = 'cases:\n  - name: env-case\n    product: dummy\n    amount: 100\n    outcome: SETTLEMENT_COMPLETED\n    merchant_reference: ${env.SHOP_ORDER}\n'
    const suiteOf = async (args: string[], input?: string) => {
      const junit = join(dir, `${args.join('-').replaceAll('/', '_')}.xml`)
      const result = await runCommand(['smoke', 'run', ...args, '--junit', junit], {env: {...env(), SHOP_ORDER: 'order-77'}, input})
      expect(result.exitCode, result.stdout + result.stderr).toBe(0)
      return parseJUnit(readFileSync(junit, 'utf8')).suites[0].attributes.name
    }
    expect(await suiteOf(['-'], scenario)).toBe('smoke')
    expect(await suiteOf(['-', '--name', 'checkout-smoke'], scenario)).toBe('checkout-smoke')
    writeFileSync(join(dir, 'shop-smoke.yaml'), scenario)
    expect(await suiteOf([join(dir, 'shop-smoke.yaml')])).toBe('shop-smoke')
    const started = events.filter((event) => event.event === 'request' && event.path === '/v1/transaction/start').length
    expect(started).toBeGreaterThanOrEqual(3)
    const wrong = await runCommand(['smoke', 'run', '-', '--name', ' '], {env: env(), input: scenario})
    expect(wrong.exitCode).toBe(2)
    expect(wrong.stderr).toContain('--name must be a suite name on one line')
    const unset = await runCommand(['smoke', 'run', '-'], {env: env(), input: scenario})
    expect(unset.exitCode).toBe(2)
    expect(unset.stderr).toContain('${env.SHOP_ORDER}: the environment variable SHOP_ORDER is not set')
  })

  it('passes the shipped example end to end: every product and outcome, a table, and a well-formed JUnit file', async () => {
    const dir = tempDir()
    const junit = join(dir, 'results.xml')
    const result = await runCommand(['smoke', 'run', EXAMPLE, '--junit', junit, '--concurrency', '6'], {env: env()})
        expect(result.exitCode, result.stdout + result.stderr).toBe(0)

    const names = [...readFileSync(EXAMPLE, 'utf8').matchAll(/^ {2}- name: (\S+)/gm)].map((match) => match[1])
    expect(result.stderr).toContain(`Running ${names.length} cases of`)
    // In a pipe: tab-separated rows under a header line, and the summary on stderr.
    const rows = result.stdout.split('\n')
    expect(rows[0]).toBe('CASE\tTRANSACTION\tEXPECTED\tGOT\tDURATION\tRESULT')
    for (const name of names) expect(rows.find((row) => row.startsWith(`${name}\t`)), name).toMatch(/\tpass$/)
    expect(rows.slice(1, -1).every((row) => row.split('\t').length === 6)).toBe(true)
    expect(result.stderr).toContain(`${names.length} passed, 0 failed of ${names.length} cases in`)
    expect(result.stdout).not.toContain('passed,')
    // Progress went to stderr (no terminal: one line per finished case), never to stdout.
    for (const name of names) expect(result.stderr).toContain(`✔ ${name}  `)
    expect(result.stdout).not.toContain('✔')

    const doc = parseJUnit(readFileSync(junit, 'utf8'))
    expect(doc.rootAttributes).toMatchObject({tests: String(names.length), failures: '0', errors: '0', skipped: '0'})
    expect(doc.suites[0].testcases.map((testcase) => testcase.attributes.name)).toEqual(names)
    for (const testcase of doc.suites[0].testcases) {
      expect(testcase.failure ?? testcase.error ?? testcase.skipped).toBeUndefined()
      expect(Number(testcase.attributes.time)).toBeGreaterThan(0)
    }
    // The test card number is never shown, not even in the report.
    expect(result.stdout + result.stderr + readFileSync(junit, 'utf8')).not.toContain('4024007108173153')
  })

  it('fails a case whose expectation is wrong with exit 3, naming the case and the difference in the table, JSON and JUnit', async () => {
    const dir = tempDir()
    const file = writeScenario(
      dir,
      'wrong.yaml',
      `defaults: {product: dummy, amount: 1499}
cases:
  - name: declined-as-expected
    outcome: DECLINED
    expect: {status: DECLINED, success: false}
  - name: expects-the-wrong-thing
    outcome: CANCELLED
    expect: {status: DECLINED, webhooks: {contains: [DECLINED]}}
`,
    )
    const junit = join(dir, 'results.xml')
    const table = await runCommand(['smoke', 'run', file, '--junit', junit], {env: env()})
    expect(table.exitCode, table.stderr).toBe(3)
    const row = table.stdout.split('\n').find((line) => line.startsWith('expects-the-wrong-thing'))
    expect(row).toContain('FAIL: status: expected DECLINED, got CANCELLED; webhooks: expected to include DECLINED, got [')
    expect(table.stdout.split('\n').find((line) => line.startsWith('declined-as-expected'))).toMatch(/\s+pass$/)
    expect(table.stderr).toContain('✖ expects-the-wrong-thing  status: expected DECLINED, got CANCELLED')

    const doc = parseJUnit(readFileSync(junit, 'utf8'))
    const [passed, failed] = doc.suites[0].testcases
    expect(passed.failure).toBeUndefined()
    expect(failed.attributes.name).toBe('expects-the-wrong-thing')
    expect(failed.failure?.attributes.message).toContain('status: expected DECLINED, got CANCELLED')

    const json = await runCommand(['smoke', 'run', file, '--json'], {env: env()})
    expect(json.exitCode).toBe(3)
    const report = parseJsonOutput(json)
    expect(report).toMatchObject({exitCode: 3, summary: {total: 2, passed: 1, failed: 1, errors: 0, skipped: 0}})
    expect(report.cases[1]).toMatchObject({
      name: 'expects-the-wrong-thing',
      verdict: 'failed',
      status: 'CANCELLED',
      differences: [
        {field: 'status', expected: 'DECLINED', got: 'CANCELLED'},
        {field: 'webhooks', expected: 'to include DECLINED'},
      ],
    })
    expect(report.cases[1].transactionId).toEqual(expect.any(String))
  })

  it('runs a case that refers to another after it, with the value filled in, also under --only', async () => {
    const file = writeScenario(
      tempDir(),
      'refs.yaml',
      `defaults: {amount: 100, expect: {success: true}}
cases:
  - {name: first, product: card, outcome: SETTLEMENT_COMPLETED}
  - {name: other, product: dummy, outcome: FAILED, expect: {status: FAILED, success: false}}
  - name: again
    product: card
    outcome: SETTLEMENT_COMPLETED
    customer: \${cases.first.customerId}
    card: \${cases.first.cardId}
    merchant_reference: again-\${cases.first.transactionId}
`,
    )
    const result = await runCommand(['smoke', 'run', file, '--only', 'again', '--json', '--concurrency', '5'], {env: env()})
    expect(result.exitCode, result.stderr).toBe(0)
    const report = parseJsonOutput(result)
    expect(report.cases.map((c: {name: string}) => c.name)).toEqual(['first', 'again'])
    const [first, again] = report.cases
    expect(again.customerId).toBe(first.customerId)
    expect(again.cardId).toBe(first.cardId)
    const tx = await fetch(`${emulator.url}/v1/transaction/${again.transactionId}`, {headers: {'X-APIKEY': emulator.apiKey}}).then((r) => r.json() as Promise<{merchant_reference?: string}>)
    expect(tx.merchant_reference).toBe(`again-${first.transactionId}`)
  })

  // Three rounds of 20 (each outcome six times) put 20 listeners up at once and reuse what the
  // first rounds freed, as 200 cases did in three times as long.
  it('runs 60 cases 20 at a time with no port clash and no lost webhook', async () => {
    const outcomes = [
      ['dummy', 'SETTLEMENT_COMPLETED', 'SETTLEMENT_COMPLETED'],
      ['dummy', 'DECLINED', 'DECLINED'],
      ['dummy', 'CANCELLED', 'CANCELLED'],
      ['dummy', 'FAILED', 'FAILED'],
      ['dummy', 'ABANDONED', 'ABANDONED'],
      ['card', 'SETTLEMENT_COMPLETED', 'SETTLEMENT_COMPLETED'],
      ['card', 'DECLINED', 'DECLINED'],
      ['sofort', 'SETTLEMENT_COMPLETED', 'SETTLEMENT_COMPLETED'],
      ['sofort', 'CANCELLED', 'CANCELLED'],
      ['dummy', 'PENDING', 'SETTLEMENT_COMPLETED'],
    ]
    const cases = Array.from({length: 60}, (_, index) => {
      const [product, outcome, status] = outcomes[index % outcomes.length]
      return `  - {name: case-${index}, product: ${product}, outcome: ${outcome}, until_settled: true, expect: {status: ${status}, webhooks: {contains: [${status}]}}}`
    })
    const file = writeScenario(tempDir(), 'many.yaml', `defaults: {amount: 100, wait_timeout: 30s}\ncases:\n${cases.join('\n')}\n`)
    const eventsBefore = events.length
    const started = Date.now()
    const result = await runCommand(['smoke', 'run', file, '--concurrency', '20', '--json'], {env: env()})
    const wallMs = Date.now() - started
    console.log(`smoke run: 60 cases at --concurrency 20 took ${wallMs} ms (wall, in-process)`)
    expect(result.exitCode, result.stderr.slice(-3000)).toBe(0)
    const report = parseJsonOutput(result)
    expect(report.summary).toEqual({total: 60, passed: 60, failed: 0, errors: 0, skipped: 0})
    expect(new Set(report.cases.map((c: {transactionId: string}) => c.transactionId)).size).toBe(60)
    expect(result.stderr).not.toMatch(/EADDRINUSE|in use/)

    // Every webhook the emulator delivered to a case's listener is in that case's report. The
    // emulator tells of a delivery once its result is stored, which may be after the listener had
    // it and the case ended: wait for the event of every webhook a report names (a report naming
    // one never delivered runs out of time), then compare both ways.
    const reported = report.cases as {name: string; transactionId: string; webhooks: string[]}[]
    const deliveredSoFar = () => {
      const delivered = new Map<string, Set<string>>()
      for (const event of events.slice(eventsBefore)) {
        if (event.event !== 'webhook') continue
        if (!delivered.has(event.transaction)) delivered.set(event.transaction, new Set())
        delivered.get(event.transaction)!.add(event.status)
      }
      return delivered
    }
    const delivered = await waitFor(() => {
      const soFar = deliveredSoFar()
      return reported.every((c) => c.webhooks.every((status) => soFar.get(c.transactionId)?.has(status))) && soFar
    }, 'a delivery event for every webhook the cases report')
    for (const event of events.slice(eventsBefore)) {
      if (event.event === 'webhook') expect(event.outcome, `webhook ${event.status} for ${event.transaction}: ${event.error ?? event.http_status}`).toBe('delivered')
    }
    for (const smokeCase of reported) {
      const sent = [...(delivered.get(smokeCase.transactionId) ?? [])]
      expect(sent.length, smokeCase.name).toBeGreaterThan(0)
      expect(new Set(smokeCase.webhooks), smokeCase.name).toEqual(new Set(sent))
    }
    expect(wallMs).toBeLessThan(90_000)
  }, 150_000)

  // CI runners and `timeout` send SIGTERM: it must clean up exactly as Ctrl-C does.
})

describe('bad scenario files', () => {
  it.each([
    ['a YAML syntax error', 'bad.yaml', 'cases:\n  - name: a\n    product: [dummy\n    amount: 1\n', [/bad\.yaml:\d+:\d+: not valid YAML/]],
    ['a JSON syntax error', 'bad.json', '{\n  "cases": [\n    {"name": "a", "product": "dummy",}\n  ]\n}\n', [/bad\.json:3:\d+: not valid JSON/]],
    [
      'an unknown product, a missing amount and a bad reference',
      'bad.yaml',
      `cases:
  - name: first
    product: paypal
    amount: 100
    outcome: DECLINED
  - name: no-amount
    product: dummy
    outcome: DECLINED
  - name: bad-ref
    product: dummy
    amount: 100
    outcome: DECLINED
    customer: \${cases.later.customerId}
  - name: later
    product: dummy
    amount: 100
    outcome: DECLINED
`,
      [
        /bad\.yaml:3:14: cases\[0\]\.product: must be one of card, sofort, dummy; got "paypal"/,
        /bad\.yaml:6:5: cases\[1\]: amount is required/,
        /bad\.yaml:13:15: cases\[2\]\.customer: \$\{cases\.later\.customerId\} refers to case "later", which comes later/,
      ],
    ],
  ])('reports %s with its location, exits 2 and sends nothing', async (_what, name, text, patterns) => {
    const server = await startRecordingServer(() => ({status: 500, json: {message: 'nothing should arrive here'}}))
    try {
      const file = writeScenario(tempDir(), name, text)
      const result = await runCommand(['smoke', 'run', file], {env: {PAYTX_BASE_URL: server.url, PAYTX_H2H_URL: `${server.url}/h2h`}})
      expect(result.exitCode).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(/^Error: The scenario file .* has (a problem|\d+ problems); no case was run:/)
      for (const pattern of patterns) expect(result.stderr).toMatch(pattern)
      expect(result.stderr).not.toMatch(/\n\s+at /)

      const json = await runCommand(['smoke', 'run', file, '--json'], {env: {PAYTX_BASE_URL: server.url, PAYTX_H2H_URL: `${server.url}/h2h`}})
      expect(json.exitCode).toBe(2)
      const {error} = parseJsonOutput(json)
      expect(error).toMatchObject({kind: 'input', exitCode: 2})
      expect(error.problems).toHaveLength(patterns.length)
      for (const problem of error.problems) expect(problem.line).toEqual(expect.any(Number))
      expect(server.requests).toHaveLength(0)
    } finally {
      await server.close()
    }
  })

  it('rejects outcomes chosen on the page for a profile that is not the emulator, before sending anything', async () => {
    const server = await startRecordingServer()
    const dir = tempDir()
    try {
      const configDir = join(dir, 'config')
      const add = await runCommand(['profile', 'add', 'sandbox', '--env', 'sandbox', '--base-url', server.url, '--api-key-stdin', '--no-input'], {configDir, input: 'sk_test_0123456789abcdef\n'})
      expect(add.exitCode, add.stderr).toBe(0)
      const file = writeScenario(dir, 'sandbox.yaml', 'cases:\n  - {name: auto, product: dummy, amount: 1, outcome: DECLINED}\n  - {name: by-hand, product: dummy, amount: 1, outcome: manual}\n')
      const result = await runCommand(['smoke', 'run', file, '--profile', 'sandbox'], {configDir})
      expect(result.exitCode).toBe(2)
      expect(result.stderr).toMatch(/sandbox\.yaml:2: cases\[0\]: case "auto" chooses DECLINED on the approval page, which only the emulator offers; profile "sandbox" is sandbox: use outcome: manual/)
      expect(server.requests).toHaveLength(0)
    } finally {
      await server.close()
    }
  })

  it('names an unknown --only case and an unreadable file', async () => {
    const only = await runCommand(['smoke', 'run', EXAMPLE, '--only', 'no-such-case'])
    expect(only.exitCode).toBe(2)
    expect(only.stderr).toContain('--only names "no-such-case", not a case of')
    const missing = await runCommand(['smoke', 'run', '/nonexistent/smoke.yaml'])
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toContain('Cannot read the scenario file /nonexistent/smoke.yaml: it does not exist.')
  })
})
