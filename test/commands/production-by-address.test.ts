/**
 * Production is decided by where a request goes (src/profiles/production.ts): a profile labelled
 * sandbox or local whose service or card proxy address is a production host, in any spelling,
 * or any profile that PAYTX_BASE_URL / PAYTX_H2H_URL point there, is production. Every sending
 * command, in-process, with the service client replaced by a recorder: without --yes it refuses
 * before anything is sent, with the PRODUCTION line first; with --yes the
 * requests go (to the recorder, standing in for the production host) after the line, and the client was made
 * for the production address.
 */
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {PaymentService} from '../../src/api/service.js'
import type {CommandContext} from '../../src/context/command-context.js'
import {isProductionAddress, productionReason} from '../../src/profiles/production.js'
import {tempConfigDir} from '../helpers/cli.js'
import {CUSTOMER_FLAGS} from '../helpers/fixtures.js'
import {API_KEY, PROXY_KEY, TX_ID, startProductionService} from '../helpers/production-service.js'
import type {RecordingServer} from '../helpers/recording-server.js'
import {runCommand} from '../helpers/run-command.js'

const SANDBOX = {base_url: 'https://sandbox.spryngpayments.com/v1', h2h_url: 'https://test-tgapi.tokenex.com'}

/** The service address in every spelling the attacks tried (and a few more). */
const SERVICE_SPELLINGS = [
  'https://API.SPRYNGPAYMENTS.COM/v1',
  'https://api.spryngpayments.com./v1',
  'https://api.spryngpayments.com:443/v1',
  'https://puser:pw@api.spryngpayments.com/v1',
  'https://api.spryngpayments.com',
  'https://api.spryngpayments.com/v1/',
  'https://api.spryngpayments.com//v1',
  'https://api.spryngpayments.com/V1',
  'https://api.spryngpayments.com/v1/../v1',
  'https://Api.SpryngPayments.Com.:443/v1',
  'http://api.spryngpayments.com/v1',
  'https://api%2Espryngpayments.com/v1',
  ' https://api.spryngpayments.com/v1',
]

/** The card proxy address, spelt likewise. */
const CARD_PROXY_SPELLINGS = ['https://TGAPI.TOKENEX.COM', 'https://tgapi.tokenex.com.:443', 'https://u:p@tgapi.tokenex.com/', 'https://tgapi.tokenex.com/tokenize/']

describe('isProductionAddress', () => {
  it.each([...SERVICE_SPELLINGS, ...CARD_PROXY_SPELLINGS, 'api.spryngpayments.com/v1', 'https://api.spryngpayments.com:99999/v1'])('%s is production', (address) => {
    expect(isProductionAddress(address)).toBe(true)
  })

  it.each([
    SANDBOX.base_url,
    SANDBOX.h2h_url,
    'http://127.0.0.1:4010/v1',
    'https://api.spryngpayments.com.evil.example/v1',
    'https://xapi.spryngpayments.com/v1',
    'https://evil.example/api.spryngpayments.com',
    'https://api.spryngpayments.community/v1',
    'https://tgapi.tokenex.com-evil.example',
    '',
    undefined,
  ])('%s is not', (address) => {
    expect(isProductionAddress(address)).toBe(false)
  })

  it('a profile is production by its label, or by either address whatever its label', () => {
    expect(productionReason({env: 'production', base_url: 'http://127.0.0.1:1/v1'})).toEqual({by: 'label'})
    expect(productionReason({env: 'sandbox', ...SANDBOX})).toBeUndefined()
    expect(productionReason({env: 'local', base_url: 'https://API.spryngpayments.com./v1'})).toMatchObject({by: 'address', field: 'base_url', label: 'local'})
    expect(productionReason({env: 'sandbox', base_url: SANDBOX.base_url, h2h_url: 'https://TGAPI.tokenex.com'})).toMatchObject({by: 'address', field: 'h2h_url', label: 'sandbox'})
  })
})

