import {describe, expect, it} from 'vitest'

import {escapeXmlAttribute, renderJUnit} from '../../src/smoke/junit-report.js'
import {LiveProgress} from '../../src/output/smoke-live-progress.js'
import {renderResultsSummary, renderResultsTable} from '../../src/output/smoke-results-table.js'
import type {SmokeCaseResult, SmokeReport} from '../../src/smoke/runner.js'
import type {SmokeCase} from '../../src/smoke/scenario.js'
import {parseJUnit} from '../helpers/junit.js'
import {PASSED_CASE} from '../helpers/smoke-results.js'

const passed: SmokeCaseResult = PASSED_CASE

const failed: SmokeCaseResult = {
  ...passed,
  name: 'card-declined',
  line: 9,
  product: 'card',
  verdict: 'failed',
  expected: 'DECLINED',
  got: 'SETTLEMENT_COMPLETED, success, 4 webhooks',
  reason: 'status: expected DECLINED, got SETTLEMENT_COMPLETED',
  differences: [{field: 'status', expected: 'DECLINED', got: 'SETTLEMENT_COMPLETED'}],
  transactionId: 'tx_2',
  cardId: 'card_1',
  cardLast4: '3153',
}

const errored: SmokeCaseResult = {
  ...passed,
  name: 'sofort-<broken>',
  verdict: 'error',
  got: undefined,
  transactionId: undefined,
  reason: 'The service answered 500 & said "<oops>" \u0007',
  error: {kind: 'service', exitCode: 1, message: 'The service answered 500 & said "<oops>" \u0007', hint: 'Try again.'},
}

const skipped: SmokeCaseResult = {...passed, name: 'later', verdict: 'skipped', got: undefined, transactionId: undefined, reason: 'not run: --bail stopped the run', durationMs: 0}

const report: SmokeReport = {
  file: 'examples/smoke.yaml',
  profile: 'local',
  environment: 'local',
  concurrency: 4,
  startedAt: '2026-11-20T10:00:00.000Z',
  durationMs: 5432,
  exitCode: 1,
  summary: {total: 4, passed: 1, failed: 1, errors: 1, skipped: 1},
  cases: [passed, failed, errored, skipped],
}

describe('JUnit report', () => {
  it('is well-formed XML with one testcase per case, failures, errors and skips, escaped', () => {
    const xml = renderJUnit(report)
    const doc = parseJUnit(xml)
    expect(doc.root).toBe('testsuites')
    expect(doc.rootAttributes).toMatchObject({tests: '4', failures: '1', errors: '1', skipped: '1', time: '5.432'})
    expect(doc.suites).toHaveLength(1)
    const [suite] = doc.suites
    expect(suite.attributes).toMatchObject({name: 'smoke', tests: '4', timestamp: '2026-11-20T10:00:00.000Z'})
    expect(suite.properties).toEqual({profile: 'local', environment: 'local', concurrency: '4'})
    expect(suite.testcases.map((t) => [t.attributes.name, t.attributes.classname, t.attributes.time])).toEqual([
      ['dummy-paid', 'smoke.dummy', '1.234'],
      ['card-declined', 'smoke.card', '1.234'],
      ['sofort-<broken>', 'smoke.dummy', '1.234'],
      ['later', 'smoke.dummy', '0.000'],
    ])
    const [ok, fail, error, skip] = suite.testcases
    expect(ok.failure ?? ok.error ?? ok.skipped).toBeUndefined()
    expect(ok.systemOut).toContain('transaction: 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c')
    expect(fail.failure).toEqual({attributes: {message: 'status: expected DECLINED, got SETTLEMENT_COMPLETED', type: 'ExpectationNotMet'}, text: 'status: expected DECLINED, got SETTLEMENT_COMPLETED'})
    expect(fail.systemOut).toContain('card: card_1 (•••• 3153)')
    expect(error.error?.attributes.message).toBe('The service answered 500 & said "<oops>" ')
    expect(error.error?.text).toBe('The service answered 500 & said "<oops>" \nHint: Try again.')
    expect(skip.skipped?.attributes.message).toBe('not run: --bail stopped the run')
  })

  it('escapes attribute values so quotes, newlines and control characters cannot break the document', () => {
    expect(escapeXmlAttribute('a"b\'c<d>&e\nf\u0000')).toBe('a&quot;b&apos;c&lt;d&gt;&amp;e&#10;f')
  })
})

