/**
 * Every failure of the service or the network, in-process: exit 1, a readable message, the JSON
 * envelope under --json.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {parseJsonOutput, tempConfigDir} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'
import {CUSTOMER_FLAGS, TX_ID} from '../helpers/fixtures.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {API_KEY, expectNoSecrets} from '../helpers/secrets.js'

/** Every failure of the service or the network: exit 1, a readable message, the JSON envelope under --json. */
describe('service and network failures', () => {
  let server: RecordingServer
  beforeEach(async () => {
    server = await startRecordingServer()
  })
  afterEach(() => server.close())
  const env = (url = server.url) => ({PAYTX_BASE_URL: `${url}/v1`, PAYTX_API_KEY: API_KEY})
  const createCustomer = (...extra: string[]) => runCommand(['customer', 'create', ...CUSTOMER_FLAGS, ...extra], {env: env()})
  const status = (...extra: string[]) => runCommand(['status', TX_ID, ...extra], {env: env()})

  it('401: exit 1, status and message, a hint about the key; not repeated', async () => {
    server.reply(() => true, {status: 401, json: {message: 'Invalid API key'}}, {status: 401, json: {message: 'Invalid API key'}})
    const result = await createCustomer()
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/The service answered 401 Unauthorized to POST \/v1\/customer: Invalid API key/)
    expect(result.stderr).toMatch(/Hint: Check the API key/)
    expect(result.stdout).toBe('')
    const json = await status('--json')
    expect(json.exitCode).toBe(1)
    expect(json.stderr).toBe('')
    expect(parseJsonOutput(json).error).toMatchObject({kind: 'service', exitCode: 1, status: 401, serviceMessage: 'Invalid API key'})
    expect(server.requests).toHaveLength(2)
  })

  it('404 on a GET: exit 1, not retried', async () => {
    server.reply(() => true, {status: 404, json: {code: '404', message: 'Transaction not found'}})
    const result = await status()
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/404 Not Found to GET \/v1\/transaction\/9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c: Transaction not found/)
    expect(server.requests).toHaveLength(1)
  })

  it('500 on a POST is not repeated and says the request may have been processed', async () => {
    server.reply(() => true, {status: 500, json: {message: 'Internal error'}})
    const result = await createCustomer('--json')
    expect(result.exitCode).toBe(1)
    expect(parseJsonOutput(result).error).toMatchObject({kind: 'service', status: 500, serviceMessage: 'Internal error'})
    expect(parseJsonOutput(result).error.hint).toMatch(/may still have been processed/)
    expect(server.requests).toHaveLength(1)
  })

  it('500 on a GET is retried, three tries in all', async () => {
    server.reply(() => true, ...[1, 2, 3].map(() => ({status: 500, json: {message: 'Internal error'}, headers: {'retry-after': '0'}})))
    const result = await status()
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/500 Internal Server Error/)
    expect(server.requests).toHaveLength(3)
  })

  it('a timeout on a POST: exit 1, sent once, marked as possibly processed', async () => {
    server.reply(() => true, {delayMs: 3000, json: {}})
    const result = await createCustomer('--timeout', '0.3', '--json')
    expect(result.exitCode).toBe(1)
    const {error} = parseJsonOutput(result)
    expect(error).toMatchObject({kind: 'network', exitCode: 1, mayHaveReachedService: true})
    expect(error.message).toMatch(/No answer from http:\/\/127\.0\.0\.1:\d+ within 300 ms/)
    expect(error.hint).toMatch(/paytx status/)
    expect(server.requests).toHaveLength(1)
  })

  it('a timeout on a GET is retried', async () => {
    server.reply(() => true, {delayMs: 2000, json: {}}, {delayMs: 2000, json: {}}, {delayMs: 2000, json: {}})
    const result = await status('--timeout', '0.2')
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/No answer from .* within 200 ms after 3 tries/)
    expect(result.stderr).toMatch(/--timeout/)
    expect(server.requests).toHaveLength(3)
  })

  it('a connection dropped after a POST was sent is not repeated', async () => {
    server.reply(() => true, {destroy: true})
    const result = await createCustomer()
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/may have reached the service, so it was not sent again/)
    expect(server.requests).toHaveLength(1)
  })

  it('a refused connection: exit 1 with what to do next', async () => {
    const closed = await startRecordingServer()
    const url = closed.url
    await closed.close()
    // A sandbox profile: on a local one, a command finding nothing listening runs the emulator itself.
    const configDir = tempConfigDir()
    const added = await runCommand(['profile', 'add', 'refused', '--env', 'sandbox', '--base-url', `${url}/v1`, '--api-key-stdin', '--use'], {configDir, input: `${API_KEY}\n`})
    expect(added.exitCode, added.stderr).toBe(0)
    const result = await runCommand(['customer', 'create', ...CUSTOMER_FLAGS], {configDir})
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/Could not connect to http:\/\/127\.0\.0\.1:\d+: connection refused/)
    expect(result.stderr).toMatch(/`paytx emulator start`/)
    const json = await runCommand(['status', TX_ID, '--json'], {configDir})
    expect(json.exitCode).toBe(1)
    expect(parseJsonOutput(json).error).toMatchObject({kind: 'network', exitCode: 1, mayHaveReachedService: false})
  })

  it('a 2xx body that is not JSON: exit 1, a readable message', async () => {
    server.reply(() => true, {status: 200, text: '<html><body>Welcome to nginx</body></html>', headers: {'content-type': 'text/html'}})
    const result = await createCustomer('--verbose')
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/answered 200 OK to POST .* but the body is not JSON: <html><body>Welcome to nginx/)
    expect(result.stderr).not.toMatch(/\n\s+at /)
    expectNoSecrets(result)
  })

  it('an error body that is not JSON keeps its text as the message', async () => {
    server.reply(() => true, {status: 502, text: 'Bad gateway from proxy'})
    const result = await createCustomer('--json')
    expect(result.exitCode).toBe(1)
    expect(parseJsonOutput(result).error).toMatchObject({status: 502, serviceMessage: 'Bad gateway from proxy'})
    expect(server.requests).toHaveLength(1)
  })
})
