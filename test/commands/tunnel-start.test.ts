/**
 * A starting tunnel says what paytx waits for, how long at most and how to stop it, before the
 * program has said anything (a real one takes seconds): `webhook listen` and `flow`, in-process,
 * with a tunnel program that exits at once.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {runCommand} from '../helpers/run-command.js'

const STARTING = 'Starting false: waiting up to 45s for its public https address (Ctrl-C to stop).'

describe('a starting tunnel', () => {
  let emulator: RunningEmulator
  beforeAll(async () => {
    emulator = await startEmulator({port: 0})
  })
  afterAll(() => emulator.close())

  it('webhook listen says it, then the program’s failure', async () => {
    const result = await runCommand(['webhook', 'listen', '--port', '0', '--tunnel-command', 'false {port}', '--tunnel-timeout', '45s'])
    expect(result.exitCode).toBe(1)
    const lines = result.stderr.split('\n')
    const said = lines.indexOf(STARTING)
    expect(said, result.stderr).toBeGreaterThan(-1)
    expect(lines.findIndex((line) => line.startsWith('Error: false exited'))).toBeGreaterThan(said)
  })

  it('flow says it as a step line, in the steps’ column', async () => {
    const result = await runCommand(['flow', '--product', 'dummy', '--amount', '100', '--tunnel-command', 'false {port}', '--tunnel-timeout', '45s'], {
      env: {PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl},
    })
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(new RegExp(`^ℹ tunnel +${STARTING.replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'))
  })
})