describe('results table', () => {
  const wide = {color: false, format: 'aligned', width: 200} as const

  it('shows case, transaction, expected, got, duration and the result with its reason, then totals', () => {
    const lines = renderResultsTable(report, wide).split('\n')
    expect(lines[0]).toMatch(/^CASE\s+TRANSACTION\s+EXPECTED\s+GOT\s+DURATION\s+RESULT$/)
    expect(lines[1]).toMatch(/^dummy-paid\s+9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c\s+SETTLEMENT_COMPLETED, success\s+SETTLEMENT_COMPLETED, success, 4 webhooks\s+1\.2 s\s+pass$/)
    expect(lines[2]).toMatch(/^card-declined\s+tx_2\s+DECLINED\s+.*FAIL: status: expected DECLINED, got SETTLEMENT_COMPLETED$/)
    expect(lines[3]).toMatch(/ERROR: The service answered 500/)
    expect(lines[4]).toMatch(/^later\s+-\s+.*\s+-\s+skip: not run: --bail stopped the run$/)
    expect(renderResultsSummary(report)).toBe('1 passed, 1 failed, 1 with errors, 1 skipped of 4 cases in 5.4 s (profile local, concurrency 4)')
    expect(renderResultsSummary({...report, shard: {index: 2, total: 4}})).toMatch(/\(profile local, concurrency 4, shard 2\/4\)$/)
    // Columns line up: every row's transaction starts where the header's does.
    const column = lines[0].indexOf('TRANSACTION')
    expect(lines.slice(1, 5).every((line) => line[column - 1] === ' ' && line[column] !== ' ')).toBe(true)
    expect(renderResultsTable(report, wide)).not.toContain('\u001B[')
    expect(renderResultsTable(report, {...wide, color: true})).toContain('\u001B[31mFAIL')
  })

  it('fits a terminal by wrapping EXPECTED, GOT and RESULT, every row lined up', () => {
    const lines = renderResultsTable(report, {...wide, width: 150}).split('\n')
    for (const line of lines) expect(line.length, line).toBeLessThan(150)
    expect(lines[0]).toMatch(/^CASE\s+TRANSACTION\s+EXPECTED\s+GOT\s+DURATION\s+RESULT$/)
    const resultAt = lines[0].indexOf('RESULT')
    const failRows = lines.slice(lines.findIndex((line) => line.startsWith('card-declined')))
    // The reason continues under RESULT on the next lines, not past the terminal's edge.
    const reason = failRows.slice(0, 3).map((line) => line.slice(resultAt).trim())
    expect(reason.join(' ')).toBe('FAIL: status: expected DECLINED, got SETTLEMENT_COMPLETED')
    expect(failRows[1].slice(0, resultAt).trim()).toBe('success, 4 webhooks')
  })

  it('shows one block per case on a terminal too narrow for the columns', () => {
    const text = renderResultsTable(report, {...wide, width: 60})
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThan(60)
    const blocks = text.split('\n\n')
    expect(blocks).toHaveLength(4)
    expect(blocks[1].split('\n')).toEqual([
      'card-declined',
      '  transaction  tx_2',
      '  expected     DECLINED',
      '  got          SETTLEMENT_COMPLETED, success, 4 webhooks',
      '  duration     1.2 s',
      '  result       FAIL: status: expected DECLINED, got',
      '               SETTLEMENT_COMPLETED',
    ])
  })

  it('is tab-separated under a header line in a pipe', () => {
    const lines = renderResultsTable(report, {color: true, format: 'tsv'}).split('\n')
    expect(lines[0]).toBe('CASE\tTRANSACTION\tEXPECTED\tGOT\tDURATION\tRESULT')
    expect(lines[1]).toBe('dummy-paid\t9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c\tSETTLEMENT_COMPLETED, success\tSETTLEMENT_COMPLETED, success, 4 webhooks\t1.2 s\tpass')
    expect(lines).toHaveLength(5)
    expect(lines.join('\n')).not.toContain('\u001B[')
  })
})

