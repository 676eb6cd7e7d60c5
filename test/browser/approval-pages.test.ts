/**
 * The emulator's approval pages end to end in real Chromium (JavaScript off, as the pages must
 * work without it): a transaction is created over plain HTTP, its approval URL opened, the page
 * completed by clicking, and the browser must land on the redirect URL with `transaction_id` (and
 * the URL's own query kept). The final status is then read back over the API.
 */
import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {Transaction} from '../../src/api/schemas.js'
import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {type BrowserPage, launchBrowser, openPage} from '../helpers/browser.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'

const APPROVE_PAN = '4024007108173153'
const DECLINE_PAN = '4000000000000002'
const PENDING_PAN = '4000000000000259'

let emulator: RunningEmulator
let shop: RecordingServer
let browser: Browser

beforeAll(async () => {
  ;[emulator, shop, browser] = await Promise.all([
    startEmulator({port: 0, settleAfterMs: 0, pendingForMs: 0, abandonAfterMs: 600_000}),
    startRecordingServer(() => ({status: 200, text: '<!doctype html><title>Back at the shop</title><p>Thanks</p>', headers: {'content-type': 'text/html'}})),
    launchBrowser(),
  ])
})

afterAll(async () => {
  await Promise.all([browser?.close(), shop?.close(), emulator?.close()])
})

