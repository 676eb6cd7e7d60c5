/**
 * `paytx emulator trigger` and `paytx emulator resend` in-process: against a running emulator,
 * at the profile's address or at --url, never one of their own; refused moves, --force, and
 * non-local profiles. Against `emulator start` in its own process: test/e2e/emulator-trigger.test.ts.
 */
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js'

import {type RunningCli, parseJsonOutput, tempConfigDir} from '../../helpers/cli.js'
import {freePort} from '../../helpers/ports.js'
import {runCommand} from '../../helpers/run-command.js'
import {type RecordingServer, startRecordingServer} from '../../helpers/recording-server.js'
import {waitFor} from '../../helpers/wait-for.js'

const running: RunningCli[] = []
const servers: RecordingServer[] = []
const emulators: RunningEmulator[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((cli) => cli.stop('SIGKILL')))
  await Promise.all(servers.splice(0).map((server) => server.close()))
  await Promise.all(emulators.splice(0).map((emulator) => emulator.close()))
})

async function receiver(): Promise<RecordingServer> {
  const server = await startRecordingServer(() => ({status: 200}))
  servers.push(server)
  return server
}

describe('against a running emulator, never one of their own', () => {
  it('with no emulator at the address, says so (exit 1) and starts none: one of their own would answer from the shared store', async () => {
    const configDir = tempConfigDir()
    const base = `http://127.0.0.1:${await freePort()}`
    const env = {PAYTX_BASE_URL: base, PAYTX_H2H_URL: `${base}/h2h`}
    const flow = await runCommand(['flow', '--product', 'dummy', '--amount', '1499', '--approve', 'UNKNOWN', '--wait-timeout', '1s', '--json'], {configDir, env})
    const id = parseJsonOutput(flow).transactionId as string
    const notStarted = async () => {
      throw new Error('trigger and resend must not start an emulator')
    }
    for (const args of [['emulator', 'trigger', id, 'DECLINED'], ['emulator', 'resend', id]]) {
      const result = await runCommand(args, {configDir, env, context: {emulator: notStarted}})
      expect(result.exitCode, result.stderr).toBe(1)
      expect(result.stderr).toContain(base)
      expect(result.stderr).toMatch(/paytx emulator start/)
    }
  })

  it('at --url: triggers a status after a flow, resends to --to (last and --all), and status reads the move', async () => {
    const configDir = tempConfigDir()
    const base = `http://127.0.0.1:${await freePort()}`
    const env = {PAYTX_BASE_URL: base, PAYTX_H2H_URL: `${base}/h2h`}
    const flow = await runCommand(['flow', '--product', 'dummy', '--amount', '1499', '--approve', 'UNKNOWN', '--wait-timeout', '1s', '--json'], {configDir, env})
    expect(flow.exitCode, flow.stderr).toBe(4)
    const id = parseJsonOutput(flow).transactionId as string
    // The emulator the user runs, over the store the flow's emulator used, on another port than the profile's.
    const emulator = await startEmulator({port: 0, store: join(configDir, 'data', 'emulator.db')})
    emulators.push(emulator)
    // PAYTX_PROFILE names a sandbox profile: --url means the local profile's keys at that address.
    const added = await runCommand(['profile', 'add', 'acme-test', '--env', 'sandbox', '--insecure-storage'], {configDir})
    expect(added.exitCode, added.stderr).toBe(0)
    const atUrl = {...env, PAYTX_PROFILE: 'acme-test', PAYTX_BASE_URL: undefined, PAYTX_H2H_URL: undefined}

    const moved = await runCommand(['emulator', 'trigger', id, 'DECLINED', '--reason', 'card reported stolen', '--wait', '5s', '--json', '--url', emulator.url], {configDir, env: atUrl})
    expect(moved.exitCode, moved.stderr).toBe(0)
    const result = parseJsonOutput(moved)
    expect(result).toMatchObject({transaction: id, from: 'UNKNOWN', to: 'DECLINED', reason: 'card reported stolen', forced: false})
    // Its webhook went to the flow's listener, closed since: the attempt is reported, the emulator retries.
    expect(result.webhooks).toMatchObject([{status: 'DECLINED', attempts: [{attempt: 1, error: 'ECONNREFUSED'}]}])

    const status = await runCommand(['status', id, '--json'], {configDir, env: {PAYTX_BASE_URL: emulator.url}})
    expect(parseJsonOutput(status)).toMatchObject({id, status: 'DECLINED', status_reason: 'card reported stolen'})

    const shop = await receiver()
    const last = await runCommand(['emulator', 'resend', id, '--to', `${shop.url}/hooks?key=secret-token`, '--url', emulator.url], {configDir, env: atUrl})
    expect(last.exitCode, last.stderr).toBe(0)
    expect(last.stdout.trim()).toMatch(new RegExp(`^webhook DECLINED → ${shop.url}/hooks\\?key=… +attempt 1: HTTP 200, delivered \\(\\d+ ms\\)$`))
    expect(last.stdout + last.stderr).not.toContain('secret-token')
    expect(shop.requests).toHaveLength(1)
    expect(shop.requests[0].body).toEqual({type: 'transaction', id, _id: id})

    const all = await runCommand(['emulator', 'resend', id, '--all', '--to', `${shop.url}/all`, '--json', '--url', emulator.url], {configDir, env: atUrl})
    expect(all.exitCode, all.stderr).toBe(0)
    const statuses = parseJsonOutput(all).webhooks.map((delivery: {status: string}) => delivery.status)
    expect(statuses.slice(0, 3)).toEqual(['INITIATED', 'IN_PROGRESS', 'UNKNOWN'])
    expect(statuses.at(-1)).toBe('DECLINED')
    await waitFor(() => shop.requests.filter((request) => request.path === '/all').length === statuses.length, 'every webhook at --to')
  }, 60_000)
})

