/**
 * Save files for the `webhook replay` tests (in-process and spawned alike): records as
 * `webhook listen --save` writes them, and receivers that answer and record each replayed webhook.
 */
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach} from 'vitest'

import {type RecordingServer, startRecordingServer} from './recording-server.js'

export const TX_A = '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'
export const TX_B = '1b2c3d4e-5f60-4718-9a0b-1c2d3e4f5a6b'

// Importing this module closes every receiver a test opened after that test.
const servers: RecordingServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

export async function receiver(...statuses: number[]): Promise<RecordingServer> {
  const server = await startRecordingServer(() => ({status: 200, json: {ok: true}}))
  if (statuses.length > 0) server.reply(() => true, ...statuses.map((status) => ({status})))
  servers.push(server)
  return server
}

export function record(seq: number, transaction: string, status: string, receivedAt: string, extraHeaders: Record<string, string> = {}) {
  return {
    seq,
    received_at: receivedAt,
    method: 'POST',
    path: '/webhooks',
    headers: {host: '127.0.0.1:4020', 'content-type': 'application/json', 'content-length': '99', connection: 'keep-alive', 'user-agent': 'paytx-emulator', ...extraHeaders},
    body: {type: 'transaction', _id: transaction, status},
    answered: 200,
  }
}

export function saveFile(lines: unknown[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'paytx-replay-')), 'webhooks.ndjson')
  writeFileSync(file, `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`)
  return file
}

export const long = new Date(Date.now() - 3 * 3_600_000).toISOString()
export const recent = () => new Date(Date.now() - 60_000).toISOString()

export function fiveWebhooks(): string {
  return saveFile([
    record(1, TX_A, 'INITIATED', long),
    record(2, TX_A, 'SETTLEMENT_REQUESTED', long, {'x-trace': 'kept-as-recorded'}),
    record(3, TX_B, 'INITIATED', recent()),
    record(4, TX_B, 'DECLINED', recent()),
    record(5, TX_A, 'SETTLEMENT_COMPLETED', recent()),
  ])
}