async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: {[emulator.apiKeyHeader]: emulator.apiKey, ...(body === undefined ? {} : {'content-type': 'application/json'})},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const json = (await response.json()) as T
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${JSON.stringify(json)}`)
  return json
}

async function createCustomer(firstName = 'Erika', lastName = 'Mustermann'): Promise<string> {
  const customer = await api('POST', '/v1/customer', {
    title: 'ms',
    first_name: firstName,
    last_name: lastName,
    email_address: 'erika@example.com',
    country_code: 'DE',
    city: 'Berlin',
    street_address: 'Heidestrasse',
    house_number: '17',
    postal_code: '10557',
    phone_number: '+4930123456',
    organisation: emulator.organisation,
  })
  return customer.id
}

async function tokenizeCard(customer: string, pan: string): Promise<string> {
  const response = await fetch(`${emulator.proxyUrl}/tokenize/proxy/${emulator.proxyId}`, {
    method: 'POST',
    headers: {'TX-Proxy-Key': emulator.proxyKey, 'content-type': 'application/json'},
    body: JSON.stringify({customer, pan, expiry_month: '12', expiry_year: '2030', holder_name: 'Erika Mustermann'}),
  })
  const card = (await response.json()) as {id: string}
  expect(response.status).toBe(200)
  return card.id
}

interface Started {
  transaction: Transaction
  redirectUrl: string
}

async function startTransaction(product: 'dummy' | 'card' | 'sofort', extra: {card?: string; cvv?: string; customer?: string; descriptor?: string} = {}): Promise<Started> {
  const customer = extra.customer ?? (await createCustomer())
  // The shop's own query must survive the redirect.
  const redirectUrl = `${shop.url}/shop/return?order=42&lang=de`
  const transaction = await api<Transaction>('POST', '/v1/transaction/start', {
    payment_profile: emulator.paymentProfileId,
    amount: 1499,
    customer,
    customer_ip: '127.0.0.1',
    dynamic_descriptor: extra.descriptor ?? 'Order 42',
    merchant_reference: 'order-42',
    payment_product: product,
    user_agent: 'paytx-browser-test',
    ...(extra.card ? {card: extra.card} : {}),
    details: {redirect_url: redirectUrl, ...(extra.cvv ? {card_cvv: extra.cvv} : {})},
  })
  expect(transaction.status).toBe('INITIATED')
  return {transaction, redirectUrl}
}

async function statusOf(id: string): Promise<Transaction> {
  return api<Transaction>('GET', `/v1/transaction/${id}`)
}

/** Settlement runs on timers (0 ms here), so the final status may be a moment behind the redirect. */
async function finalStatus(id: string, expected: string): Promise<Transaction> {
  await expect.poll(async () => (await statusOf(id)).status, {timeout: 10_000, interval: 25}).toBe(expected)
  return statusOf(id)
}

/** Opens the approval page and checks what every page shows, and that opening it moved the status. */
async function openApproval(started: Started): Promise<BrowserPage> {
  const view = await openPage(browser)
  const response = await view.page.goto(started.transaction.details.approval_url!)
  expect(response?.status()).toBe(200)
  expect(await view.page.locator('#amount').textContent()).toBe('14.99 EUR')
  expect(await view.page.locator('#transaction-id').textContent()).toBe(started.transaction.id)
  expect(await view.page.locator('#status').textContent()).toBe('IN_PROGRESS')
  expect((await statusOf(started.transaction.id)).status).toBe('IN_PROGRESS')
  return view
}

/** Waits for the browser to arrive at the shop and returns the query it arrived with. */
async function landedAtShop(view: BrowserPage, started: Started): Promise<URLSearchParams> {
  await view.page.waitForURL((url) => url.href.startsWith(`${shop.url}/shop/return?`))
  expect(await view.page.title()).toBe('Back at the shop')
  const url = new URL(view.page.url())
  expect(url.searchParams.get('order')).toBe('42')
  expect(url.searchParams.get('lang')).toBe('de')
  expect(url.searchParams.get('transaction_id')).toBe(started.transaction.id)
  expect(shop.requests.some((request) => request.method === 'GET' && request.path === `${url.pathname}${url.search}`)).toBe(true)
  expect(view.problems).toEqual([])
  return url.searchParams
}

describe('dummy approval page', () => {
  it.each([
    ['Settle', 'SETTLEMENT_COMPLETED', true],
    ['Pending, then settle', 'SETTLEMENT_COMPLETED', true],
    ['Decline', 'DECLINED', false],
    ['Cancel', 'CANCELLED', false],
    ['Unknown', 'UNKNOWN', false],
  ])('clicking "%s" lands on the redirect URL and leaves the transaction %s', async (button, expected, success) => {
    const started = await startTransaction('dummy')
    const view = await openApproval(started)
    try {
      await view.page.getByRole('button', {name: new RegExp(`^${button} `)}).click()
      const query = await landedAtShop(view, started)
      expect(query.has('error')).toBe(false)
    } finally {
      await view.close()
    }
    await finalStatus(started.transaction.id, expected)
    const checkout = await api('GET', `/v1/transaction/${started.transaction.id}/checkoutsuccess`)
    expect(checkout).toMatchObject({status: expected, success})
  })
})

describe('card approval page', () => {
  it('asks for the CVV when the transaction has none, then pays with the approving test card', async () => {
    const customer = await createCustomer()
    const started = await startTransaction('card', {customer, card: await tokenizeCard(customer, APPROVE_PAN)})
    const view = await openApproval(started)
    try {
      const html = await view.page.content()
      expect(html).not.toContain(APPROVE_PAN)
      expect(await view.page.locator('#card-number').textContent()).toBe('•••• •••• •••• 3153')
      expect(await view.page.locator('#card-holder').textContent()).toBe('Erika Mustermann')
      expect(await view.page.locator('#card-expiry').textContent()).toBe('12/2030')

      // Without a CVV the browser does not even send the form.
      await view.page.getByRole('button', {name: 'Pay 14.99 EUR'}).click()
      expect(await view.page.locator('#cvv').evaluate((input: {validity: {valueMissing: boolean}}) => input.validity.valueMissing)).toBe(true)
      expect(view.page.url()).toBe(started.transaction.details.approval_url)
      expect((await statusOf(started.transaction.id)).status).toBe('IN_PROGRESS')

      await view.page.getByLabel('Security code (CVV)').fill('123')
      await view.page.getByRole('button', {name: 'Pay 14.99 EUR'}).click()
      await landedAtShop(view, started)
    } finally {
      await view.close()
    }
    await finalStatus(started.transaction.id, 'SETTLEMENT_COMPLETED')
  })

  it('pays without a CVV form when the CVV came with the start request; the declining card declines', async () => {
    const customer = await createCustomer()
    const started = await startTransaction('card', {customer, card: await tokenizeCard(customer, DECLINE_PAN), cvv: '123'})
    const view = await openApproval(started)
    try {
      expect(await view.page.locator('#cvv').count()).toBe(0)
      expect(await view.page.locator('#card-number').textContent()).toBe('•••• •••• •••• 0002')
      await view.page.getByRole('button', {name: 'Pay 14.99 EUR'}).click()
      await landedAtShop(view, started)
    } finally {
      await view.close()
    }
    const declined = await finalStatus(started.transaction.id, 'DECLINED')
    expect(declined.status_reason).toContain('declined')
  })

  it('settles the pending test card through PENDING', async () => {
    const customer = await createCustomer()
    const started = await startTransaction('card', {customer, card: await tokenizeCard(customer, PENDING_PAN), cvv: '123'})
    const view = await openApproval(started)
    try {
      await view.page.getByRole('button', {name: 'Pay 14.99 EUR'}).click()
      await landedAtShop(view, started)
    } finally {
      await view.close()
    }
    await finalStatus(started.transaction.id, 'SETTLEMENT_COMPLETED')
  })

  it('cancels from the CVV form without entering one', async () => {
    const customer = await createCustomer()
    const started = await startTransaction('card', {customer, card: await tokenizeCard(customer, APPROVE_PAN)})
    const view = await openApproval(started)
    try {
      await view.page.getByRole('button', {name: 'Cancel payment'}).click()
      await landedAtShop(view, started)
    } finally {
      await view.close()
    }
    await finalStatus(started.transaction.id, 'CANCELLED')
  })

  it('re-renders the page with the message (HTTP 400) when a script posts a bad CVV', async () => {
    const customer = await createCustomer()
    const started = await startTransaction('card', {customer, card: await tokenizeCard(customer, APPROVE_PAN)})
    const response = await fetch(started.transaction.details.approval_url!, {
      method: 'POST',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: 'action=pay&cvv=12',
      redirect: 'manual',
    })
    expect(response.status).toBe(400)
    const html = await response.text()
    expect(html).toContain('<p class="error" role="alert" id="form-error">Enter the 3 or 4 digit security code (CVV) of your card.</p>')
    expect(html).not.toContain('value="12"')
    expect((await statusOf(started.transaction.id)).status).toBe('IN_PROGRESS')
  })
})

describe('sofort approval page', () => {
  it('confirms at a chosen bank and fills the sender with the customer as holder', async () => {
    const customer = await createCustomer('Jan', 'Jansen')
    const started = await startTransaction('sofort', {customer})
    const view = await openApproval(started)
    try {
      await view.page.getByRole('radio', {name: /^Musterbank Berlin/}).check()
      await view.page.getByRole('button', {name: 'Confirm transfer'}).click()
      await landedAtShop(view, started)
    } finally {
      await view.close()
    }
    const settled = await finalStatus(started.transaction.id, 'SETTLEMENT_COMPLETED')
    const sender = settled.details.sender!
    expect(sender).toMatchObject({country_code: 'DE', bic: 'MUSTDEBBXXX', bank_name: 'Musterbank Berlin', bank_code: '10070000', holder: 'Jan Jansen'})
    expect(sender.iban).toMatch(new RegExp(`^DE\\d{2}10070000${sender.account_number}$`))
  })

  it('is declined by the declining test bank and cancelled by Cancel', async () => {
    const declining = await startTransaction('sofort')
    let view = await openApproval(declining)
    try {
      await view.page.getByRole('radio', {name: /^Testbank \(declines\)/}).check()
      await view.page.getByRole('button', {name: 'Confirm transfer'}).click()
      await landedAtShop(view, declining)
    } finally {
      await view.close()
    }
    await finalStatus(declining.transaction.id, 'DECLINED')

    const cancelling = await startTransaction('sofort')
    view = await openApproval(cancelling)
    try {
      await view.page.getByRole('button', {name: 'Cancel payment'}).click()
      await landedAtShop(view, cancelling)
    } finally {
      await view.close()
    }
    await finalStatus(cancelling.transaction.id, 'CANCELLED')
  })
})

describe('when the page cannot complete', () => {
  it('sends the browser back with a readable error when the transaction is already final', async () => {
    const started = await startTransaction('dummy')
    const first = await openApproval(started)
    try {
      await first.page.getByRole('button', {name: /^Decline /}).click()
      await landedAtShop(first, started)
      await finalStatus(started.transaction.id, 'DECLINED')

      await first.page.goto(started.transaction.details.approval_url!)
      const query = await landedAtShop(first, started)
      expect(query.get('error')).toMatch(/already DECLINED/)
      expect(new URL(first.page.url()).search).toContain(`error=${encodeURIComponent(query.get('error')!)}`)
    } finally {
      await first.close()
    }
    expect((await statusOf(started.transaction.id)).status).toBe('DECLINED')
  })

  it('shows an error page for an unknown transaction id', async () => {
    const view = await openPage(browser)
    try {
      const response = await view.page.goto(`${emulator.url}/v1/transaction/no-such-id/authorize`)
      expect(response?.status()).toBe(404)
      expect(await view.page.getByRole('heading', {level: 1}).textContent()).toBe('Unknown transaction')
      expect(await view.page.getByRole('alert').textContent()).toContain('no-such-id')
      expect(view.page.url()).toBe(`${emulator.url}/v1/transaction/no-such-id/authorize`)
    } finally {
      await view.close()
    }
  })

  it('shows a hostile descriptor as text, even with JavaScript on', async () => {
    const hostile = `<img src=x onerror="document.title='pwned'">`
    const started = await startTransaction('dummy', {descriptor: hostile})
    const view = await openPage(browser, {javaScript: true})
    try {
      await view.page.goto(started.transaction.details.approval_url!)
      expect(await view.page.locator('dl.summary dd').first().textContent()).toBe(hostile)
      expect(await view.page.locator('img').count()).toBe(0)
      expect(await view.page.title()).toBe('Dummy payment · paytx emulator')
    } finally {
      await view.close()
    }
  })
})
