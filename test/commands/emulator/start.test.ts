/** `emulator start`'s flags into the emulator's options, in-process. */
import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import EmulatorStart, {toEmulatorStartOptions} from '../../../src/commands/emulator/start.js'
import {EMULATOR_DEFAULTS} from '../../../src/test-mode/emulator-defaults.js'
import {parseFlags} from '../../helpers/parse-flags.js'

// The default store is placed (its folder made) in the data folder: a fresh one per run.
const ENV = {PAYTX_DATA_DIR: mkdtempSync(join(tmpdir(), 'paytx-emulator-options-'))}
const ORG = '3F1C2A9E-0000-4000-8000-000000000001'
const PROFILE = '3f1c2a9e-0000-4000-8000-000000000002'

async function options(argv: string[]) {
  return toEmulatorStartOptions(await parseFlags(EmulatorStart, argv), ENV)
}

describe('toEmulatorStartOptions', () => {
  it('takes the defaults the built-in local profile expects, the store in the data folder', async () => {
    expect(await options([])).toMatchObject({
      host: EMULATOR_DEFAULTS.host,
      port: EMULATOR_DEFAULTS.port,
      apiKey: EMULATOR_DEFAULTS.apiKey,
      proxyKey: EMULATOR_DEFAULTS.proxyKey,
      proxyId: EMULATOR_DEFAULTS.proxyId,
      apiKeyHeader: 'X-APIKEY',
      store: join(ENV.PAYTX_DATA_DIR, 'emulator.db'),
      organisations: [],
      paymentProfiles: [],
      lifetime: 'service',
      settleAfterMs: EMULATOR_DEFAULTS.settleAfterMs,
      pendingForMs: EMULATOR_DEFAULTS.pendingForMs,
      abandonAfterMs: EMULATOR_DEFAULTS.abandonAfterMs,
      webhookAttempts: 5,
      webhookBackoffMs: 500,
    })
  })

  it.each([
    [['--port', '0', '--host', ' 0.0.0.0 '], {port: 0, host: '0.0.0.0'}],
    [['--store', ':memory:'], {store: ':memory:'}],
    [['--settle-after', '0', '--pending-for', '3s', '--abandon-after', '7m'], {settleAfterMs: 0, pendingForMs: 3000, abandonAfterMs: 420_000}],
    [['--webhook-url', 'http://127.0.0.1:4242/webhooks', '--webhook-attempts', '2', '--webhook-backoff', '10ms'], {webhookUrl: 'http://127.0.0.1:4242/webhooks', webhookAttempts: 2, webhookBackoffMs: 10}],
    [['--organisation', ORG], {organisations: [ORG.toLowerCase()]}],
    [['--payment-profile', `${PROFILE}=http://127.0.0.1:4242/hooks`], {paymentProfiles: [{id: PROFILE, webhookUrl: 'http://127.0.0.1:4242/hooks'}]}],
  ])('%j gives %j', async (argv, expected) => {
    expect(await options(argv)).toMatchObject(expected)
  })

  it.each([
    [['--settle-after', '3 days'], '--settle-after', '--settle-after must be a duration such as 500ms, 3s, 7m or 1h'],
    [['--abandon-after', '-1'], '--abandon-after', '--abandon-after must be a duration'],
    [['--webhook-url', 'localhost:4242'], '--webhook-url', '--webhook-url must be an absolute http(s) URL'],
    [['--webhook-url', 'hooks:s3cret@localhost:4242/webhooks?key=s3cret'], '--webhook-url', '(got "hooks:…@localhost:4242/webhooks?key=…")'],
    [['--api-key', ' '], '--api-key', '--api-key must not be empty'],
    [['--api-key-header', 'X APIKEY'], '--api-key-header', '--api-key-header must be an HTTP header name'],
    [['--organisation', 'acme'], '--organisation', '--organisation must be a UUID (got "acme").'],
    [['--payment-profile', 'pp-1'], '--payment-profile', '--payment-profile must be <uuid> or <uuid>=<webhook url>'],
  ])('refuses %j naming %s', async (argv, flag, message) => {
    await expect(options(argv)).rejects.toMatchObject({flag, exitCode: 2, message: expect.stringContaining(message)})
  })

  it('leaves a port out of range to oclif’s parser', async () => {
    await expect(parseFlags(EmulatorStart, ['--port', '70000'])).rejects.toThrow(/70000/)
  })
})
