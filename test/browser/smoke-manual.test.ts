/**
 * A manual smoke case: the runner prints the approval page (with --no-open), a person (here
 * Chromium) completes it, and the case is judged like any other.
 */
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {startCli} from '../helpers/cli.js'
import {launchBrowser, openPage} from '../helpers/browser.js'

describe('smoke run with a manual case', () => {
  let emulator: RunningEmulator
  let browser: Browser
  beforeAll(async () => {
    emulator = await startEmulator({port: 0, settleAfterMs: 0})
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await emulator?.close()
  })

  it('prints the approval page, waits for the person, and checks the outcome they chose', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paytx-smoke-manual-'))
    const file = join(dir, 'manual.yaml')
    writeFileSync(
      file,
      `cases:
  - name: by-hand
    product: dummy
    amount: 1499
    outcome: manual
    wait_timeout: 30s
    expect: {status: DECLINED, success: false, webhooks: {contains: [DECLINED]}}
`,
    )
    const cli = startCli(['smoke', 'run', file, '--no-open'], {
      env: {PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl},
      timeoutMs: 45_000,
    })
    const [, url] = await cli.waitForStderr(/by-hand: approval page\s+(http:\/\/\S+\/authorize)/, 20_000)
    await cli.waitForStderr(/by-hand: waiting  for the redirect: complete the payment in the browser; 30s left/)
    const {page, problems, close} = await openPage(browser)
    try {
      await page.goto(url)
      await page.click('button[value="DECLINED"]')
      expect(await page.textContent('body')).toMatch(/finished|terminal/i)
    } finally {
      await close()
    }
    const result = await cli.done
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toMatch(/^by-hand\s+\S+\s+DECLINED, no success, webhooks ⊇ \[DECLINED\]\s+DECLINED, no success, \d+ webhooks\s+\S+ m?s\s+pass$/m)
    expect(problems).toEqual([])
  }, 60_000)
})