describe('live progress', () => {
  const smokeCase = (name: string, outcome = 'SETTLEMENT_COMPLETED') => ({name, outcome}) as SmokeCase

  it('on a terminal, redraws a line per running case in place and prints finished cases above them', () => {
    let out = ''
    let now = 0
    const progress = new LiveProgress({write: (text: string) => (out += text), columns: 80, rows: 24}, {interactive: true, color: false, now: () => now, tickMs: 60_000})
    progress.caseStarted(smokeCase('one'))
    progress.caseStarted(smokeCase('two'))
    now = 1500
    progress.caseEvent(smokeCase('one'), {kind: 'step-started', step: 'transaction', elapsedMs: 1000})
    expect(out).toContain('one  starting the transaction  1.5 s')
    progress.caseEvent(smokeCase('one'), {kind: 'transaction-started', transactionId: 'tx_1', status: 'INITIATED', elapsedMs: 1400})
    // One compact line: label and value, no column padding.
    expect(out).toContain('one  transaction started  tx_1  INITIATED  1.5 s')
    out = ''
    progress.caseFinished({...passed, name: 'one'})
    // Moves up over the two live lines, clears them, prints the result, redraws what still runs.
    expect(out.startsWith('\u001B[2F\u001B[J')).toBe(true)
    expect(out).toContain('✔ one  SETTLEMENT_COMPLETED, success, 4 webhooks (1.2 s)\n')
    expect(out).toMatch(/two {2}starting {2}1\.5 s\n$/)
    progress.close()
    expect(out.endsWith('\u001B[1F\u001B[J')).toBe(true)
  })

  it('shows what a case does after its flow: reading the delivery log, then the merchant’s endpoint', () => {
    let out = ''
    const progress = new LiveProgress({write: (text: string) => (out += text), columns: 80, rows: 24}, {interactive: true, color: false, now: () => 2000, tickMs: 60_000})
    progress.caseStarted(smokeCase('shop'))
    progress.caseActivity(smokeCase('shop'), "reading the emulator's webhook deliveries")
    expect(out).toContain("shop  reading the emulator's webhook deliveries")
    progress.caseActivity(smokeCase('shop'), "reading the merchant's endpoint (check)")
    expect(out).toContain("shop  reading the merchant's endpoint (check)")
    progress.close()
  })

  it('shows a status from the service as escapes, and cuts it to the width only after: never inside an OSC sequence', () => {
    const osc = `SETTLED\u001b]0;${'t'.repeat(60)}\u0007\nforged line`
    let plain = ''
    const lines = new LiveProgress({write: (text: string) => (plain += text), columns: 40}, {interactive: false, color: false})
    const manual = smokeCase('two', 'manual')
    lines.caseEvent(manual, {kind: 'approval-shown', url: 'http://127.0.0.1:4010/a\u202e\nforged', elapsedMs: 30})
    lines.caseFinished({...passed, name: 'one\u001b[2J', got: osc})
    expect(plain).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/)
    const printed = plain.split('\n')
    expect(printed).toHaveLength(3)
    expect(printed[0]).toMatch(/^ {2}two: approval page {2}http:\/\/127\.0\.0\.1:4010\/a\\u202e\\nforged/)
    expect(printed[1]).toMatch(/^✔ one\\x1b\[2J {2}SETTLED\\x1b\]0;t+…$/)
    expect(printed[1].length).toBeLessThan(40)
    let live = ''
    const redrawn = new LiveProgress({write: (text: string) => (live += text), columns: 40, rows: 24}, {interactive: true, color: false, now: () => 0, tickMs: 60_000})
    redrawn.caseStarted(smokeCase('one'))
    redrawn.caseEvent(smokeCase('one'), {kind: 'transaction-started', transactionId: 'tx\nforged', status: osc, elapsedMs: 10})
    redrawn.close()
    // Only paytx's own cursor movements remain, and the live line stays one line.
    expect(live.replaceAll(/\u001B\[\d*[FJ]/g, '')).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
    expect(live).toMatch(/one {2}transaction started {2}tx\\n[a-z]*…\n/)
  })

  it('elsewhere, prints one line per finished case and the notes, never cursor movements', () => {
    let out = ''
    const progress = new LiveProgress({write: (text: string) => (out += text)}, {interactive: false, color: false})
    const manual = smokeCase('one', 'manual')
    progress.caseStarted(manual)
    progress.caseEvent(manual, {kind: 'step-started', step: 'approval', elapsedMs: 10})
    progress.caseEvent(manual, {kind: 'transaction-started', transactionId: 'tx', status: 'INITIATED', elapsedMs: 20})
    progress.caseEvent(manual, {kind: 'approval-shown', url: 'http://127.0.0.1:4010/v1/transaction/tx/authorize', elapsedMs: 30})
    progress.caseEvent(manual, {kind: 'waiting', for: 'redirect', remainingMs: 600_000, elapsedMs: 40})
    progress.caseEvent(smokeCase('two'), {kind: 'approval-completed', outcome: 'DECLINED', elapsedMs: 40})
    progress.caseEvent(smokeCase('two'), {kind: 'status-read', status: 'UNKNOWN', elapsedMs: 50})
    progress.caseFinished(failed)
    progress.close()
    // The manual case's page and wait, and warnings, stay; a step of an automatic case does not.
    expect(out).toBe(
      [
        '  one: approval page  http://127.0.0.1:4010/v1/transaction/tx/authorize  (open it in a browser)',
        '  one: waiting  for the redirect: complete the payment in the browser; 10m left (Ctrl-C to stop)',
        '  two: status  UNKNOWN  the service cannot determine the state at present (critical, not final); still waiting',
        '✖ card-declined  status: expected DECLINED, got SETTLEMENT_COMPLETED (1.2 s)',
        // A failed case has its details under it; a passing case is its one line.
        '    reason       status: expected DECLINED, got SETTLEMENT_COMPLETED',
        '    expected     DECLINED',
        '    got          SETTLEMENT_COMPLETED, success, 4 webhooks',
        '    transaction  tx_2',
        '',
      ].join('\n'),
    )
  })
})
