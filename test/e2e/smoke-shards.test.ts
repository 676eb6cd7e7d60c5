/**
 * Ctrl-C during `paytx smoke run` on a pseudo-terminal; shards and merge are in
 * test/commands/smoke/shards.test.ts.
 */
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {RunningEmulator} from '../../src/emulator/index.js'
import {startEmulator} from '../../src/emulator/index.js'
import {ptyAvailable, runInPty} from '../helpers/pty.js'
import {screenAfter} from '../helpers/screen.js'

const SCENARIO = `
defaults: {product: dummy, amount: 100, outcome: SETTLEMENT_REQUESTED, webhook: none, expect: {success: true}}
cases:
  - {name: first}
  - {name: returning, customer: "\${cases.first.customerId}"}
  - {name: alone-1}
  - {name: declined, outcome: DECLINED, expect: {success: false, status: DECLINED}}
  - {name: after-declined, merchant_reference: "after-\${cases.declined.transactionId}"}
  - {name: alone-2}
  - {name: alone-3}
`

describe('smoke run across CI machines', () => {
  let emulator: RunningEmulator
  let dir: string
  let file: string
  const env = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl})

  beforeAll(async () => {
    emulator = await startEmulator({port: 0, settleAfterMs: 0, pendingForMs: 0})
    dir = mkdtempSync(join(tmpdir(), 'paytx-shards-'))
    file = join(dir, 'smoke.yaml')
    writeFileSync(file, SCENARIO)
  })
  afterAll(() => emulator.close())

  it.skipIf(!ptyAvailable)('Ctrl-C on a terminal leaves no spinner frame behind, and the interrupted case keeps its transaction id', async () => {
    const manual = join(dir, 'manual.yaml')
    writeFileSync(manual, 'cases:\n  - {name: waits-for-a-person, product: dummy, amount: 100, outcome: manual, webhook: none, expect: {success: true}}\n  - {name: quick, product: dummy, amount: 100, outcome: SETTLEMENT_REQUESTED, webhook: none, expect: {success: true}}\n')
    const session = runInPty(['smoke', 'run', manual, '--no-open'], {env: env()})
    await session.waitFor(/✔ quick/, 30_000)
    await session.waitFor(/authorize/, 30_000)
    // Keys typed while the live view is drawn are not echoed into it.
    session.type('typed-by-habit\r')
    session.type('\u0003')
    expect(await session.exited).toBe(130)
    const screen = screenAfter(session.output())
    expect(screen.join('\n')).not.toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/)
    expect(screen.some((line) => line.startsWith('Interrupted: stopping the running cases'))).toBe(true)
    expect(session.output()).not.toContain('typed-by-habit')
    // At a terminal each case is shown once as it ends: the passing one as one line, the
    // interrupted one with its details (reason, transaction) under it; stdout adds the summary.
    expect(screen.filter((line) => line.startsWith('✔ quick'))).toHaveLength(1)
    expect(screen.some((line) => line.startsWith('quick'))).toBe(false)
    const block = screen.findIndex((line) => line.startsWith('✖ waits-for-a-person'))
    expect(block, screen.join('\n')).toBeGreaterThan(-1)
    const details = screen.slice(block + 1, screen.findIndex((line, index) => index > block && !line.startsWith('  ')))
    expect(details.join('\n')).toMatch(/^ {4}reason {7}Interrupted/)
    expect(details).toContainEqual(expect.stringMatching(/^ {4}transaction {2}[0-9a-f-]{36}$/))
    for (const line of details) expect(line.length, line).toBeLessThan(80)
  })
})
