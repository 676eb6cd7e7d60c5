/**
 * The local profile's setting emulator_readings: its embedded emulator answers with the readings
 * of `emulator verify --save` (here: id keys `id`, paytx 0.1's card record names).
 */
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'

import {CUSTOMER_FLAGS} from '../helpers/fixtures.js'
import {startCli, tempConfigDir} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'
import {runCommand} from '../helpers/run-command.js'
import {sampleCustomer} from '../../src/flow/sample-customer.js'
import {builtinLocalProfile} from '../../src/profiles/presets.js'
import {withReadingsFile} from '../../src/commands/emulator/start.js'

const READINGS = {
  version: 1,
  profile: 'sandbox',
  taken_at: '2026-01-01T00:00:00.000Z',
  assumptions: {'id-keys': 'id', 'card-record': 'request-names', 'webhook-body': null, 'webhook-retries': null, 'api-key-header': 'X-Other'},
  additive: [],
}

async function localProfile(readings: unknown): Promise<string> {
  const dir = tempConfigDir()
  mkdirSync(dir, {recursive: true})
  const file = join(dir, 'readings.json')
  writeFileSync(file, JSON.stringify(readings))
  const port = await freePort()
  const profile = {...builtinLocalProfile(), base_url: `http://127.0.0.1:${port}/v1`, h2h_url: `http://127.0.0.1:${port}/h2h`, emulator_readings: file}
  writeFileSync(join(dir, 'profiles.json'), JSON.stringify({active: 'local', profiles: {local: profile}}), {mode: 0o600})
  return dir
}

