/**
 * The /_emulator/ routes against a web page that reaches 127.0.0.1 under a name of its own (DNS
 * rebinding): refused with 403 as the dashboard refuses it, unless the emulator was started to
 * listen beyond loopback; and the delivery log shows no address's secret parts without the key.
 */
import {request} from 'node:http'

import {afterEach, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../../src/emulator/index.js'
import {emulatorApi} from '../../helpers/emulator-api.js'
import {type RecordingServer, startRecordingServer} from '../../helpers/recording-server.js'
import {waitFor} from '../../helpers/wait-for.js'

/** A GET with the Host header a rebinding page's requests carry. */
function getWithHost(url: string, host: string, headers: Record<string, string> = {}): Promise<{status: number; text: string}> {
  return new Promise((resolve, reject) => {
    const req = request(url, {headers: {host, ...headers}, agent: false}, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({status: res.statusCode!, text}))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('/_emulator/ routes and the Host header', () => {
  const running: (RunningEmulator | RecordingServer)[] = []
  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close()))
  })

  it('refuse a foreign Host with 403 (as the dashboard does) and answer their own names', async () => {
    const emulator = await startEmulator({port: 0, store: ':memory:'})
    running.push(emulator)
    const port = emulator.port
    for (const path of ['/_emulator/webhooks', '/_emulator/health', '/_emulator/faults', '/_emulator/transactions']) {
      const refused = await getWithHost(`${emulator.url}${path}`, `rebind.attacker.example:${port}`, {[emulator.apiKeyHeader]: emulator.apiKey})
      expect(refused.status, path).toBe(403)
      expect(JSON.parse(refused.text)).toMatchObject({code: '403', details: {host: "not this emulator's address"}})
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) expect((await getWithHost(`${emulator.url}/_emulator/health`, host)).status).toBe(200)
    // The service's own API is not behind this check (a client may name it as it likes).
    expect((await getWithHost(`${emulator.url}/v1/transaction/x`, `api.example:${port}`, {[emulator.apiKeyHeader]: emulator.apiKey})).status).toBe(404)
  })

  it('answer any Host when the emulator listens beyond loopback', async () => {
    const emulator = await startEmulator({port: 0, host: '0.0.0.0', store: ':memory:'})
    running.push(emulator)
    expect((await getWithHost(`${emulator.url}/_emulator/health`, `my-laptop.lan:${emulator.port}`)).status).toBe(200)
  })

  it('show delivery addresses redacted (query values, token path segments, passwords) to a caller without the API key', async () => {
    const receiver = await startRecordingServer(() => ({status: 200, json: {}}))
    running.push(receiver)
    const secretUrl = `${receiver.url.replace('//', '//shop:pa55word@')}/hooks/Zq8fK2mX9vLp4RtY7wNc3BdH?key=tok_0123456789abcdef`
    const emulator = await startEmulator({port: 0, store: ':memory:', webhookUrl: secretUrl})
    running.push(emulator)
    const {transaction} = await emulatorApi(emulator).startPayment('dummy')
    await waitFor(() => receiver.requests.length > 0, 'the webhook')
    const open = await getWithHost(`${emulator.url}/_emulator/webhooks?transaction=${transaction.id}`, `127.0.0.1:${emulator.port}`)
    expect(open.status).toBe(200)
    expect(JSON.parse(open.text).deliveries[0].url).toBe(`${receiver.url}/hooks/…?key=…`)
    expect(open.text).not.toMatch(/pa55word|tok_0123456789abcdef|Zq8fK2mX9vLp4RtY7wNc3BdH/)
  })
})
