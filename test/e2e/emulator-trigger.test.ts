/**
 * `paytx emulator trigger` against `paytx emulator start` in its own process; the rest is in
 * test/commands/emulator/trigger.test.ts.
 */
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {type RunningCli, parseJsonOutput, runCli, startCli, tempConfigDir} from '../helpers/cli.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'

const running: RunningCli[] = []
const servers: RecordingServer[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((cli) => cli.stop('SIGKILL')))
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function receiver(): Promise<RecordingServer> {
  const server = await startRecordingServer(() => ({status: 200}))
  servers.push(server)
  return server
}

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

})