describe('against a running emulator, unknowns', () => {
  it('says nothing is known of an unknown transaction (naming the emulator asked) or status (exit 2)', async () => {
    const configDir = tempConfigDir()
    const emulator = await startEmulator({port: 0, store: ':memory:'})
    emulators.push(emulator)
    const env = {PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl}
    const unknown = await runCommand(['emulator', 'trigger', '00000000-0000-4000-8000-000000000000', 'DECLINED'], {configDir, env})
    expect(unknown.exitCode).toBe(2)
    expect(unknown.stderr).toContain(`No transaction has the id "00000000-0000-4000-8000-000000000000" in the emulator at ${emulator.url}; nothing was changed.`)
    const badStatus = await runCommand(['emulator', 'trigger', '00000000-0000-4000-8000-000000000000', 'PAID'], {configDir, env})
    expect(badStatus.exitCode).toBe(2)
    expect(badStatus.stderr).toContain('Expected PAID to be one of: INITIATED')
    const badUrl = await runCommand(['emulator', 'resend', '00000000-0000-4000-8000-000000000000', '--to', 'nope'], {configDir, env})
    expect(badUrl.exitCode).toBe(2)
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
    const result = await runCommand(['emulator', 'trigger', '00000000-0000-4000-8000-000000000000', 'DECLINED'], {env: {PAYTX_BASE_URL: other.url}})
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain('does not look like a paytx emulator')
    expect(result.stderr).not.toContain('bug in paytx')
    expect(other.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /_emulator/transactions/00000000-0000-4000-8000-000000000000/trigger'])
  })
})

describe('on a profile that is not local', () => {
  it.each([['trigger', 'DECLINED'], ['resend']])('emulator %s refuses with exit 2 and sends nothing', async (...args) => {
    const configDir = tempConfigDir()
    const service = await receiver()
    const added = await runCommand(['profile', 'add', 'staging', '--env', 'sandbox', '--base-url', `${service.url}/v1`, '--api-key-stdin'], {configDir, input: 'sk_test_staging_key_0001\n'})
    expect(added.exitCode, added.stderr).toBe(0)
    const result = await runCommand(['emulator', ...args.slice(0, 1), '00000000-0000-4000-8000-000000000000', ...args.slice(1), '--profile', 'staging'], {configDir})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain(`Error: \`emulator ${args[0]}\` drives the emulator, but profile "staging" is a sandbox profile; nothing was sent`)
    expect(service.requests).toHaveLength(0)
  })
})
