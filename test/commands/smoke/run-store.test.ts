/**
 * `smoke run --store`: the emulator a run on the local profile starts keeps its state in memory
 * (nothing in paytx's data folder) unless --store names a file; --store where the run starts no
 * emulator is refused before anything is sent (issue 40: a smoke run wrote a shared store under
 * the user's data folder).
 */
import {existsSync, mkdtempSync, readdirSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {startEmulator} from '../../../src/emulator/index.js'
import {tempConfigDir} from '../../helpers/cli.js'
import {freePort} from '../../helpers/ports.js'
import {runCommand} from '../../helpers/run-command.js'

const SCENARIO = 'cases:\n  - name: paid\n    product: dummy\n    amount: 100\n    outcome: SETTLEMENT_COMPLETED\n'

async function runOnEmbedded(extra: string[]) {
  const configDir = tempConfigDir()
  const port = await freePort()
  const result = await runCommand(['smoke', 'run', '-', '--json', ...extra], {configDir, input: SCENARIO, env: {PAYTX_BASE_URL: `http://127.0.0.1:${port}/v1`}})
  return {result, dataDir: join(configDir, 'data')}
}

describe('smoke run --store', () => {
  it('keeps the started emulator in memory by default: the data folder gets no store', async () => {
    const {result, dataDir} = await runOnEmbedded([])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stderr).toContain('(its store is in memory); it stops when the run ends.')
    const left = existsSync(dataDir) ? readdirSync(dataDir) : []
    expect(left.filter((name) => name.startsWith('emulator.db'))).toEqual([])
  })

  it('keeps the state in the file --store names, where a later emulator finds the transaction', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'paytx-smoke-store-')), 'smoke.db')
    const {result} = await runOnEmbedded(['--store', store])
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stderr).toContain(`(its state is kept in ${store})`)
    const id = (JSON.parse(result.stdout) as {cases: {transactionId: string}[]}).cases[0].transactionId
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    const emulator = await startEmulator({port: 0, store})
    try {
      const status = await runCommand(['status', id, '--json'], {env: {PAYTX_BASE_URL: emulator.url}})
      expect(status.exitCode, status.stderr).toBe(0)
      expect(JSON.parse(status.stdout)).toMatchObject({id, status: expect.stringMatching(/^SETTLEMENT_(REQUESTED|COMPLETED)$/)})
    } finally {
      await emulator.close()
    }
  })

  it('is refused, nothing sent, when an emulator already runs at the address', async () => {
    const requests: string[] = []
    const emulator = await startEmulator({port: 0, onEvent: (event) => event.event === 'request' && requests.push(event.path)})
    try {
      const store = join(mkdtempSync(join(tmpdir(), 'paytx-smoke-store-')), 'smoke.db')
      const result = await runCommand(['smoke', 'run', '-', '--store', store], {input: SCENARIO, env: {PAYTX_BASE_URL: emulator.url}})
      expect(result.exitCode).toBe(2)
      expect(result.stderr).toContain(`--store ${store} cannot be used: an emulator already runs at ${emulator.url}`)
      expect(result.stderr).toContain('and keeps its own store.')
      expect(existsSync(store)).toBe(false)
      expect(requests).toEqual([])
    } finally {
      await emulator.close()
    }
  })

  it('is refused on a profile that is not local, and on a local one whose address is not on this machine', async () => {
    const configDir = tempConfigDir()
    const added = await runCommand(['profile', 'add', 'shop-sandbox', '--env', 'sandbox', '--insecure-storage', '--api-key-stdin'], {configDir, input: 'sk_test_0123456789abcdef\n'})
    expect(added.exitCode, added.stderr).toBe(0)
    const sandbox = await runCommand(['smoke', 'run', '-', '--store', 'x.db', '--profile', 'shop-sandbox'], {configDir, input: SCENARIO.replace('SETTLEMENT_COMPLETED', 'manual')})
    expect(sandbox.stderr).toContain('--store is for the emulator that a run on a local profile starts; profile shop-sandbox is sandbox')
    expect(sandbox.exitCode).toBe(2)
    const elsewhere = await runCommand(['smoke', 'run', '-', '--store', 'x.db'], {input: SCENARIO, env: {PAYTX_BASE_URL: 'http://paytx-emulator.internal:4010/v1'}})
    expect(elsewhere.stderr).toContain('paytx starts an emulator only at an address of this machine, and profile local points at http://paytx-emulator.internal:4010/v1')
    expect(elsewhere.exitCode).toBe(2)
  })
})
