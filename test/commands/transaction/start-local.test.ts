/**
 * `paytx transaction start` on the local profile with no emulator running: the emulator runs
 * inside the command and stops with it, so the approval URL is dead by the time anyone opens it.
 * The command says so and how to keep one (`paytx emulator start`), marks the URL as not served,
 * and `--open` opens nothing. In-process through the command context, the data folder a
 * temporary one.
 */
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {CUSTOMER_FIELDS} from '../../helpers/fixtures.js'
import {freePort} from '../../helpers/ports.js'
import {recordingBrowser, runCommand} from '../../helpers/run-command.js'

async function localProfileWithNothingRunning() {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const env = {PAYTX_BASE_URL: base, PAYTX_H2H_URL: `${base}/h2h`, PAYTX_DATA_DIR: mkdtempSync(join(tmpdir(), 'paytx-start-local-'))}
  const customer = await runCommand(['customer', 'create', '--data', '-', '--json'], {env, input: JSON.stringify(CUSTOMER_FIELDS)})
  expect(customer.exitCode, customer.stderr).toBe(0)
  return {base, env, customerId: (customer.result as {id: string}).id}
}

describe('transaction start on the local profile, with the emulator inside the command', () => {
  it('marks the approval URL as not served, says the emulator lived only for the command and how to keep one, and --open opens nothing', async () => {
    const {base, env, customerId} = await localProfileWithNothingRunning()
    const browser = recordingBrowser()
    const run = await runCommand(['transaction', 'start', '--product', 'dummy', '--amount', '100', '--customer', customerId, '--redirect-url', 'https://shop.example/r', '--open'], {
      env,
      context: {browser},
    })
    expect(run.exitCode, run.stderr).toBe(0)
    const approval = new RegExp(`^Approval URL\\s+(${base}/v1/transaction/\\S+/authorize)  \\(not served now: the emulator stopped with this command\\)$`, 'm').exec(run.stdout)
    expect(approval, run.stdout).not.toBeNull()
    expect(browser.opened).toEqual([])
    expect(run.stderr).toContain('--open: the approval URL was not opened')
    expect(run.stderr).toContain('The emulator ran only for this command and stopped with it, so nothing answers at the approval URL now.')
    expect(run.stderr).toContain('`paytx emulator start`')
    expect(run.stderr).not.toContain('authorize in the browser')
    // It is dead indeed.
    await expect(fetch(approval![1])).rejects.toThrow()
  })

  it('status of a transaction awaiting approval says its approval URL dies with the command', async () => {
    const {env, customerId} = await localProfileWithNothingRunning()
    const started = await runCommand(['transaction', 'start', '--product', 'dummy', '--amount', '100', '--customer', customerId, '--redirect-url', 'https://shop.example/r', '--json'], {env})
    const id = (started.result as {id: string}).id
    const status = await runCommand(['status', id], {env})
    expect(status.exitCode, status.stderr).toBe(0)
    expect(status.stdout).toMatch(/^Approval URL\s+http:\S+\/authorize$/m)
    expect(status.stderr).toContain('The emulator ran only for this command and stopped with it, so nothing answers at the approval URL now.')
    expect(status.stderr).toContain('`paytx emulator start`')
  })

  it('against an emulator that keeps running, the URL is shown as it is and --open opens it', async () => {
    const {startEmulator} = await import('../../../src/emulator/index.js')
    const emulator = await startEmulator({port: 0})
    try {
      const env = {PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl}
      const customer = await runCommand(['customer', 'create', '--data', '-', '--json'], {env, input: JSON.stringify(CUSTOMER_FIELDS)})
      const browser = recordingBrowser()
      const run = await runCommand(
        ['transaction', 'start', '--product', 'dummy', '--amount', '100', '--customer', (customer.result as {id: string}).id, '--redirect-url', 'https://shop.example/r', '--open'],
        {env, context: {browser}},
      )
      expect(run.exitCode, run.stderr).toBe(0)
      expect(run.stdout).toMatch(/^Approval URL\s+http:\S+\/authorize$/m)
      expect(browser.opened).toHaveLength(1)
      expect(run.stderr).not.toContain('ran only for this command')
    } finally {
      await emulator.close()
    }
  })
})
