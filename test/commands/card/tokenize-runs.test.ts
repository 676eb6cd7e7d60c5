/**
 * `paytx card tokenize` run in-process against a recording service on 127.0.0.1: what is sent,
 * with which key, and what is printed on stdout and stderr with which exit code.
 */
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {parseJsonOutput, tempConfigDir} from '../../helpers/cli.js'
import {runCommand} from '../../helpers/run-command.js'
import {CARD_FLAGS, CARD_ID, CUSTOMER_ID, ORGANISATION, cardFlagsWith as cardFlags} from '../../helpers/fixtures.js'
import {type RecordingServer, startRecordingServer} from '../../helpers/recording-server.js'
import {API_KEY, PAN, PROXY_KEY, expectNoSecrets} from '../../helpers/secrets.js'

const PROXY_ID = '9876543210123456'

describe('card tokenize', () => {
  let server: RecordingServer
  beforeEach(async () => {
    // A proxy that echoes the card number back, to prove paytx masks whatever the proxy returns.
    server = await startRecordingServer((req) =>
      req.method === 'POST' && req.path === `/h2h/tokenize/proxy/${PROXY_ID}`
        ? {json: {token: CARD_ID, card_number: req.body.pan, echo: `stored ${req.body.pan}`, customer: req.body.customer}}
        : undefined,
    )
  })
  afterEach(() => server.close())

  const env = (extra: Record<string, string> = {}) => ({
    PAYTX_BASE_URL: `${server.url}/v1`,
    PAYTX_H2H_URL: `${server.url}/h2h`,
    PAYTX_API_KEY: API_KEY,
    PAYTX_PROXY_KEY: PROXY_KEY,
    ...extra,
  })
  let configDir: string
  beforeEach(async () => {
    configDir = tempConfigDir()
    // The local profile with another proxy id; addresses and keys come from the environment.
    const add = await runCommand(['profile', 'add', 'local', '--proxy-id', PROXY_ID], {configDir})
    expect(add.exitCode).toBe(0)
  })
  const tokenize = (args: string[], input?: string, extra?: Record<string, string>) =>
    runCommand(['card', 'tokenize', ...args], {configDir, env: env(extra), input})

  it('POSTs to {h2h_url}/tokenize/proxy/<PROXY_ID> with TX-Proxy-Key and without the API key', async () => {
    const result = await tokenize([...CARD_FLAGS, '--pan-stdin', '--json'], `${PAN}\n`)
    expect(result.exitCode).toBe(0)
    expect(server.requests).toHaveLength(1)
    const [req] = server.requests
    expect(req.method).toBe('POST')
    expect(req.path).toBe(`/h2h/tokenize/proxy/${PROXY_ID}`)
    expect(req.headers['tx-proxy-key']).toBe(PROXY_KEY)
    expect(req.headers['x-apikey']).toBeUndefined()
    expect(JSON.stringify(req.headers)).not.toContain(API_KEY)
    expect(req.headers['content-type']).toMatch(/^application\/json/)
    expect(req.body).toEqual({customer: CUSTOMER_ID, expiry_month: '12', expiry_year: '2030', holder_name: 'Jane Doe', pan: PAN, organisation: ORGANISATION})

    const output = parseJsonOutput(result)
    expect(output).toEqual({
      id: CARD_ID,
      last_four: '3153',
      brand: 'visa',
      customer: CUSTOMER_ID,
      proxy_response: {token: CARD_ID, card_number: '•••• 3153', echo: 'stored •••• 3153', customer: CUSTOMER_ID},
    })
    expect(result.stderr).toMatch(/^Next: paytx transaction start/m)
    expectNoSecrets(result)
  })

  it('finds the card id in id, then _id, then token; shows the last four only, also with --verbose', async () => {
    server.reply(() => true, {json: {_id: 'abc123def456', token: 'tok_1'}})
    const result = await tokenize([...cardFlags('--expiry-month', '3'), '--organisation', 'org-x', '--pan-stdin', '--verbose'], `${PAN}\n`)
    expect(result.exitCode).toBe(0)
    expect(result.stdout).toMatch(/^Card\s+abc123def456$/m)
    expect(result.stdout).toMatch(/^Number\s+visa •••• 3153$/m)
    expect(result.stderr).toMatch(/TX-Proxy-Key: tx_p…aS3d/)
    expect(server.requests[0].body).toMatchObject({expiry_month: '03', organisation: 'org-x'})
    expectNoSecrets(result)
  })

  it('rejects each bad input with exit 2 naming the flag, and sends nothing', async () => {
    // Each value rule is a row of test/commands/card/tokenize.test.ts (in-process); these check the spawned contract.
    const cases: [string[], string | undefined, RegExp][] = [
      [[...CARD_FLAGS, '--pan-stdin'], '4024007108173154\n', /--pan-stdin: is not a valid card number/],
      [[...CARD_FLAGS, '--pan-stdin'], '4024 0071 0817 3154\n', /--pan-stdin: is not a valid card number/],
      [[...CARD_FLAGS, '--pan-stdin'], '\n', /--pan-stdin: stdin is empty/],
      [[...CARD_FLAGS], undefined, /--pan-stdin/],
      [[...cardFlags('--expiry-month', '13'), '--pan-stdin'], `${PAN}\n`, /--expiry-month: must be a month from 01 to 12/],
      // Card numbers are not taken on the command line (shell history, process list, debug logs).
      [[...CARD_FLAGS, '--pan', PAN], undefined, /Nonexistent flag: --pan\b/],
    ]
    for (const [args, input, pattern] of cases) {
      const result = await tokenize(args, input)
      expect(result.exitCode, args.join(' ')).toBe(2)
      expect(result.stderr, args.join(' ')).toMatch(pattern)
      expect(result.stdout).toBe('')
      expectNoSecrets(result)
    }
    const json = await tokenize([...cardFlags('--expiry-month', '13'), '--pan-stdin', '--json'], `${PAN}\n`)
    expect(json.exitCode).toBe(2)
    expect(parseJsonOutput(json).error).toMatchObject({kind: 'input', exitCode: 2, flag: '--expiry-month'})
    expect(server.requests).toHaveLength(0)
  })

  it('says which proxy settings the profile lacks before asking for the card number', async () => {
    const bare = tempConfigDir()
    await runCommand(['profile', 'add', 'bare', '--env', 'sandbox', '--base-url', `${server.url}/v1`], {configDir: bare})
    const missing = await runCommand(['card', 'tokenize', ...CARD_FLAGS, '--pan-stdin', '--profile', 'bare'], {configDir: bare, input: `${PAN}\n`})
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toMatch(/Profile "bare" has no proxy id, proxy key for the card proxy/)
    expect(missing.stderr).toMatch(/--proxy-id, --proxy-key-stdin/)
    expect(server.requests).toHaveLength(0)
  })

  it('a proxy 401 (IP not allowed) is exit 1 with the status; the POST is not repeated; the PAN is not echoed', async () => {
    server.reply(() => true, {status: 401, json: {message: `IP not allowed for card ${PAN}`}})
    const result = await tokenize([...CARD_FLAGS, '--pan-stdin', '--verbose'], `${PAN}\n`)
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toMatch(/401 Unauthorized to POST \/h2h\/tokenize\/proxy\/9876543210123456: IP not allowed for card •••• 3153/)
    expect(server.requests).toHaveLength(1)
    expectNoSecrets(result)
  })

  it('a service message quoting the card and a CVV: the card shown by its last four, the CVV never, in text and --json', async () => {
    const said = `card 4111111111111111 cvv 7391 was refused (${PAN})`
    const refusal = {status: 400, json: {message: said, details: {pan: said}}}
    server.reply(() => true, refusal, refusal)
    const text = await tokenize([...CARD_FLAGS, '--pan-stdin'], `${PAN}\n`)
    expect(text.exitCode).toBe(1)
    expect(text.stderr).toContain('card •••• 1111 cvv *** was refused (•••• 3153)')
    const json = await tokenize([...CARD_FLAGS, '--pan-stdin', '--json'], `${PAN}\n`)
    expect(parseJsonOutput(json).error).toMatchObject({serviceMessage: 'card •••• 1111 cvv *** was refused (•••• 3153)', details: {pan: 'card •••• 1111 cvv *** was refused (•••• 3153)'}})
    for (const result of [text, json]) expectNoSecrets(result, [PAN, '4111111111111111', '7391'])
  })

  it('a card id from the proxy with a line break stays on the line of the next step', async () => {
    server.reply(() => true, {json: {token: 'c4rd\nError: forged\u001b[2J'}})
    const result = await tokenize([...CARD_FLAGS, '--pan-stdin'], `${PAN}\n`)
    expect(result.exitCode, result.stderr).toBe(0)
    expect(result.stderr).toMatch(/^Next: paytx transaction start --product card --card c4rd\\nError: forged\\x1b\[2J --customer /m)
    expect(result.stderr).not.toMatch(/^Error: forged/m)
    expect(result.stdout + result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/)
  })

  it('an answer without any id is exit 1 and says the card may exist', async () => {
    server.reply(() => true, {json: {ok: true}})
    const result = await tokenize([...CARD_FLAGS, '--pan-stdin', '--json'], `${PAN}\n`)
    expect(result.exitCode).toBe(1)
    expect(parseJsonOutput(result).error).toMatchObject({kind: 'response', exitCode: 1})
    expect(parseJsonOutput(result).error.message).toMatch(/answered 200 with a body paytx does not understand .*id is missing \(a string; id, _id, token accepted\)/)
    expect(parseJsonOutput(result).error.hint).toMatch(/the card may have been created/)
  })

  it('is guarded on production: refused without --yes off a terminal', async () => {
    const prodDir = tempConfigDir()
    await runCommand(['profile', 'add', 'production', '--h2h-url', `${server.url}/h2h`, '--proxy-id', PROXY_ID, '--proxy-key-stdin'], {configDir: prodDir, input: `${PROXY_KEY}\n`})
    const refused = await runCommand(['card', 'tokenize', ...CARD_FLAGS, '--pan-stdin', '--profile', 'production'], {configDir: prodDir, input: `${PAN}\n`})
    expect(refused.exitCode).toBe(2)
    expect(refused.stderr).toMatch(/Refusing to tokenize a card on production profile "production"/)
    expect(server.requests).toHaveLength(0)
    const sent = await runCommand(['card', 'tokenize', ...CARD_FLAGS, '--pan-stdin', '--profile', 'production', '--yes', '--json'], {configDir: prodDir, input: `${PAN}\n`})
    expect(sent.exitCode).toBe(0)
    expect(server.requests).toHaveLength(1)
    expectNoSecrets(sent)
  })
})
