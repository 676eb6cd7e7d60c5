/**
 * The approval pages' forms in real Chromium, with JavaScript off: clicking posts exactly the
 * fields that scripts are told to post (`approvalFormFields`), and the browser's own form rules
 * (required CVV, cancel without one) behave. The pages are served by a tiny server around
 * `renderApprovalPage` / `decideApproval`, so these tests need no emulator.
 */
import {type Server, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {Transaction} from '../../src/api/schemas.js'
import {SOFORT_TEST_BANKS, approvalFormFields} from '../../src/test-mode/outcomes.js'
import {type ApprovalDecision, type ApprovalPageContext, decideApproval, renderApprovalPage} from '../../src/emulator/pages/index.js'
import {type BrowserPage, launchBrowser, openPage} from '../helpers/browser.js'

/** A submitted form's answer can take a while on a busy machine; vitest polls for 1 s by default. */
const NAVIGATION = {timeout: 10_000}
const XSS_DESCRIPTOR = `<img src=x onerror="document.title='pwned'">`

function pageContext(name: string, actionUrl: string): ApprovalPageContext {
  const product = name.startsWith('card') ? 'card' : name
  const transaction: Transaction = {
    id: `tx-${name}`,
    payment_product: product,
    amount: '1499',
    dynamic_descriptor: XSS_DESCRIPTOR,
    details: {redirect_url: 'http://127.0.0.1:9/return'},
    status: 'IN_PROGRESS',
    created_at: '2025-01-01T00:00:00.000Z',
    last_status_update: '2025-01-01T00:00:00.000Z',
  }
  return {
    transaction,
    card: product === 'card' ? {id: 'card-1', last4: '3153', brand: 'visa', holder_name: 'Erika Mustermann', expiry_month: '12', expiry_year: '2030', testOutcome: 'SETTLEMENT_COMPLETED'} : undefined,
    needsCvv: name === 'card-cvv',
    actionUrl,
  }
}

interface Posted {
  page: string
  fields: Record<string, string>
  decision: ApprovalDecision
}

let server: Server
let baseUrl: string
let browser: Browser
const posts: Posted[] = []

beforeAll(async () => {
  server = createServer((req, res) => {
    const name = (req.url ?? '/').slice(1)
    const ctx = pageContext(name, `/${name}`)
    if (req.method === 'GET') {
      res.writeHead(200, {'content-type': 'text/html; charset=utf-8'}).end(renderApprovalPage(ctx))
      return
    }
    let body = ''
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
    req.on('end', () => {
      const fields = Object.fromEntries(new URLSearchParams(body))
      const decision = decideApproval(ctx, fields)
      posts.push({page: name, fields, decision})
      if (decision.kind === 'invalid') {
        res.writeHead(400, {'content-type': 'text/html; charset=utf-8'}).end(renderApprovalPage(ctx, {error: decision.message}))
      } else {
        res.writeHead(200, {'content-type': 'text/plain'}).end(`completed ${decision.outcome}`)
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve))
})

async function withPage(name: string, run: (view: BrowserPage) => Promise<void>): Promise<void> {
  const view = await openPage(browser)
  try {
    await view.page.goto(`${baseUrl}/${name}`)
    await run(view)
    expect(view.problems).toEqual([])
  } finally {
    await view.close()
  }
}

function lastPost(): Posted {
  expect(posts.length).toBeGreaterThan(0)
  return posts.at(-1)!
}

describe('approval forms in Chromium (no JavaScript)', () => {
  it('dummy: each outcome button posts the documented field', async () => {
    for (const [label, outcome] of [
      ['Settle', 'SETTLEMENT_COMPLETED'],
      ['Pending, then settle', 'PENDING'],
      ['Decline', 'DECLINED'],
      ['Unknown', 'UNKNOWN'],
    ]) {
      await withPage('dummy', async ({page}) => {
        await page.getByRole('button', {name: new RegExp(`^${label} `)}).click()
        await expect.poll(() => page.textContent('body'), NAVIGATION).toBe(`completed ${outcome}`)
        expect(lastPost()).toMatchObject({page: 'dummy', fields: approvalFormFields('dummy', outcome)})
      })
    }
  })

  it('card: the browser refuses to pay without a CVV, pays with one, cancels without one', async () => {
    await withPage('card-cvv', async ({page}) => {
      const before = posts.length
      await page.getByRole('button', {name: 'Pay 14.99 EUR'}).click()
      expect(await page.locator('#cvv').evaluate((input: {validity: {valueMissing: boolean}}) => input.validity.valueMissing)).toBe(true)
      expect(posts.length).toBe(before)

      await page.getByLabel('Security code (CVV)').fill('123')
      await page.getByRole('button', {name: 'Pay 14.99 EUR'}).click()
      await expect.poll(() => page.textContent('body'), NAVIGATION).toBe('completed SETTLEMENT_COMPLETED')
      expect(lastPost().fields).toEqual(approvalFormFields('card', 'SETTLEMENT_COMPLETED'))
    })
    await withPage('card-cvv', async ({page}) => {
      await page.getByRole('button', {name: 'Cancel payment'}).click()
      await expect.poll(() => page.textContent('body'), NAVIGATION).toBe('completed CANCELLED')
      expect(lastPost().fields).toEqual({action: 'cancel', cvv: ''})
      expect(lastPost().decision).toMatchObject({kind: 'complete', outcome: 'CANCELLED'})
    })
  })

  it('card: a CVV the server rejects comes back as an alert on the same page, without the CVV', async () => {
    await withPage('card-cvv', async ({page}) => {
      // The browser's own pattern check would stop "12a"; a server must still reject it.
      await page.locator('#cvv').evaluate((input: {removeAttribute(name: string): void}) => input.removeAttribute('pattern'))
      await page.getByLabel('Security code (CVV)').fill('12a')
      await page.getByRole('button', {name: 'Pay 14.99 EUR'}).click()
      await expect.poll(() => page.getByRole('alert').textContent(), NAVIGATION).toBe('Enter the 3 or 4 digit security code (CVV) of your card.')
      expect(await page.locator('#cvv').inputValue()).toBe('')
      expect(await page.content()).not.toContain('12a')
    })
  })

  it('card without a CVV form pays with one click', async () => {
    await withPage('card', async ({page}) => {
      expect(await page.locator('#cvv').count()).toBe(0)
      expect(await page.locator('#card-number').textContent()).toBe('•••• •••• •••• 3153')
      await page.getByRole('button', {name: 'Pay 14.99 EUR'}).click()
      await expect.poll(() => page.textContent('body'), NAVIGATION).toBe('completed SETTLEMENT_COMPLETED')
      expect(lastPost().fields).toEqual({action: 'pay'})
    })
  })

  it('sofort: picking each bank and confirming posts the documented fields', async () => {
    expect(approvalFormFields('sofort', 'SETTLEMENT_COMPLETED')).toEqual({action: 'confirm', bank: SOFORT_TEST_BANKS[0].id})
    for (const bank of SOFORT_TEST_BANKS) {
      await withPage('sofort', async ({page}) => {
        await page.getByRole('radio', {name: new RegExp(`^${bank.name.replace(/[()]/g, '\\$&')}`)}).check()
        await page.getByRole('button', {name: 'Confirm transfer'}).click()
        await expect.poll(() => page.textContent('body'), NAVIGATION).toBe(`completed ${bank.outcome}`)
        expect(lastPost().fields).toEqual({bank: bank.id, action: 'confirm'})
      })
    }
  })

  it('sofort: cancelling posts action=cancel', async () => {
    await withPage('sofort', async ({page}) => {
      await page.getByRole('button', {name: 'Cancel payment'}).click()
      await expect.poll(() => page.textContent('body'), NAVIGATION).toBe('completed CANCELLED')
      expect(lastPost().fields.action).toBe('cancel')
    })
  })

  it('shows a hostile descriptor as text, even with JavaScript on', async () => {
    const view = await openPage(browser, {javaScript: true})
    try {
      await view.page.goto(`${baseUrl}/dummy`)
      expect(await view.page.title()).toBe('Dummy payment · paytx emulator')
      expect(await view.page.locator('dl.summary dd').first().textContent()).toBe(XSS_DESCRIPTOR)
      expect(await view.page.locator('img').count()).toBe(0)
    } finally {
      await view.close()
    }
  })
})
