/**
 * Redaction in what only the real process shows: `webhook listen` saving and printing card data,
 * and oclif's DEBUG=* log. The rest is in test/commands/redaction.test.ts.
 */
import {readFileSync} from 'node:fs'
import {mkdtempSync} from 'node:fs'
import {request} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'

import {type RunningCli, runCli, startCli, tempConfigDir} from '../helpers/cli.js'
import {CARD_ID, CUSTOMER_ID} from '../helpers/fixtures.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {API_KEY, PAN, PROXY_KEY, expectNoSecrets} from '../helpers/secrets.js'

/** PAN in the shapes a service or a sender may write it; PAN_OFF_LUHN is caught by its field name alone. */
const PAN_SPACED = '4024 0071 0817 3153'
const PAN_DASHED = '4024-0071-0817-3153'
const PAN_OFF_LUHN = '4111 1111 1111 1112'
const CVV = '937'

/** Fails when any shape of the card number (or the CVV as a number of its own) shows up. */
function expectNoCard(text: string): void {
  for (const shown of [PAN, PAN_SPACED, PAN_DASHED, encodeURIComponent(PAN_SPACED), PAN_OFF_LUHN, '4111111111111112', '4111-1111-1111-1112']) expect(text).not.toContain(shown)
  // DEBUG log lines start with an ISO time whose milliseconds can be any three digits.
  const withoutTimes = text.replaceAll(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
  expect(withoutTimes).not.toMatch(new RegExp(`(?<!\\d)${CVV}(?!\\d)`))
}

const servers: RecordingServer[] = []
const running: RunningCli[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((cli) => cli.stop('SIGKILL')))
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

function send(url: string, body: string, contentType: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, {method: 'POST', agent: false, headers: {'content-type': contentType}}, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode!))
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('webhook bodies that are not JSON', () => {
  it('a form body with a card number and CVV: saved and printed scrubbed, in --json and in text', async () => {
    const body = `pan=${PAN}&cvv=${CVV}&note=${encodeURIComponent(PAN_SPACED)}&card_number=${PAN_DASHED}&amount=1499`
    for (const json of [true, false]) {
      const file = join(mkdtempSync(join(tmpdir(), 'paytx-redaction-')), 'webhooks.ndjson')
      const cli = startCli(['webhook', 'listen', '--port', '0', '--save', file, ...(json ? ['--json'] : [])])
      running.push(cli)
      const url = json
        ? (await cli.waitForStdout(/"url":"([^"]+)"/))[1]
        : (await cli.waitForStderr(/Listening for webhooks at (\S+)/))[1]
      expect(await send(url, body, 'application/x-www-form-urlencoded')).toBe(400)
      expect(await send(url, `card ${PAN_SPACED} cvv: ${CVV}`, 'text/plain')).toBe(400)
      await cli.waitForStdout(/malformed[\s\S]*malformed/)
      const result = await cli.stop('SIGINT')
      expect(result.code).toBe(130)

      const saved = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
      expect(saved.map((line) => line.raw)).toEqual([
        'pan=•••• 3153&cvv=***&note=•••• 3153&card_number=•••• 3153&amount=1499',
        'card •••• 3153 cvv: ***',
      ])
      expectNoCard(readFileSync(file, 'utf8'))
      expectNoCard(result.stdout + result.stderr)
      if (json) {
        const malformed = result.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((event) => event.event === 'malformed')
        expect(malformed.map((event) => event.raw)).toEqual(saved.map((line) => line.raw))
      }
    }
  }, 60_000)
})

describe('DEBUG=* and the card number', () => {
  it('card tokenize takes no card number on the command line (--pan is refused, nothing sent); with DEBUG=* and the number on stdin, no shape of it in the debug log, stdout or stderr', async () => {
    const proxyId = '9876543210123456'
    const server = await startRecordingServer((req) =>
      req.method === 'POST' && req.path === `/h2h/tokenize/proxy/${proxyId}` ? {json: {token: CARD_ID, card_number: req.body.pan, customer: req.body.customer}} : undefined,
    )
    servers.push(server)
    const configDir = tempConfigDir()
    expect((await runCli(['profile', 'add', 'local', '--proxy-id', proxyId], {configDir})).code).toBe(0)
    const env = {DEBUG: '*', PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_H2H_URL: `${server.url}/h2h`, PAYTX_API_KEY: API_KEY, PAYTX_PROXY_KEY: PROXY_KEY}
    const args = ['card', 'tokenize', '--customer', CUSTOMER_ID, '--expiry-month', '12', '--expiry-year', '2030', '--holder-name', 'Jane Doe', '--pan-stdin', '--verbose']
    const result = await runCli(args, {configDir, env, input: `${PAN_SPACED}\n`})
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/oclif/)
    expect(server.requests[0].body.pan).toBe(PAN)
    expectNoCard(result.stdout + result.stderr)
    expectNoSecrets(result)

    const onArgv = await runCli([...args.slice(0, -2), '--pan', PAN], {configDir, env: {...env, DEBUG: undefined}})
    expect(onArgv.code).toBe(2)
    expect(onArgv.stderr).toMatch(/Nonexistent flag: --pan\b/)
    expect(server.requests).toHaveLength(1)
  })
})
