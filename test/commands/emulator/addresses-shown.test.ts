/** Emulator commands name webhook and sandbox addresses without the credentials they may hold. */
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import type {EmulatorOptions} from '../../../src/emulator/options.js'
import type {RunningEmulator} from '../../../src/emulator/index.js'
import {renderListening} from '../../../src/output/emulator-start.js'
import {tempConfigDir} from '../../helpers/cli.js'
import {freePort} from '../../helpers/ports.js'
import {runCommand} from '../../helpers/run-command.js'

const HOOK = 'http://127.0.0.1:4020/webhooks?key=h00k-t0ken'

describe('addresses shown by emulator commands', () => {
  it('emulator verify names the sandbox it sends to with its password and ?key= value redacted', async () => {
    const configDir = tempConfigDir()
    // Nothing listens there: verify says where it sends, then fails to connect.
    const base = `http://svc:v3rify-pa55@127.0.0.1:${await freePort()}/v1?key=v3rify-k3y`
    const added = await runCommand(['profile', 'add', 'sb', '--env', 'sandbox', '--base-url', base, '--organisation', '0a0f2c55-6c8e-4c51-9b0e-3e7a1d000001', '--api-key-stdin'], {configDir, input: 'sk_test_verify_0123456789abcdef\n'})
    expect(added.exitCode, added.stderr).toBe(0)
    const result = await runCommand(['emulator', 'verify', '--profile', 'sb', '--timeout', '2'], {configDir})
    expect(result.stderr).toContain(`Sending the same requests to profile "sb" (${base.replace('v3rify-pa55', '…').replace('v3rify-k3y', '…')}) and to a fresh emulator…`)
    expect(result.stdout + result.stderr).not.toMatch(/v3rify-pa55|v3rify-k3y/)
  })

  it('emulator add-payment-profile shows its webhook address with the ?key= value redacted; --json keeps it', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'paytx-store-')), 'emulator.db')
    const id = '3f1c2a9e-0000-4000-8000-000000000109'
    const text = await runCommand(['emulator', 'add-payment-profile', id, '--webhook-url', HOOK, '--store', store])
    expect(text.exitCode, text.stderr).toBe(0)
    expect(text.stdout).toContain('webhooks to http://127.0.0.1:4020/webhooks?key=…)')
    expect(text.stdout).not.toContain('h00k-t0ken')
    const json = await runCommand(['emulator', 'add-payment-profile', id, '--webhook-url', HOOK, '--store', store, '--json'])
    expect(JSON.parse(json.stdout)).toMatchObject({webhook_transaction_update: HOOK})
  })

  it('emulator start’s summary shows the webhook addresses with their ?key= values redacted', () => {
    const emulator = {url: 'http://127.0.0.1:4010', proxyUrl: 'http://127.0.0.1:4010/h2h', dashboardUrl: 'http://127.0.0.1:4010/_emulator', assumptions: {}, store: ':memory:'} as unknown as RunningEmulator
    const options: EmulatorOptions = {webhookUrl: HOOK, paymentProfiles: [{id: 'pp-2', webhookUrl: HOOK}], settleAfterMs: 1000, pendingForMs: 1000, abandonAfterMs: 1000}
    const shown = renderListening(emulator, options, 'paytx')
    expect(shown).toContain('(default; webhooks to http://127.0.0.1:4020/webhooks?key=…)')
    expect(shown).toContain('payment profile pp-2  (webhooks to http://127.0.0.1:4020/webhooks?key=…)')
    expect(shown).not.toContain('h00k-t0ken')
  })
})
