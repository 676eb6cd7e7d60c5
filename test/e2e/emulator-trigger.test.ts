/**
 * `paytx emulator trigger` and `paytx emulator resend`, spawned: against an emulator embedded by
 * the command itself (nothing listening at the local profile's address) and against
 * `paytx emulator start` in its own process; refused moves, --force, and non-local profiles.
 */
import {createServer} from 'node:net'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {type RunningCli, parseJsonOutput, runCli, startCli, tempConfigDir} from '../helpers/cli.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {waitFor} from '../helpers/wait-for.js'

const running: RunningCli[] = []
const servers: RecordingServer[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((cli) => cli.stop('SIGKILL')))
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const {port} = server.address() as {port: number}
      server.close(() => resolve(port))
    })
  })
}

async function receiver(): Promise<RecordingServer> {
  const server = await startRecordingServer(() => ({status: 200}))
  servers.push(server)
  return server
}

describe('against the emulator a command embeds over the shared store', () => {
  it('triggers a status after a flow, resends to --to (last and --all), and status reads the move', async () => {
    const configDir = tempConfigDir()
    const base = `http://127.0.0.1:${await freePort()}`
    const env = {PAYTX_BASE_URL: base, PAYTX_H2H_URL: `${base}/h2h`}
    const flow = await runCli(['flow', '--product', 'dummy', '--amount', '1499', '--approve', 'UNKNOWN', '--wait-timeout', '1s', '--json'], {configDir, env})
    expect(flow.code, flow.stderr).toBe(4)
    const id = parseJsonOutput(flow).transactionId as string

    const moved = await runCli(['emulator', 'trigger', id, 'DECLINED', '--reason', 'card reported stolen', '--wait', '5s', '--json'], {configDir, env})
    expect(moved.code, moved.stderr).toBe(0)
    const result = parseJsonOutput(moved)
    expect(result).toMatchObject({transaction: id, from: 'UNKNOWN', to: 'DECLINED', reason: 'card reported stolen', forced: false})
    // Its webhook went to the flow's listener, closed since: the attempt is reported, the emulator retries.
    expect(result.webhooks).toMatchObject([{status: 'DECLINED', attempts: [{attempt: 1, error: 'ECONNREFUSED'}]}])

    const status = await runCli(['status', id, '--json'], {configDir, env})
    expect(parseJsonOutput(status)).toMatchObject({id, status: 'DECLINED', status_reason: 'card reported stolen'})

    const shop = await receiver()
    const last = await runCli(['emulator', 'resend', id, '--to', `${shop.url}/hooks?key=secret-token`], {configDir, env})
    expect(last.code, last.stderr).toBe(0)
    expect(last.stdout.trim()).toMatch(new RegExp(`^webhook DECLINED → ${shop.url}/hooks\\?key=… +attempt 1: HTTP 200, delivered \\(\\d+ ms\\)$`))
    expect(last.stdout + last.stderr).not.toContain('secret-token')
    expect(shop.requests).toHaveLength(1)
    expect(shop.requests[0].body).toEqual({type: 'transaction', id, _id: id})

    const all = await runCli(['emulator', 'resend', id, '--all', '--to', `${shop.url}/all`, '--json'], {configDir, env})
    expect(all.code, all.stderr).toBe(0)
    const statuses = parseJsonOutput(all).webhooks.map((delivery: {status: string}) => delivery.status)
    expect(statuses.slice(0, 3)).toEqual(['INITIATED', 'IN_PROGRESS', 'UNKNOWN'])
    expect(statuses.at(-1)).toBe('DECLINED')
    await waitFor(() => shop.requests.filter((request) => request.path === '/all').length === statuses.length, 'every webhook at --to')
  }, 60_000)
})

