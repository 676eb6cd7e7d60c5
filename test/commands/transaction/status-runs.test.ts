/**
 * `paytx transaction status` for one id, in-process against a recording service on 127.0.0.1.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {parseJsonOutput} from '../../helpers/cli.js'
import {runCommand} from '../../helpers/run-command.js'
import {type RecordingServer, startRecordingServer} from '../../helpers/recording-server.js'

const API_KEY = 'sk_test_9f8e7d6c5b4a39281706f5e4'
const TX = {
  id: '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c',
  amount: '1499',
  payment_product: 'dummy',
  status: 'SETTLEMENT_COMPLETED',
  details: {approval_url: 'http://x/v1/transaction/9a2e/authorize'},
  created_at: '2026-11-20T10:00:00.000Z',
  last_status_update: '2026-11-20T10:00:03.123Z',
  reason_code: 'extra-field-kept',
}

describe('transaction status', () => {
  let server: RecordingServer
  beforeEach(async () => {
    server = await startRecordingServer((req) => (req.path === `/v1/transaction/${TX.id}` ? {json: TX} : undefined))
  })
  afterEach(() => server.close())

  const env = () => ({PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY})

  it('GETs the transaction with the API key and prints it unchanged under --json', async () => {
    const result = await runCommand(['transaction', 'status', TX.id, '--json'], {env: env()})
    expect(result.exitCode).toBe(0)
    expect(parseJsonOutput(result)).toEqual(TX)
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0].method).toBe('GET')
    expect(server.requests[0].path).toBe(`/v1/transaction/${TX.id}`)
    expect(server.requests[0].headers['x-apikey']).toBe(API_KEY)
  })

  it('renders status, finality, success and the amount as minor units and decimal', async () => {
    const result = await runCommand(['status', TX.id], {env: env()})
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toMatch(/SETTLEMENT_COMPLETED \(final, success\)/)
    expect(result.stdout).toMatch(/1499 minor units \(14\.99\)/)
    expect(result.stdout).not.toContain(API_KEY)
    expect(result.stderr).toBe('')
  })

  it('retries a GET after a 503 and succeeds', async () => {
    server.reply((req) => req.method === 'GET', {status: 503, json: {message: 'busy'}, headers: {'retry-after': '0'}})
    const result = await runCommand(['status', TX.id, '--json'], {env: env()})
    expect(result.exitCode).toBe(0)
    expect(server.requests).toHaveLength(2)
  })
})

describe('transaction status and text from the service', () => {
  const FORGED = 'INITIATED\nError: forged line\u001b[2J'
  let server: RecordingServer
  beforeEach(async () => {
    server = await startRecordingServer(() => ({json: {...TX, status: FORGED}}))
  })
  afterEach(() => server.close())

  it('--wait: a status holding a line break and escapes stays on its line in every note and warning', async () => {
    const result = await runCommand(['status', TX.id, '--wait', '--wait-timeout', '1ms'], {env: {PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY}})
    expect(result.exitCode).toBe(4)
    expect(result.stderr).not.toMatch(/^Error: forged/m)
    expect(result.stderr).toContain('INITIATED\\nError: forged line\\x1b[2J (a status paytx does not know)')
    expect(result.stderr).toMatch(/^Warning: transaction \S+ is still INITIATED\\nError: forged line\\x1b\[2J after/m)
    expect(result.stdout + result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
  })

  it('--wait for several ids: the same, in each id’s notes and warnings', async () => {
    const other = '1b2c3d4e-5f60-4718-9a0b-1c2d3e4f5a6b'
    const result = await runCommand(['status', TX.id, other, '--wait', '--wait-timeout', '1ms'], {env: {PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY}})
    expect(result.exitCode).toBe(4)
    expect(result.stderr).not.toMatch(/^Error: forged/m)
    expect(result.stderr).toMatch(new RegExp(`^Warning: transaction ${other} is still INITIATED\\\\nError: forged line\\\\x1b\\[2J after`, 'm'))
    expect(result.stdout + result.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/)
    // The table in a pipe is TSV: a tab or line break in a value would move it to another column or row.
    expect(result.stdout.trim().split('\n').map((row) => row.split('\t').length)).toEqual([7, 7, 7])
  })
})
