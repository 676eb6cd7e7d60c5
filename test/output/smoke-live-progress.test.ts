/**
 * A smoke run's finished cases as a person sees them (src/output/smoke-live-progress.ts): one
 * line per passing case, the details under a failed one, fitted to the terminal's width at word
 * boundaries (an id never cut); in a log each detail is one line.
 */
import {describe, expect, it} from 'vitest'

import {LiveProgress} from '../../src/output/smoke-live-progress.js'
import type {SmokeCaseResult} from '../../src/smoke/runner.js'
import {PASSED_CASE} from '../helpers/smoke-results.js'

const passed: SmokeCaseResult = {...PASSED_CASE, expected: 'SETTLEMENT_COMPLETED, success, webhooks ⊇ [SETTLEMENT_REQUESTED, SETTLEMENT_COMPLETED], ≤ 45.0 s'}

const failed: SmokeCaseResult = {
  ...passed,
  name: 'card-declined',
  verdict: 'failed',
  expected: 'DECLINED, final, no success, reason ~ declined, webhooks ⊇ [DECLINED], ≤ 45.0 s',
  reason: 'status: expected DECLINED, got SETTLEMENT_COMPLETED; webhooks: expected DECLINED among them, got INITIATED, SETTLEMENT_REQUESTED, SETTLEMENT_COMPLETED',
  transactionId: 'f6fc9439-7331-49a9-8fb4-999ca07c8de9',
}

function finished(results: SmokeCaseResult[], stream: {columns?: number; rows?: number}, interactive: boolean): string {
  let out = ''
  const progress = new LiveProgress({...stream, write: (text: string) => (out += text)}, {interactive, color: false, now: () => 0, tickMs: 60_000})
  for (const result of results) progress.caseFinished(result)
  progress.close()
  return out
}

describe('finished smoke cases', () => {
  it.each([40, 60, 80, 120, 200])('at %i columns: a passing case is one line, a failed one its line and its details, none wider than the terminal and no word cut', (columns) => {
    const lines = finished([passed, failed, passed], {columns, rows: 24}, true)
      .replaceAll(/\u001B\[\d*[FJ]/g, '')
      .split('\n')
      .filter(Boolean)
    for (const line of lines) expect(line.length, line).toBeLessThan(columns)
    const starts = lines.map((line) => line.slice(0, 2))
    expect(starts.filter((start) => start === '✔ ')).toHaveLength(2)
    expect(starts.filter((start) => start === '✖ ')).toHaveLength(1)
    // Only the failed case has lines under it.
    const failedAt = starts.indexOf('✖ ')
    expect(failedAt).toBe(1)
    const details = lines.slice(2, -1)
    expect(details.every((line) => line.startsWith('  '))).toBe(true)
    const text = details.map((line) => line.trim()).join(' ')
    // Every word of the reason is there whole: the details wrap, they are not cut.
    for (const word of failed.reason.split(' ')) expect(text).toContain(word)
    expect(details.some((line) => line.includes(failed.transactionId!))).toBe(true)
    expect(text).toContain('expected')
    expect(text).not.toContain('…')
  })

  it('in a log (not a terminal): the same lines, each detail whole on one line, no cursor movement', () => {
    const out = finished([passed, failed], {}, false)
    expect(out).not.toContain('\u001B')
    const lines = out.split('\n').filter(Boolean)
    expect(lines[0]).toBe('✔ dummy-paid  SETTLEMENT_COMPLETED, success, 4 webhooks (1.2 s)')
    expect(lines.slice(2)).toEqual([
      `    reason       ${failed.reason}`,
      `    expected     ${failed.expected}`,
      `    got          ${failed.got}`,
      `    transaction  ${failed.transactionId}`,
    ])
  })
})

describe('a long smoke run in a log', () => {
  it('says which cases still run at most every 10 s of the given clock, and nothing once none runs', () => {
    let out = ''
    let now = 0
    const progress = new LiveProgress({write: (text: string) => (out += text)}, {interactive: false, color: false, now: () => now, tickMs: 3_600_000})
    const smokeCase = (name: string) => ({name, outcome: 'SETTLEMENT_COMPLETED'}) as never
    progress.caseStarted(smokeCase('slow-one'))
    now = 4000
    progress.caseStarted(smokeCase('slow-two'))
    progress.tick()
    expect(out).toBe('')
    now = 10_000
    progress.tick()
    now = 15_000
    progress.tick()
    progress.caseFinished({...passed, name: 'slow-two'})
    now = 20_000
    progress.tick()
    progress.caseFinished({...passed, name: 'slow-one'})
    now = 40_000
    progress.tick()
    progress.close()
    expect(out.split('\n').filter(Boolean)).toEqual([
      'Still running: slow-one (10.0 s), slow-two (6.0 s); 0 finished.',
      '✔ slow-two  SETTLEMENT_COMPLETED, success, 4 webhooks (1.2 s)',
      'Still running: slow-one (20.0 s); 1 finished.',
      '✔ dummy-paid  SETTLEMENT_COMPLETED, success, 4 webhooks (1.2 s)'.replace('dummy-paid', 'slow-one'),
    ])
  })
})