describe('against `paytx emulator start` in its own process', () => {
  it('moves along the state table, refuses other moves with exit 2 unless --force, and resends', async () => {
    const configDir = tempConfigDir()
    const shop = await receiver()
    const emulator = startCli(['emulator', 'start', '--port', '0', '--store', join(configDir, 'emulator.db'), '--webhook-url', `${shop.url}/hooks`, '--pending-for', '1h', '--json'], {
      configDir,
      timeoutMs: 60_000,
    })
    running.push(emulator)
    const url = JSON.parse((await emulator.waitForStdout(/^\{"event":"listening".*\}$/m))[0]).url as string
    const env = {PAYTX_BASE_URL: url, PAYTX_H2H_URL: `${url}/h2h`}
    const started = await runCli(['flow', '--product', 'dummy', '--amount', '100', '--approve', 'PENDING', '--wait-timeout', '1s', '--webhook', 'none', '--json'], {configDir, env})
    const id = parseJsonOutput(started).transactionId as string

    const refused = await runCli(['emulator', 'trigger', id, 'INITIATED'], {configDir, env})
    expect(refused.code).toBe(2)
    expect(refused.stdout).toBe('')
    expect(refused.stderr).toMatch(/^Error: PENDING does not move to INITIATED; from PENDING a transaction moves to SETTLEMENT_REQUESTED, CANCELLED, DECLINED, FAILED, UNKNOWN\. Nothing was changed\.\nHint: Pass --force/)

    const forced = await runCli(['emulator', 'trigger', id, 'INITIATED', '--force'], {configDir, env})
    expect(forced.code, forced.stderr).toBe(0)
    expect(forced.stdout).toMatch(new RegExp(`^Moved ${id}  PENDING → INITIATED  \\(forced\\)\\nwebhook INITIATED → ${shop.url}/hooks  attempt 1: HTTP 200, delivered`))

    const allowed = await runCli(['emulator', 'trigger', id, 'IN_PROGRESS'], {configDir, env})
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(allowed.stdout).toContain('INITIATED → IN_PROGRESS  (the customer opened the approval page)')

    const again = await runCli(['emulator', 'resend', id], {configDir, env})
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toContain(`webhook IN_PROGRESS → ${shop.url}/hooks  attempt 1: HTTP 200, delivered`)
    // The emulator's own log shows the moves and the deliveries.
    await emulator.waitFor('stdout', (text) => text.includes('"to":"IN_PROGRESS"'))
    // The payment profile's address had the flow's three (INITIATED, IN_PROGRESS, PENDING), then these three.
    expect(shop.requests.filter((request) => request.body?.id === id)).toHaveLength(6)
  }, 60_000)

  it('says nothing is known of an unknown transaction or status (exit 2)', async () => {
    const configDir = tempConfigDir()
    const base = `http://127.0.0.1:${await freePort()}`
    const env = {PAYTX_BASE_URL: base, PAYTX_H2H_URL: `${base}/h2h`}
    const unknown = await runCli(['emulator', 'trigger', '00000000-0000-4000-8000-000000000000', 'DECLINED'], {configDir, env})
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('No transaction has the id "00000000-0000-4000-8000-000000000000" in the emulator\'s store; nothing was changed.')
    const badStatus = await runCli(['emulator', 'trigger', '00000000-0000-4000-8000-000000000000', 'PAID'], {configDir, env})
    expect(badStatus.code).toBe(2)
    expect(badStatus.stderr).toContain('Expected PAID to be one of: INITIATED')
    const badUrl = await runCli(['emulator', 'resend', '00000000-0000-4000-8000-000000000000', '--to', 'nope'], {configDir, env})
    expect(badUrl.code).toBe(2)
    expect(badUrl.stderr).toContain('--to must be an absolute http(s) URL')
  })
})

describe('on a local profile whose address is not an emulator', () => {
  it.each([
    ['a 404', {status: 404, json: {code: '404', message: 'Not found'}}],
    ['a 200 without a result', {status: 200}],
  ])('reports %s of another server (exit 1) and says what to do', async (_what, reply) => {
    const other = await startRecordingServer(() => reply)
    servers.push(other)
    const result = await runCli(['emulator', 'trigger', '00000000-0000-4000-8000-000000000000', 'DECLINED'], {env: {PAYTX_BASE_URL: other.url}})
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('does not look like a paytx emulator')
    expect(result.stderr).not.toContain('bug in paytx')
    expect(other.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /_emulator/transactions/00000000-0000-4000-8000-000000000000/trigger'])
  })
})

describe('on a profile that is not local', () => {
  it.each([['trigger', 'DECLINED'], ['resend']])('emulator %s refuses with exit 2 and sends nothing', async (...args) => {
    const configDir = tempConfigDir()
    const service = await receiver()
    const added = await runCli(['profile', 'add', 'staging', '--env', 'sandbox', '--base-url', `${service.url}/v1`, '--api-key-stdin'], {configDir, input: 'sk_test_staging_key_0001\n'})
    expect(added.code, added.stderr).toBe(0)
    const result = await runCli(['emulator', ...args.slice(0, 1), '00000000-0000-4000-8000-000000000000', ...args.slice(1), '--profile', 'staging'], {configDir})
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(`Error: \`emulator ${args[0]}\` drives the emulator, but profile "staging" is a sandbox profile; nothing was sent`)
    expect(service.requests).toHaveLength(0)
  })
})