describe('every sending command on a production address', () => {
  let server: RecordingServer
  let scenario: string
  /** The addresses each made service client was asked for, before the recorder takes the requests. */
  let asked: {base_url: string; h2h_url?: string}[]

  beforeAll(async () => {
    server = await startProductionService()
    const dir = tempConfigDir()
    scenario = join(dir, 'live.yaml')
    writeFileSync(scenario, 'cases:\n  - name: live-check\n    product: dummy\n    amount: 100\n    outcome: manual\n    customer: cus-1\n    webhook: none\n    wait_timeout: 1s\n')
  })
  afterAll(() => server.close())

  /** A service client that records where it was to send, and sends to the recorder instead. */
  const recordingService: CommandContext['service'] = async (resolved, settings) => {
    asked.push({base_url: resolved.profile.base_url, h2h_url: resolved.profile.h2h_url})
    const profile = {...resolved.profile, base_url: `${server.url}/v1`, h2h_url: `${server.url}/h2h`}
    return new PaymentService({profileName: resolved.name, profile}, settings)
  }

  /** A config folder with one profile, labelled as given, keys in the file. */
  function configWith(name: string, env: string, addresses: {base_url: string; h2h_url?: string}): string {
    const dir = tempConfigDir()
    mkdirSync(dir, {recursive: true})
    const profile = {env, ...addresses, proxy_id: '1234567890123456', organisation: 'org-1', payment_profile: 'pp-1', api_key_header: 'X-APIKEY', api_key: API_KEY, proxy_key: PROXY_KEY}
    writeFileSync(join(dir, 'profiles.json'), JSON.stringify({active: name, profiles: {[name]: profile}}), {mode: 0o600})
    return dir
  }

  const COMMANDS: [label: string, args: () => string[], input?: string][] = [
    ['customer create', () => ['customer', 'create', ...CUSTOMER_FLAGS]],
    ['card tokenize', () => ['card', 'tokenize', '--customer', 'cus-1', '--expiry-month', '12', '--expiry-year', '2031', '--holder-name', 'Jane Doe', '--pan-stdin'], '4024007108173153\n'],
    ['transaction start', () => ['transaction', 'start', '--product', 'dummy', '--amount', '100', '--customer', 'cus-1', '--redirect-url', 'https://shop.example.com/return']],
    ['flow', () => ['flow', '--product', 'dummy', '--amount', '100', '--customer', 'cus-1', '--webhook', 'none', '--no-open', '--wait-timeout', '1s']],
    ['smoke run', () => ['smoke', 'run', scenario, '--no-open']],
    ['api -X POST', () => ['api', '-X', 'POST', '/v1/customer', '-f', 'first_name=Jane']],
    ['api -X DELETE', () => ['api', '-X', 'DELETE', `/v1/transaction/${TX_ID}/settlement`]],
  ]

  /** Where the production address comes from: a stored profile (labelled sandbox or local), or a variable. */
  type Setup = {configDir: string; env: Record<string, string>; labelled: string}
  const SETUPS: [label: string, setup: (spelling: string) => Setup][] = [
    ['a sandbox-labelled profile', (base) => ({configDir: configWith('acme-test', 'sandbox', {base_url: base, h2h_url: SANDBOX.h2h_url}), env: {}, labelled: 'sandbox'})],
    ['a profile named production labelled sandbox', (base) => ({configDir: configWith('production', 'sandbox', {base_url: base, h2h_url: SANDBOX.h2h_url}), env: {}, labelled: 'sandbox'})],
    ['PAYTX_BASE_URL over a sandbox profile', (base) => ({configDir: configWith('acme-test', 'sandbox', SANDBOX), env: {PAYTX_BASE_URL: base}, labelled: 'sandbox'})],
    ['PAYTX_BASE_URL over the built-in local profile', (base) => ({configDir: tempConfigDir(), env: {PAYTX_BASE_URL: base, PAYTX_API_KEY: API_KEY}, labelled: 'local'})],
  ]

  const refusals = SETUPS.flatMap(([setupLabel, setup]) =>
    SERVICE_SPELLINGS.flatMap((spelling) => COMMANDS.map(([label, args, input]) => [label, setupLabel, spelling, setup, args, input] as const)),
  )

  it.each(refusals)('%s on %s at %s: PRODUCTION line, refused without --yes, nothing sent', async (_label, _setupLabel, _spelling, setup, args, input) => {
    const {configDir, env, labelled} = setup(_spelling)
    asked = []
    const before = server.requests.length
    const result = await runCommand(args(), {configDir, env, input, context: {service: recordingService, emulator: refuseEmulator}})
    expect(result.exitCode, result.stderr).toBe(2)
    const [first] = result.stderr.split('\n')
    expect(first).toMatch(new RegExp(`^PRODUCTION · profile \\S+ \\(labelled ${labelled}\\) · `))
    expect(result.stderr).toMatch(/Refusing to .* on production profile ".*" without confirmation \(it is labelled \w+, but its service address .* is a production host\)/)
    expect(server.requests.length).toBe(before)
  })

  it.each(CARD_PROXY_SPELLINGS)('card tokenize on a sandbox profile whose card proxy is %s: refused, the card number sent nowhere', async (spelling) => {
    for (const env of [{}, {PAYTX_H2H_URL: spelling}]) {
      const before = server.requests.length
      const configDir = configWith('acme-test', 'sandbox', {base_url: SANDBOX.base_url, h2h_url: 'PAYTX_H2H_URL' in env ? SANDBOX.h2h_url : spelling})
      const result = await runCommand(COMMANDS[1][1](), {configDir, env, input: COMMANDS[1][2], context: {service: recordingService}})
      expect(result.exitCode, result.stderr).toBe(2)
      expect(result.stderr.split('\n')[0]).toMatch(/^PRODUCTION · profile acme-test \(labelled sandbox\) · https:\/\/(u:…@)?tgapi\.tokenex\.com/i)
      expect(result.stderr).toContain('its card proxy address')
      expect(server.requests.length).toBe(before)
    }
  })

  it.each(COMMANDS)('%s with --yes goes ahead, after the PRODUCTION line, to the address asked', async (_label, args, input) => {
    const spelling = 'https://API.spryngpayments.com.:443/v1'
    asked = []
    const before = server.requests.length
    const configDir = configWith('acme-test', 'sandbox', {base_url: spelling, h2h_url: SANDBOX.h2h_url})
    const result = await runCommand([...args(), '--yes'], {configDir, input, context: {service: recordingService}})
    expect(result.exitCode, result.stderr).not.toBe(2)
    expect(result.stderr.split('\n')[0]).toBe(`PRODUCTION · profile acme-test (labelled sandbox) · ${spelling}`)
    expect(asked.length).toBeGreaterThan(0)
    expect(asked.every((address) => address.base_url === spelling)).toBe(true)
    expect(server.requests.length).toBeGreaterThan(before)
  })

  it.each(SERVICE_SPELLINGS)('emulator verify refuses a sandbox-labelled profile at %s, even with keys, and sends nothing', async (spelling) => {
    asked = []
    const configDir = configWith('acme-test', 'sandbox', {base_url: spelling, h2h_url: SANDBOX.h2h_url})
    const result = await runCommand(['emulator', 'verify', '--profile', 'acme-test'], {configDir, context: {service: recordingService}})
    expect(result.exitCode, result.stderr).toBe(2)
    expect(result.stderr).toContain('it refuses production profiles ("acme-test" is production: it is labelled sandbox, but its service address')
    expect(asked).toEqual([])
  })

  it.each([
    ['status', ['status', TX_ID]],
    ['checkoutsuccess', ['checkoutsuccess', TX_ID]],
  ])('%s (read-only) prints the PRODUCTION line by the same rule, and never asks', async (_label, args) => {
    asked = []
    const configDir = configWith('acme-test', 'sandbox', SANDBOX)
    const result = await runCommand(args, {configDir, env: {PAYTX_BASE_URL: 'https://api.SPRYNGPAYMENTS.com./v1'}, context: {service: recordingService}})
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stderr.split('\n')[0]).toBe('PRODUCTION · profile acme-test (labelled sandbox) · https://api.SPRYNGPAYMENTS.com./v1')
    expect(asked).toHaveLength(1)
  })
})

/** A local profile pointed at production must never get an embedded emulator in its place. */
const refuseEmulator: CommandContext['emulator'] = async () => {
  throw new Error('an emulator was started for a profile whose address is production')
}
