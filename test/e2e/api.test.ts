/**
 * `paytx api` on a pseudo-terminal (indented JSON); everything else is in test/commands/api.test.ts.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {ptyAvailable, runInPty} from '../helpers/pty.js'
import {TX_ID} from '../helpers/fixtures.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {API_KEY} from '../helpers/secrets.js'

/** `paytx api` against a service on 127.0.0.1 that records what it was sent. */
describe('paytx api', () => {
  let server: RecordingServer
  beforeEach(async () => {
    server = await startRecordingServer((req) =>
      req.path === `/v1/transaction/${TX_ID}` ? {json: {id: TX_ID, status: 'PENDING', amount: '1499'}, headers: {'x-request-id': 'req-1'}} : undefined,
    )
  })
  afterEach(() => server.close())
  const env = () => ({PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY})

  it.skipIf(!ptyAvailable)('on a terminal the answer is indented JSON', async () => {
    const session = runInPty(['api', `/v1/transaction/${TX_ID}`], {env: env()})
    expect(await session.exited).toBe(0)
    expect(session.output().replaceAll('\r\n', '\n')).toContain(`{\n  "id": "${TX_ID}",\n  "status": "PENDING",\n  "amount": "1499"\n}\n`)
  })
})
