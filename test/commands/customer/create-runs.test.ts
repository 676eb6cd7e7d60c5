/**
 * `paytx customer create` run in-process against a recording service on 127.0.0.1: what is sent,
 * what is printed on stdout and stderr, and the exit code.
 */
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {parseJsonOutput, tempConfigDir} from '../../helpers/cli.js'
import {runCommand} from '../../helpers/run-command.js'
import {CUSTOMER_BODY, CUSTOMER_FLAGS, CUSTOMER_RESPONSE, ORGANISATION, customerFlagsWith as withValue, customerFlagsWithout as without} from '../../helpers/fixtures.js'
import {type RecordingServer, startRecordingServer} from '../../helpers/recording-server.js'
import {API_KEY, expectNoSecrets} from '../../helpers/secrets.js'

describe('customer create', () => {
  let server: RecordingServer
  beforeEach(async () => {
    server = await startRecordingServer((req) => (req.method === 'POST' && req.path === '/v1/customer' ? {json: {...CUSTOMER_RESPONSE, ...req.body}} : undefined))
  })
  afterEach(() => server.close())
  const env = () => ({PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY})

  it('POSTs every field to /v1/customer with the API key and prints the service’s object under --json', async () => {
    const result = await runCommand(['customer', 'create', ...CUSTOMER_FLAGS, '--json'], {env: env()})
    expect(result.exitCode).toBe(0)
    expect(parseJsonOutput(result)).toEqual(CUSTOMER_RESPONSE)
    expect(result.stderr).toBe('')
    expect(server.requests).toHaveLength(1)
    const [req] = server.requests
    expect(req.method).toBe('POST')
    expect(req.path).toBe('/v1/customer')
    expect(req.headers['x-apikey']).toBe(API_KEY)
    expect(req.headers['content-type']).toMatch(/^application\/json/)
    expect(req.headers['tx-proxy-key']).toBeUndefined()
    expect(req.body).toEqual(CUSTOMER_BODY)
  })

  it('renders the customer for people, and never shows the key even with --verbose', async () => {
    const result = await runCommand(['customer', 'create', ...CUSTOMER_FLAGS, '--verbose'], {env: env()})
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toMatch(/^Customer\s+4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f$/m)
    expect(result.stdout).toMatch(/Status\s+unverified/)
    expect(result.stderr).toMatch(/→ POST http:\/\/127\.0\.0\.1:\d+\/v1\/customer/)
    expect(result.stderr).toContain(`X-APIKEY: ${API_KEY.slice(0, 4)}…${API_KEY.slice(-4)}`)
    expectNoSecrets(result)
  })

  it('reads --data from a file and from stdin, flags override it, organisation defaults to the profile’s', async () => {
    const dir = tempConfigDir()
    const file = join(dir, 'customer.json')
    const {organisation: _, ...fromFile} = CUSTOMER_BODY
    writeFileSync(file, JSON.stringify({...fromFile, first_name: 'Janet'}))
    const viaFile = await runCommand(['customer', 'create', '--data', file, '--first-name', 'Jane', '--json'], {env: env()})
    expect(viaFile.exitCode).toBe(0)
    // The built-in local profile's organisation is the emulator's.
    expect(server.requests[0].body).toEqual({...CUSTOMER_BODY, organisation: ORGANISATION})

    const viaStdin = await runCommand(['customer', 'create', '--data', '-', '--city', 'Utrecht', '--json'], {env: env(), input: JSON.stringify(CUSTOMER_BODY)})
    expect(viaStdin.exitCode).toBe(0)
    expect(server.requests[1].body).toEqual({...CUSTOMER_BODY, city: 'Utrecht'})
  })

  it('rejects each bad value with exit 2 naming the flag, and sends nothing', async () => {
    const dir = tempConfigDir()
    const notJson = join(dir, 'bad.json')
    writeFileSync(notJson, '{"first_name": ')
    // Each value rule is a row of test/commands/customer/create.test.ts (in-process); these check the spawned contract.
    const cases: [string[], RegExp][] = [
      [without('--last-name'), /--last-name: is required/],
      [[...without('--email-address'), '--no-input'], /--email-address: is required/],
      [withValue('--date-of-birth', '1990-02-30'), /--date-of-birth: must be a real date written as YYYY-MM-DD/],
      [[...CUSTOMER_FLAGS, '--data', join(dir, 'missing.json')], /--data: cannot read .*no such file/],
      [[...CUSTOMER_FLAGS, '--data', notJson], /--data: .* is not valid JSON/],
      [[...CUSTOMER_FLAGS, '--timeout', 'soon'], /--timeout must be a number of seconds/],
      [[...CUSTOMER_FLAGS, '--no-such-flag'], /Nonexistent flag: --no-such-flag/],
    ]
    for (const [args, pattern] of cases) {
      const result = await runCommand(['customer', 'create', ...args], {env: env()})
      expect(result.exitCode, args.join(' ')).toBe(2)
      expect(result.stderr, args.join(' ')).toMatch(pattern)
      expect(result.stdout).toBe('')
    }
    const json = await runCommand(['customer', 'create', ...withValue('--phone-number', '0612'), '--json'], {env: env()})
    expect(json.exitCode).toBe(2)
    expect(json.stderr).toBe('')
    expect(parseJsonOutput(json).error).toMatchObject({kind: 'input', exitCode: 2, flag: '--phone-number'})
    const fromData = await runCommand(['customer', 'create', '--data', '-'], {env: env(), input: JSON.stringify({...CUSTOMER_BODY, house_number: 12})})
    expect(fromData.exitCode).toBe(2)
    expect(fromData.stderr).toMatch(/--house-number: must be a string \(field house_number of --data\)/)
    expect(server.requests).toHaveLength(0)
  })

  it('--force sends values the local checks would refuse', async () => {
    const result = await runCommand(['customer', 'create', ...withValue('--title', 'dr'), '--force', '--json'], {env: env()})
    expect(result.exitCode).toBe(0)
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0].body.title).toBe('dr')
  })

  it('shows a service 400’s details next to the flags that set the fields', async () => {
    server.reply(() => true, {
      status: 400,
      json: {code: '400', message: 'Validation failed', details: {'body.first_name': 'is too short', 'body.postal_code': ['bad format', 'unknown code']}},
    })
    const result = await runCommand(['customer', 'create', ...CUSTOMER_FLAGS], {env: env()})
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/The service answered 400 Bad Request to POST \/v1\/customer: Validation failed/)
    expect(result.stderr).toMatch(/^ {2}first_name \(--first-name\): is too short$/m)
    expect(result.stderr).toMatch(/^ {2}postal_code \(--postal-code\): bad format; unknown code$/m)
    expect(result.stdout).toBe('')

    server.reply(() => true, {status: 400, json: {message: 'Validation failed', details: {'body.first_name': 'is too short'}}})
    const json = await runCommand(['customer', 'create', ...CUSTOMER_FLAGS, '--json'], {env: env()})
    expect(json.exitCode).toBe(1)
    expect(parseJsonOutput(json).error).toMatchObject({
      kind: 'service',
      exitCode: 1,
      status: 400,
      serviceMessage: 'Validation failed',
      details: {'body.first_name': 'is too short'},
      flags: {first_name: '--first-name'},
    })
    expect(server.requests).toHaveLength(2)
  })

  describe('production guard', () => {
    let configDir: string
    beforeEach(async () => {
      configDir = tempConfigDir()
      const add = await runCommand(['profile', 'add', 'prod', '--env', 'production', '--base-url', `${server.url}/v1`, '--organisation', ORGANISATION, '--api-key-stdin'], {
        configDir,
        input: `${API_KEY}\n`,
      })
      expect(add.exitCode).toBe(0)
    })

    it('refuses without --yes off a terminal (exit 2, nothing sent), sends with --yes', async () => {
      const refused = await runCommand(['customer', 'create', ...CUSTOMER_FLAGS, '--profile', 'prod'], {configDir})
      expect(refused.exitCode).toBe(2)
      expect(refused.stderr).toMatch(/Refusing to create a customer on production profile "prod"/)
      expect(refused.stderr).toMatch(/--yes/)
      expect(server.requests).toHaveLength(0)

      const sent = await runCommand(['customer', 'create', ...CUSTOMER_FLAGS, '--json', '--yes'], {configDir, env: {PAYTX_PROFILE: 'prod'}})
      expect(sent.exitCode).toBe(0)
      expect(server.requests).toHaveLength(1)
      expect(server.requests[0].headers['x-apikey']).toBe(API_KEY)
    })
  })
})
