/**
 * The approval flow through the real emulator in Chromium (JavaScript off): open the
 * approval URL the API returned, complete the page by clicking, and land on the redirect URL
 * with `transaction_id`, under the headers (CSP included) the emulator really sends.
 */
import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {type BrowserPage, launchBrowser, openPage} from '../helpers/browser.js'
import {emulatorApi} from '../helpers/emulator-api.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'

let emulator: RunningEmulator
let shop: RecordingServer
let browser: Browser
let api: ReturnType<typeof emulatorApi>

beforeAll(async () => {
  shop = await startRecordingServer(() => ({status: 200, text: '<!doctype html><title>Shop</title><p>Back at the shop</p>', headers: {'content-type': 'text/html'}}))
  emulator = await startEmulator({port: 0, settleAfterMs: 0})
  api = emulatorApi(emulator)
  browser = await launchBrowser()
})
afterAll(async () => {
  await browser?.close()
  await emulator?.close()
  await shop?.close()
})

async function approveInBrowser(product: 'dummy' | 'card' | 'sofort', act: (view: BrowserPage) => Promise<void>, options: {pan?: string} = {}) {
  const {transaction} = await api.startPayment(product, {pan: options.pan, extra: {details: {redirect_url: `${shop.url}/return?order=42`}}})
  const view = await openPage(browser)
  try {
    await view.page.goto(transaction.details.approval_url)
    expect((await api.transaction(transaction.id)).body.status).toBe('IN_PROGRESS')
    await act(view)
    await view.page.waitForURL(`${shop.url}/return?order=42&transaction_id=${transaction.id}`)
    await expect(view.page.locator('p').textContent()).resolves.toBe('Back at the shop')
    expect(view.problems).toEqual([])
    return (await api.transaction(transaction.id)).body
  } finally {
    await view.close()
  }
}

describe('approval pages served by the emulator, in Chromium', () => {
  it('dummy: clicking Decline lands on the redirect URL and declines', async () => {
    const transaction = await approveInBrowser('dummy', ({page}) => page.click('button[name="outcome"][value="DECLINED"]'))
    expect(transaction.status).toBe('DECLINED')
  })

  it('card: the CVV form pays with the approving test card', async () => {
    const transaction = await approveInBrowser('card', async ({page}) => {
      await page.fill('input[name="cvv"]', '123')
      await page.click('button[name="action"][value="pay"]')
    })
    expect(transaction.status).toBe('SETTLEMENT_COMPLETED')
  })

  it('sofort: picking a bank and confirming fills the sender', async () => {
    const transaction = await approveInBrowser('sofort', async ({page}) => {
      await page.check('input[name="bank"][value="musterbank"]')
      await page.click('button[name="action"][value="confirm"]')
    })
    expect(transaction.status).toBe('SETTLEMENT_COMPLETED')
    expect(transaction.details.sender).toMatchObject({bic: 'MUSTDEBBXXX', holder: 'Jane Doe'})
  })

  it('a page opened again after completion lands on the redirect URL with error', async () => {
    const {transaction} = await api.startPayment('dummy', {extra: {details: {redirect_url: `${shop.url}/return`}}})
    await api.approve(transaction.details.approval_url, {outcome: 'CANCELLED'})
    const view = await openPage(browser)
    try {
      await view.page.goto(transaction.details.approval_url)
      const url = new URL(view.page.url())
      expect(url.origin + url.pathname).toBe(`${shop.url}/return`)
      expect(url.searchParams.get('transaction_id')).toBe(transaction.id)
      expect(url.searchParams.get('error')).toBe('The transaction is already CANCELLED; it cannot be approved again.')
    } finally {
      await view.close()
    }
  })
})
