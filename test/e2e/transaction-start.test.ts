/**
 * `transaction start --open` with a real BROWSER program; the rest is in
 * test/commands/transaction/start-runs.test.ts.
 */
import {chmodSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'

import {parseJsonOutput, runCli, tempConfigDir} from '../helpers/cli.js'
import {CUSTOMER_ID, TX_ID} from '../helpers/fixtures.js'
import type {RecordingServer} from '../helpers/recording-server.js'
import {startTransactionService} from '../helpers/transaction-service.js'
import {API_KEY} from '../helpers/secrets.js'

const REDIRECT = 'https://shop.example.com/return'
const BASE = ['--customer', CUSTOMER_ID, '--redirect-url', REDIRECT]

describe('transaction start', () => {
  let server: RecordingServer
  beforeEach(async () => {
    server = await startTransactionService()
  })
  afterEach(() => server.close())
  const env = (extra: Record<string, string> = {}) => ({PAYTX_BASE_URL: `${server.url}/v1`, PAYTX_API_KEY: API_KEY, ...extra})
  const start = (args: string[], options: {input?: string; env?: Record<string, string>} = {}) =>
    runCli(['transaction', 'start', ...args], {env: env(options.env), input: options.input})

  // Every input rule is a row of test/commands/transaction/start.test.ts (in-process); these few
  // check the real contract: exit 2, the message on stderr, nothing on stdout, nothing sent.
  it('--open runs BROWSER with the approval URL', async () => {
    const dir = tempConfigDir()
    const opened = join(dir, 'opened.txt')
    const browser = join(dir, 'fake-browser.sh')
    writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$@" > '${opened}'\n`)
    chmodSync(browser, 0o755)
    const result = await start(['--product', 'dummy', '--amount', '100', ...BASE, '--open', '--json'], {env: {BROWSER: browser}})
    expect(result.code).toBe(0)
    parseJsonOutput(result)
    for (let i = 0; i < 50 && !existsSync(opened); i++) await new Promise((r) => setTimeout(r, 20))
    expect(readFileSync(opened, 'utf8').trim()).toBe(`${server.url}/v1/transaction/${TX_ID}/authorize`)

    const broken = await start(['--product', 'dummy', '--amount', '100', ...BASE, '--open'], {env: {BROWSER: join(dir, 'no-such-browser')}})
    expect(broken.code).toBe(0)
    expect(broken.stderr).toMatch(/Warning: could not run BROWSER=.*open the approval URL yourself/)
  })
})