describe('emulator_readings of a local profile', () => {
  it('the embedded emulator answers with the readings (the key header stays the profile\'s)', async () => {
    const configDir = await localProfile(READINGS)
    const customer = await runCommand(['customer', 'create', ...CUSTOMER_FLAGS, '--json'], {configDir})
    expect(customer.exitCode, customer.stderr).toBe(0)
    const card = await runCommand(['card', 'tokenize', '--customer', JSON.parse(customer.stdout).id, '--expiry-month', '12', '--expiry-year', '2031', '--holder-name', 'Jane Doe', '--pan-stdin', '--json'], {configDir, input: '4024007108173153\n'})
    expect(card.exitCode, card.stderr).toBe(0)
    const record = JSON.parse(card.stdout).proxy_response
    expect(record).toHaveProperty('last4')
    expect(record).not.toHaveProperty('last_four')
    expect(record).not.toHaveProperty('_id')
  })

  it('the embedded emulator adds the fields only the service sent, with a value of their form', async () => {
    const configDir = await localProfile({
      ...READINGS,
      additive: [
        {request: 'customer', status: 200, path: 'risk', form: 'object'},
        {request: 'customer', status: 200, path: 'risk.score', form: 'number'},
        {request: 'customer', status: 200, path: 'risk.checked_at', form: 'string (ISO 8601 time)'},
        {request: 'customer', status: 200, path: 'trace_id', form: 'string (UUID)'},
      ],
    })
    const customer = await runCommand(['customer', 'create', ...CUSTOMER_FLAGS, '--json'], {configDir})
    expect(customer.exitCode, customer.stderr).toBe(0)
    const body = JSON.parse(customer.stdout)
    expect(body.risk).toEqual({score: 0, checked_at: READINGS.taken_at})
    expect(body.trace_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  })

  it('a file that is no readings file: exit 2 naming the setting', async () => {
    const configDir = await localProfile({version: 1})
    const customer = await runCommand(['customer', 'create', ...CUSTOMER_FLAGS], {configDir})
    expect(customer.exitCode).toBe(2)
    expect(customer.stderr).toContain('emulator_readings of profile "local"')
  })
})

describe('adopting readings', () => {
  it('profile add --emulator-readings stores the file\'s absolute path once it is a readings file; another file is exit 2 naming the flag', async () => {
    const configDir = await localProfile(READINGS)
    const added = await runCommand(['profile', 'add', 'mine', '--env', 'local', '--emulator-readings', join(configDir, 'readings.json')], {configDir})
    expect(added.exitCode, added.stderr).toBe(0)
    expect(JSON.parse(readFileSync(join(configDir, 'profiles.json'), 'utf8')).profiles.mine.emulator_readings).toBe(join(configDir, 'readings.json'))
    writeFileSync(join(configDir, 'other.json'), '{"version": 1}')
    const refused = await runCommand(['profile', 'add', 'other', '--env', 'local', '--emulator-readings', join(configDir, 'other.json')], {configDir})
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toContain('--emulator-readings')
  })

  it('emulator start --readings lays the readings over the switches they set', async () => {
    const configDir = await localProfile({...READINGS, assumptions: {...READINGS.assumptions, 'webhook-retries': 'not-retried'}})
    const options = await withReadingsFile({assumptions: {webhookPayload: 'minimal', idKeys: 'both', cardRecord: 'earlier'}, webhookAttempts: 5, apiKeyHeader: 'X-APIKEY'}, join(configDir, 'readings.json'))
    expect(options).toMatchObject({assumptions: {webhookPayload: 'minimal', idKeys: 'id', cardRecord: 'request-names'}, webhookAttempts: 1, apiKeyHeader: 'X-Other'})
  })

  it('emulator start --readings (the built CLI) answers with the fields only the service sent and the observed timings', async () => {
    const timing = {
      'abandon-after': {seen: 'observed', value: 400, tolerance: 1000, how: 'seen'},
      'settle-after': {seen: 'not-seen', value: null, tolerance: null, how: 'needs an approval'},
      'pending-for': {seen: 'not-seen', value: null, tolerance: null, how: 'needs an approval'},
      'webhook-backoff': {seen: 'observed', value: 1234, tolerance: 1000, how: 'seen'},
      'webhook-attempts': {seen: 'at-least', value: 2, tolerance: null, how: 'seen'},
    }
    const additive = [
      {request: 'transaction', status: 200, path: 'reason_code', form: 'string'},
      {request: 'unknown-transaction', status: 404, path: 'trace_id', form: 'string (UUID)'},
    ]
    const configDir = await localProfile({...READINGS, assumptions: {...READINGS.assumptions, 'api-key-header': null}, additive, timing})
    const cli = startCli(['emulator', 'start', '--port', '0', '--store', ':memory:', '--json', '--readings', join(configDir, 'readings.json')], {configDir, timeoutMs: 20_000})
    try {
      await cli.waitFor('stdout', /\n/)
      const listening = JSON.parse(cli.stdout().split('\n')[0]!)
      const headers = {[listening.api_key_header]: listening.api_key, 'content-type': 'application/json'}
      const unknown = await fetch(`${listening.url}/v1/transaction/00000000-0000-4000-8000-000000000000`, {headers})
      expect(unknown.status).toBe(404)
      expect(await unknown.json()).toMatchObject({code: '404', trace_id: '00000000-0000-4000-8000-000000000000'})
      const customer = (await (await fetch(`${listening.url}/v1/customer`, {method: 'POST', headers, body: JSON.stringify(sampleCustomer(listening.organisation))})).json()) as any
      const body = {amount: 100, customer: customer.id, customer_ip: '127.0.0.1', dynamic_descriptor: 'x', merchant_reference: 'r', payment_product: 'dummy', user_agent: 'ua', details: {redirect_url: 'https://example.com/'}}
      const started = (await (await fetch(`${listening.url}/v1/transaction/start`, {method: 'POST', headers, body: JSON.stringify(body)})).json()) as any
      expect(started).not.toHaveProperty('reason_code')
      const read = (await (await fetch(`${listening.url}/v1/transaction/${started.id}`, {headers})).json()) as any
      expect(read.reason_code).toBe('')
      // Abandoned after the observed 400 ms (the emulator's own default is minutes).
      await cli.waitFor('stdout', /"to":"ABANDONED"/, 10_000)
    } finally {
      await cli.stop()
    }
  })

  it('emulator start --readings with a file that is no readings file: exit 2 naming --readings, before it listens', async () => {
    const configDir = await localProfile({version: 3})
    const result = await runCommand(['emulator', 'start', '--port', '0', '--store', ':memory:', '--readings', join(configDir, 'readings.json')], {configDir})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('--readings')
    expect(result.stdout).not.toContain('listening')
  })
})
