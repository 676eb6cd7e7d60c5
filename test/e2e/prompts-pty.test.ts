import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {tempConfigDir} from '../helpers/cli.js'
import {CARD_ID, CUSTOMER_FLAGS, CUSTOMER_ID} from '../helpers/fixtures.js'
import {type PtySession, ptyAvailable, runInPty} from '../helpers/pty.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {API_KEY, PAN, PROXY_KEY} from '../helpers/secrets.js'

/**
 * Answers the expiry and holder prompts of a card as a person who mistypes each once: a month of
 * 13, a two-digit year, last year, an empty name; each is refused under its prompt, naming the
 * field, and corrected in place (a visible answer stays on the line to be corrected).
 */
async function answerExpiryAndHolder(session: PtySession): Promise<void> {
  const lastYear = String(new Date().getUTCFullYear() - 1)
  await session.waitFor(/Expiry month \(01-12\)/)
  session.type('13\r')
  await session.waitFor(/Expiry month must be a month from 01 to 12/)
  session.type('\x7f\x7f7\r')
  await session.waitFor(/Expiry year \(four digits\)/)
  session.type('12\r')
  await session.waitFor(/Expiry year must be a four-digit year such as 2030/)
  session.type(`\x7f\x7f${lastYear}\r`)
  await session.waitFor(new RegExp(`Expiry year is in the past; use ${Number(lastYear) + 1} or later`))
  session.type(`${'\x7f'.repeat(4)}2030\r`)
  await session.waitFor(/Name on the card/)
  session.type('\r')
  await session.waitFor(/Name on the card is required/)
  session.type('Jane Doe\r')
}

