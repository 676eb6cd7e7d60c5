/**
 * `paytx webhook replay` into a running `paytx webhook listen`; the rest is in
 * test/commands/webhook/replay-runs.test.ts.
 */
import {mkdtempSync} from 'node:fs'
import {request} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {runCli, startCli} from '../helpers/cli.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'

const TX_A = '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'

const servers: RecordingServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

async function receiver(...statuses: number[]): Promise<RecordingServer> {
  const server = await startRecordingServer(() => ({status: 200, json: {ok: true}}))
  if (statuses.length > 0) server.reply(() => true, ...statuses.map((status) => ({status})))
  servers.push(server)
  return server
}


describe('webhook replay', () => {
  it('replays what `webhook listen --save` wrote, bodies and order as received', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'paytx-replay-')), 'saved.ndjson')
    const listener = startCli(['webhook', 'listen', '--port', '0', '--no-token', '--json', '--save', file])
    try {
      await listener.waitFor('stdout', /\n/)
      const {url} = JSON.parse(listener.stdout().split('\n')[0])
      for (const status of ['INITIATED', 'IN_PROGRESS', 'SETTLEMENT_REQUESTED']) {
        await post(url, JSON.stringify({type: 'transaction', _id: TX_A, status}), {'x-signature': `sig-${status}`})
      }
      await listener.waitFor('stdout', (text) => text.split('\n').filter((line) => line.includes('"webhook"')).length === 3)
    } finally {
      await listener.stop()
    }
    const server = await receiver()
    const result = await runCli(['webhook', 'replay', file, '--to', server.url, '--seq', '2-3'])
    expect(result.code, result.stderr).toBe(0)
    expect(server.requests.map((req) => [req.body.status, req.headers['x-signature']])).toEqual([
      ['IN_PROGRESS', 'sig-IN_PROGRESS'],
      ['SETTLEMENT_REQUESTED', 'sig-SETTLEMENT_REQUESTED'],
    ])
  })
})

function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, {method: 'POST', headers: {'content-type': 'application/json', ...headers}}, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
    })
    req.on('error', reject)
    req.end(body)
  })
}
