/**
 * `paytx flow` with a person in the loop, played by real Chromium: it opens the approval page the
 * flow prints (--no-open), clicks through it, follows the emulator's redirect and lands on the
 * flow's listener page, while the spawned CLI reports the verdict.
 */
import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {type BrowserPage, launchBrowser, openPage} from '../helpers/browser.js'
import {parseJsonOutput, startCli} from '../helpers/cli.js'

let emulator: RunningEmulator
let browser: Browser
let tab: BrowserPage | undefined
const env = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl})

beforeAll(async () => {
  // Settlement far off, so the page and the verdict show SETTLEMENT_REQUESTED however slow the machine.
  emulator = await startEmulator({port: 0, settleAfterMs: 120_000, webhookBackoffMs: 20})
  browser = await launchBrowser()
})
afterAll(async () => {
  await tab?.close()
  await browser?.close()
  await emulator?.close()
})

async function approvalUrlOf(cli: ReturnType<typeof startCli>): Promise<string> {
  const [, url] = await cli.waitForStderr(/approval page +(http:\S+)/)
  return url
}

describe('paytx flow in Chromium', () => {
  it('dummy: clicking "Settle" lands on the listener page saying success, and the flow exits 0', async () => {
    const cli = startCli(['flow', '--product', 'dummy', '--amount', '1499', '--no-open', '--json'], {env: env(), timeoutMs: 40_000})
    tab = await openPage(browser)
    const {page, problems} = tab
    await page.goto(await approvalUrlOf(cli))
    await page.getByRole('button', {name: /Settle/}).first().click()
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/flow\/[\w-]+\/redirect\?transaction_id=/)
    await expect(page.locator('#headline').textContent()).resolves.toBe('Payment finished: success')
    await expect(page.locator('#status').textContent()).resolves.toBe('SETTLEMENT_REQUESTED')
    expect(await page.textContent('body')).toContain('has the result, read from the service')

    const result = await cli.done
    expect(result.code, result.stderr).toBe(0)
    const summary = parseJsonOutput(result)
    expect(summary).toMatchObject({status: 'SETTLEMENT_REQUESTED', success: true, redirect: {received: true}, rejectedRequests: 0})
    await expect(page.locator('#transaction').textContent()).resolves.toBe(summary.transactionId)
    expect(problems).toEqual([])
    await tab.close()
    tab = undefined
  }, 45_000)

  it('card: a declining card piped to --pan-stdin, the CVV typed on the page, a landing page saying not a success', async () => {
    const pan = '4000000000000002'
    const cli = startCli(['flow', '--product', 'card', '--amount', '2500', '--pan-stdin', '--no-open'], {env: env(), input: `${pan}\n`, timeoutMs: 40_000})
    tab = await openPage(browser)
    const {page, problems} = tab
    await page.goto(await approvalUrlOf(cli))
    await page.locator('#cvv').fill('123')
    await page.getByRole('button', {name: /^Pay/}).click()
    await page.waitForURL(/\/flow\/[\w-]+\/redirect\?transaction_id=/)
    await expect(page.locator('#headline').textContent()).resolves.toBe('Payment finished: not a success')
    await expect(page.locator('#status').textContent()).resolves.toBe('DECLINED')

    const result = await cli.done
    expect(result.code, result.stderr).toBe(3)
    expect(result.stdout).toMatch(/^Status +DECLINED \(final, not a success\)$/m)
    expect(result.stdout).toMatch(/^Card +\S+ +•••• 0002$/m)
    expect(`${result.stdout}${result.stderr}`).not.toContain(pan)
    expect(problems).toEqual([])
  }, 45_000)
})
