/**
 * `smoke run` at a terminal, in-process through the command context: each finished case is shown
 * once, as it finishes (one line for a passing case, its details under a failed one), and stdout
 * adds only the summary; in a pipe stdout keeps the tab-separated table.
 */
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js'
import {runCommand} from '../../helpers/run-command.js'
import {screenAfter} from '../../helpers/screen.js'

const SCENARIO = `version: 1
cases:
  - name: dummy-declined
    product: dummy
    amount: 100
    outcome: DECLINED
    expect: {status: DECLINED}
  - name: dummy-cancelled-but-wanted-declined
    product: dummy
    amount: 100
    outcome: CANCELLED
    expect: {status: DECLINED}
`

describe('smoke run at a terminal', () => {
  let emulator: RunningEmulator
  let file: string
  const env = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl, CI: undefined, TERM: 'xterm'})
  beforeAll(async () => {
    emulator = await startEmulator({port: 0, settleAfterMs: 0, pendingForMs: 0})
    file = join(mkdtempSync(join(tmpdir(), 'paytx-smoke-')), 'cases.yaml')
    writeFileSync(file, SCENARIO)
  })
  afterAll(() => emulator.close())

  it.each([60, 80, 120])('at %i columns: one line per passing case, details for the failed one, and only the summary on stdout', async (columns) => {
    const result = await runCommand(['smoke', 'run', file, '--concurrency', '1'], {env: env(), terminalColumns: columns})
    expect(result.exitCode).toBe(3)
    const screen = screenAfter(result.stderr)
    expect(screen.filter((line) => line.startsWith('✔ dummy-declined'))).toHaveLength(1)
    const failedAt = screen.findIndex((line) => line.startsWith('✖ dummy-cancelled-but-wanted-declined'))
    expect(failedAt).toBeGreaterThan(-1)
    expect(screen[failedAt + 1]).toMatch(/^ {4}reason {7}/)
    // The passing case is not repeated on stdout as a row or a block: the summary is what is left.
    expect(result.stdout).not.toContain('dummy-declined')
    expect(result.stdout.trim()).toMatch(/^1 passed, 1 failed of 2 cases in /)
    const caseLines = screen.filter((line) => /^(✔|✖| )/.test(line))
    for (const line of [...caseLines, ...result.stdout.split('\n')]) expect(line.length, line).toBeLessThan(columns)
  })

  it('in a pipe: stdout keeps the tab-separated table of every case', async () => {
    const result = await runCommand(['smoke', 'run', file, '--concurrency', '1'], {env: env()})
    expect(result.exitCode).toBe(3)
    expect(result.stdout.split('\n')[0]).toMatch(/^CASE\t/)
    expect(result.stdout).toMatch(/^dummy-declined\t/m)
  })
})
