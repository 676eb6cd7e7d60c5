/**
 * The harness (test/helpers/run-command.ts) runs commands in this process with the same stdout,
 * stderr and exit code as the spawned CLI; these cases are twins of spawned ones in test/e2e.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {CUSTOMER_BODY, CUSTOMER_FLAGS, CUSTOMER_RESPONSE} from '../helpers/fixtures.js'
import {freePort} from '../helpers/ports.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {memoryKeychain, recordingBrowser, runCommand} from '../helpers/run-command.js'
import {API_KEY, expectNoSecrets} from '../helpers/secrets.js'
import {tempConfigDir} from '../helpers/cli.js'

describe('customer create, in-process', () => {
  let server: RecordingServer
  beforeEach(async () => {
    server = await startRecordingServer((req) => (req.method === 'POST' && req.path === '/v1/customer' ? {json: {...CUSTOMER_RESPONSE, ...req.body}} : undefined))
  })
  afterEach(() => server.close())
  const env = () => ({PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY})

  it('POSTs the fields and prints exactly one JSON document under --json, nothing on stderr', async () => {
    const result = await runCommand(['customer', 'create', ...CUSTOMER_FLAGS, '--json'], {env: env()})
    expect(result).toMatchObject({exitCode: 0, stderr: ''})
    expect(JSON.parse(result.stdout)).toEqual(CUSTOMER_RESPONSE)
    expect(server.requests.map((req) => req.body)).toEqual([CUSTOMER_BODY])
  })

  it('reads --data from the given stdin', async () => {
    const result = await runCommand(['customer', 'create', '--data', '-', '--city', 'Utrecht', '--json'], {env: env(), input: JSON.stringify(CUSTOMER_BODY)})
    expect(result.exitCode).toBe(0)
    expect(server.requests[0].body).toEqual({...CUSTOMER_BODY, city: 'Utrecht'})
  })

  it('maps a bad value to exit 2 naming the flag, as JSON under --json, and sends nothing', async () => {
    const flags = CUSTOMER_FLAGS.map((value) => (value === 'NL' ? 'Netherlands' : value))
    const result = await runCommand(['customer', 'create', ...flags, '--json'], {env: env()})
    expect(result).toMatchObject({exitCode: 2, stderr: ''})
    expect(JSON.parse(result.stdout).error).toMatchObject({kind: 'input', exitCode: 2, flag: '--country-code'})
    expect(server.requests).toHaveLength(0)
  })

  it('maps a refused connection to exit 1 with a hint naming the command as typed, and JSON under --json', async () => {
    // Where nothing listens, nor will: a closed server's port could be handed to another test's server.
    const closed = `http://127.0.0.1:${await freePort()}/v1`
    // A sandbox profile: a local one would start an emulator at the closed address.
    const configDir = tempConfigDir()
    const keychain = memoryKeychain()
    const added = await runCommand(['profile', 'add', 'refused', '--env', 'sandbox', '--base-url', closed, '--api-key-stdin', '--use'], {configDir, input: `${API_KEY}\n`, context: {keychain}})
    expect(added.exitCode, added.stderr).toBe(0)
    const human = await runCommand(['customer', 'create', ...CUSTOMER_FLAGS], {configDir, context: {keychain, invokedAs: 'npx paytx'}})
    expect(human).toMatchObject({exitCode: 1, stdout: ''})
    expect(human.stderr).toMatch(/^Error: Could not connect to http:\/\/127\.0\.0\.1:\d+: connection refused/)
    expect(human.stderr).toContain('`npx paytx emulator start`')
    expectNoSecrets(human)
    const json = await runCommand(['customer', 'create', ...CUSTOMER_FLAGS, '--json'], {configDir, context: {keychain}})
    expect(json).toMatchObject({exitCode: 1, stderr: ''})
    expect(JSON.parse(json.stdout).error).toMatchObject({
      kind: 'network',
      exitCode: 1,
      mayHaveReachedService: false,
      hint: 'Nothing listens there. Start the emulator with `paytx emulator start`, or pick another profile with --profile.',
      remedies: [{kind: 'start-emulator', situation: 'nothing-listens'}],
    })
  })
})

describe('profile add, in-process', () => {
  it('stores the key in the keychain the context gives, and the profile in the config folder', async () => {
    const configDir = tempConfigDir()
    const keychain = memoryKeychain()
    const added = await runCommand(['profile', 'add', 'sandbox', '--env', 'sandbox', '--base-url', 'https://sandbox.example.com/v1', '--api-key-stdin'], {
      configDir,
      input: `${API_KEY}\n`,
      context: {keychain},
    })
    expect(added.exitCode).toBe(0)
    expect([...keychain.entries.values()]).toEqual([API_KEY])
    expect(added.stderr).toContain('paytx profile use sandbox')
    const shown = await runCommand(['profile', 'show', 'sandbox', '--json'], {configDir, context: {keychain}})
    expect(shown.exitCode).toBe(0)
    expect(JSON.parse(shown.stdout)).toMatchObject({name: 'sandbox', env: 'sandbox', base_url: 'https://sandbox.example.com/v1'})
  })

  it('refuses a bad name with exit 2 and writes nothing', async () => {
    const configDir = tempConfigDir()
    const result = await runCommand(['profile', 'add', '-bad', '--base-url', 'https://x.example.com'], {configDir})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/^Error: /)
  })
})

describe('transaction start and status, in-process against the embedded emulator', () => {
  it('starts a dummy payment on the emulator that lives for the command: --open opens no dead page and says how to keep one; status reads it', async () => {
    const configDir = tempConfigDir()
    const browser = recordingBrowser()
    const customer = await runCommand(['customer', 'create', ...CUSTOMER_FLAGS, '--json'], {configDir})
    expect(customer.exitCode).toBe(0)
    const started = await runCommand(
      ['transaction', 'start', '--product', 'dummy', '--amount', '1499', '--customer', JSON.parse(customer.stdout).id, '--redirect-url', 'https://shop.example.com/return', '--open', '--json'],
      {configDir, context: {browser}},
    )
    expect(started.exitCode, started.stderr).toBe(0)
    const transaction = JSON.parse(started.stdout)
    expect(browser.opened).toEqual([])
    expect(started.stderr).toContain('The emulator ran only for this command and stopped with it')
    expect(started.stderr).toContain('emulator start`')

    const status = await runCommand(['status', transaction.transaction_id ?? transaction.id, '--json'], {configDir})
    expect(status.exitCode).toBe(0)
    expect(JSON.parse(status.stdout)).toMatchObject({status: expect.any(String)})
  })
})