/** Hidden prompts driven through a real pseudo-terminal: typed secrets are used and never echoed. */
describe.skipIf(!ptyAvailable)('prompts in a terminal', () => {
  let server: RecordingServer
  beforeEach(async () => {
    server = await startRecordingServer((req) =>
      req.path.startsWith('/h2h/') ? {json: {id: CARD_ID}} : req.path === '/v1/customer' ? {json: {id: CUSTOMER_ID, ...req.body, status: 'unverified'}} : undefined,
    )
  })
  afterEach(() => server.close())

  it('card tokenize asks for the card number with a hidden prompt', async () => {
    const session = runInPty(['card', 'tokenize', '--customer', CUSTOMER_ID, '--expiry-month', '12', '--expiry-year', '2030', '--holder-name', 'Jane Doe'], {
      env: {PAYTX_H2H_URL: `${server.url}/h2h`, PAYTX_PROXY_KEY: PROXY_KEY},
    })
    await session.waitFor(/Card number \(hidden\)/)
    session.type('4024 0071 0817 3154\r')
    await session.waitFor(/Card number is not a valid card number/)
    // The rejected number is gone: the right one is typed into an empty prompt.
    session.type(`${PAN}\r`)
    expect(await session.exited).toBe(0)
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0].body.pan).toBe(PAN)
    expect(session.output()).toMatch(/Card\s+c4rd0000/)
    expect(session.output()).toContain('•••• 3153')
    expect(session.output()).not.toContain(PAN)
    expect(session.output()).not.toContain('4024 0071')
  })

  it('card tokenize asks for the hidden card number first, then checks each answer as it is typed, naming the field, never a flag', async () => {
    const session = runInPty(['card', 'tokenize'], {env: {PAYTX_H2H_URL: `${server.url}/h2h`, PAYTX_PROXY_KEY: PROXY_KEY}})
    // The hidden card number first: a number typed by habit at the first prompt never shows.
    await session.waitFor(/Card number \(hidden\)/)
    expect(session.output()).not.toMatch(/Customer id|Expiry month/)
    session.type(`${PAN}\r`)
    await session.waitFor(/Customer id/)
    session.type(`${CUSTOMER_ID}\r`)
    await answerExpiryAndHolder(session)
    expect(await session.exited).toBe(0)
    expect(server.requests).toHaveLength(1)
    expect(server.requests[0].body).toMatchObject({customer: CUSTOMER_ID, expiry_month: '07', expiry_year: '2030', holder_name: 'Jane Doe', pan: PAN})
    expect(session.output()).not.toMatch(/--expiry|--holder|--pan/)
    expect(session.output()).not.toContain(PAN)
  })

  // One rule for "interactive" (terminal/interactive.ts): even in a terminal, CI, --no-input and --json never prompt.
  it.each([
    ['CI is set', [], {CI: 'true'}],
    ['--no-input', ['--no-input'], {}],
    ['--json', ['--json'], {}],
  ] as [string, string[], Record<string, string>][])('card tokenize in a terminal does not prompt when %s: exit 2 naming --pan-stdin', async (_why, extra, env) => {
    const session = runInPty(['card', 'tokenize', '--customer', CUSTOMER_ID, '--expiry-month', '12', '--expiry-year', '2030', '--holder-name', 'Jane Doe', ...extra], {
      env: {PAYTX_H2H_URL: `${server.url}/h2h`, PAYTX_PROXY_KEY: PROXY_KEY, ...env},
    })
    expect(await session.exited).toBe(2)
    expect(session.output()).toContain('--pan-stdin')
    expect(session.output()).not.toContain('Card number (hidden)')
    expect(server.requests).toHaveLength(0)
  })

  it('profile add asks for both keys hidden; customer create asks for a missing field', async () => {
    const configDir = tempConfigDir()
    const add = runInPty(['profile', 'add', 'sandbox', '--base-url', `${server.url}/v1`, '--use'], {configDir})
    await add.waitFor(/API key \(empty to skip\)/)
    add.type(`${API_KEY}\r`)
    await add.waitFor(/Card proxy key/)
    add.type(`${PROXY_KEY}\r`)
    expect(await add.exited).toBe(0)
    expect(add.output()).not.toContain(API_KEY)
    expect(add.output()).not.toContain(PROXY_KEY)
    const stored = JSON.parse(readFileSync(join(configDir, 'profiles.json'), 'utf8'))
    expect(stored.profiles.sandbox).toMatchObject({api_key: API_KEY, proxy_key: PROXY_KEY, env: 'sandbox'})

    const flags = CUSTOMER_FLAGS.filter((_, i, all) => all[i] !== '--city' && all[i - 1] !== '--city')
    const create = runInPty(['customer', 'create', ...flags], {configDir})
    await create.waitFor(/City \(city\)/)
    create.type('Utrecht\r')
    expect(await create.exited).toBe(0)
    expect(server.requests.at(-1)?.body.city).toBe('Utrecht')
    expect(server.requests.at(-1)?.headers['x-apikey']).toBe(API_KEY)
  })

  it('flow on a production profile asks for the card, checking each answer as it is typed like card tokenize; declining sends nothing', async () => {
    const configDir = tempConfigDir()
    const added = runInPty(
      ['profile', 'add', 'live', '--env', 'production', '--base-url', `${server.url}/v1`, '--h2h-url', `${server.url}/h2h`, '--proxy-id', '1234567890123456', '--organisation', 'org-1', '--payment-profile', 'pp-1', '--insecure-storage'],
      {configDir},
    )
    await added.waitFor(/API key/)
    added.type(`${API_KEY}\r`)
    await added.waitFor(/Card proxy key/)
    added.type(`${PROXY_KEY}\r`)
    expect(await added.exited).toBe(0)

    const session = runInPty(['flow', '--profile', 'live', '--product', 'card', '--amount', '100', '--customer', CUSTOMER_ID, '--webhook', 'none', '--no-open'], {configDir})
    await session.waitFor(/Card number \(hidden\)/)
    session.type('4024 0071 0817 3154\r')
    await session.waitFor(/Card number is not a valid card number/)
    session.type(`${PAN}\r`)
    await answerExpiryAndHolder(session)
    await session.waitFor(/production/i)
    await session.waitFor(/\(y\/N\)/)
    session.type('n\r')
    expect(await session.exited).toBe(2)
    expect(session.output()).toMatch(/Cancelled; nothing was sent/)
    expect(session.output()).not.toMatch(/--expiry|--holder/)
    expect(session.output()).not.toContain(PAN)
    expect(server.requests).toHaveLength(0)
  })

  it('Ctrl-C at a prompt exits 130 and sends nothing', async () => {
    const session = runInPty(['transaction', 'start', '--product', 'card', '--card', CARD_ID, '--amount', '100', '--customer', CUSTOMER_ID, '--redirect-url', 'https://shop.example.com/return'], {
      env: {PAYTX_BASE_URL: `${server.url}/v1`},
    })
    await session.waitFor(/CVV \(hidden; empty to enter it on the approval page\)/)
    session.type('\x03')
    expect(await session.exited).toBe(130)
    expect(session.output()).toMatch(/Interrupted at a prompt; nothing was sent/)
    expect(server.requests).toHaveLength(0)
  })
})
