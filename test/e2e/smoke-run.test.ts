/**
 * `paytx smoke run` stopped by SIGINT and SIGTERM: exit 130, the JSON report and the JUnit file.
 * The rest is in test/commands/smoke/run-runs.test.ts.
 */
import {existsSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {EmulatorEvent, RunningEmulator} from '../../src/emulator/index.js'
import {startEmulator} from '../../src/emulator/index.js'
import {parseJsonOutput, startCli} from '../helpers/cli.js'
import {parseJUnit} from '../helpers/junit.js'

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

  // CI runners and `timeout` send SIGTERM: it must clean up exactly as Ctrl-C does.
  it.each(['SIGINT', 'SIGTERM'] as const)('stops on %s: exit 130, the JSON report on stdout and the JUnit file written', async (signal) => {
    const dir = tempDir()
    const junit = join(dir, 'results.xml')
    const file = writeScenario(
      dir,
      'waits.yaml',
      `cases:
  - name: by-hand
    product: dummy
    amount: 1499
    outcome: manual
    wait_timeout: 60s
    expect: {status: SETTLEMENT_REQUESTED}
`,
    )
    const cli = startCli(['smoke', 'run', file, '--no-open', '--json', '--junit', junit], {env: env(), timeoutMs: 45_000})
    await cli.waitForStderr(/by-hand: waiting  for the redirect/, 30_000)
    const result = await cli.stop(signal)
    expect(result.signal).toBeNull()
    expect(result.code, result.stderr).toBe(130)
    expect(result.stderr).toContain('Interrupted: stopping the running cases')
    const report = parseJsonOutput(result)
    expect(report.exitCode).toBe(130)
    expect(report.cases[0]).toMatchObject({name: 'by-hand'})
    expect(existsSync(junit)).toBe(true)
    expect(parseJUnit(readFileSync(junit, 'utf8')).suites[0].testcases.map((testcase) => testcase.attributes.name)).toEqual(['by-hand'])
  }, 60_000)
})
