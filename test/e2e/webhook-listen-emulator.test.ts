import {mkdtempSync, readFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {approvalFormFields} from '../../src/test-mode/outcomes.js'
import {type RunningCli, startCli} from '../helpers/cli.js'
import {emulatorApi} from '../helpers/emulator-api.js'

const running: RunningCli[] = []
const emulators: RunningEmulator[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((cli) => cli.stop('SIGKILL')))
  await Promise.all(emulators.splice(0).map((emulator) => emulator.close()))
})

async function listen(args: string[], env: Record<string, string> = {}): Promise<{cli: RunningCli; url: string}> {
  const cli = startCli(['webhook', 'listen', '--port', '0', ...args], {env})
  running.push(cli)
  await cli.waitFor('stderr', /Ready\. Press Ctrl-C to stop\./)
  return {cli, url: /Listening for webhooks at (\S+)/.exec(cli.stderr())![1]}
}

/** Starts a dummy transaction and completes its approval page with an outcome, as a script posting the form would. */
async function payDummy(emulator: RunningEmulator, outcome: string, webhookUrl?: string): Promise<string> {
  const api = emulatorApi(emulator)
  const {transaction} = await api.startPayment('dummy', {extra: webhookUrl ? {webhook_transaction_update: webhookUrl} : {}})
  const approval = await api.approve(transaction.details.approval_url, approvalFormFields('dummy', outcome)!)
  expect(approval.status).toBe(303)
  return transaction.id
}

describe('webhook listen, fed by the emulator', () => {
  it('receives every status change of a transaction (full payload) from the payment profile’s webhook address, in order, and saves them', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'paytx-webhooks-')), 'emulator.ndjson')
    const {cli, url} = await listen(['--save', file])
    const emulator = await startEmulator({port: 0, webhookUrl: url, settleAfterMs: 0, assumptions: {webhookPayload: 'full'}})
    emulators.push(emulator)

    const id = await payDummy(emulator, 'SETTLEMENT_COMPLETED')
    await cli.waitFor('stdout', /SETTLEMENT_COMPLETED$/m)
    const result = await cli.stop()
    expect(result.code).toBe(130)

    const lines = result.stdout.trim().split('\n')
    expect(lines.map((line) => line.split('  ').slice(1))).toEqual([
      ['transaction', id, 'INITIATED'],
      ['transaction', id, 'IN_PROGRESS'],
      ['transaction', id, 'SETTLEMENT_REQUESTED'],
      ['transaction', id, 'SETTLEMENT_COMPLETED'],
    ])
    const saved = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
    expect(saved.map((record) => record.body.status)).toEqual(['INITIATED', 'IN_PROGRESS', 'SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED'])
    expect(saved.every((record) => record.body.type === 'transaction' && record.body.id === id && record.answered === 200)).toBe(true)
    expect(result.stderr).toContain('Stopped. 4 webhooks received (0 duplicates), 0 malformed, 0 rejected.')
  })

  it('without --fetch, shows minimal bodies (the default) as having no status and says once how to read it', async () => {
    const emulator = await startEmulator({port: 0})
    emulators.push(emulator)
    const {cli, url} = await listen([])
    const id = await payDummy(emulator, 'DECLINED', url)
    await cli.waitFor('stdout', (text) => text.trim().split('\n').length === 3)
    const result = await cli.stop()
    const lines = result.stdout.trim().split('\n')
    expect(lines.map((line) => line.split('  ').slice(1))).toEqual(Array.from({length: 3}, () => ['transaction', id, '(no status)']))
    expect(result.stderr.match(/add --fetch to read it from the service/g)).toHaveLength(1)
  })

  it('--fetch reads each transaction back from the emulator; a declined payment ends DECLINED', async () => {
    const emulator = await startEmulator({port: 0, settleAfterMs: 0})
    emulators.push(emulator)
    const {cli, url} = await listen(['--fetch'], {PAYTX_BASE_URL: emulator.url, PAYTX_API_KEY: emulator.apiKey})

    const id = await payDummy(emulator, 'DECLINED', url)
    // The service may already be DECLINED when the first webhooks are read back: wait for all three.
    await cli.waitFor('stdout', (text) => text.trim().split('\n').length === 3)
    const result = await cli.stop()
    expect(result.code).toBe(130)
    const lines = result.stdout.trim().split('\n')
    expect(lines).toHaveLength(3)
    expect(lines.every((line) => line.includes(`  transaction  ${id}  `) && line.includes('(read from the service'))).toBe(true)
    // The minimal bodies carry no status: every line shows the status read when it came, and
    // none is a duplicate (each was a move of its own, whatever status the read found).
    expect(lines[2]).toMatch(/  DECLINED \(read from the service when it came\)$/)
    expect(result.stdout).not.toContain('duplicate')
    expect(result.stdout + result.stderr).not.toContain(emulator.apiKey)
  })
})
