/**
 * A plain HTTP client for the emulator in tests (Node's fetch, not paytx's own client), so that
 * a misunderstanding shared by the CLI and the emulator cannot hide.
 */
import {type RunningEmulator} from '../../src/emulator/index.js'
import {TEST_CARD_CVV} from '../../src/test-mode/outcomes.js'
import {CUSTOMER_FIELDS} from './fixtures.js'

export interface Answer<T = any> {
  status: number
  headers: Headers
  text: string
  body: T
}

async function answer<T>(response: Response): Promise<Answer<T>> {
  const text = await response.text()
  let body: any
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = undefined
  }
  return {status: response.status, headers: response.headers, text, body}
}

export function emulatorApi(emulator: RunningEmulator) {
  const apiHeaders = {'content-type': 'application/json', [emulator.apiKeyHeader]: emulator.apiKey}
  const post = async <T = any>(url: string, body: unknown, headers: Record<string, string> = apiHeaders) =>
    answer<T>(await fetch(url, {method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body)}))
  const get = async <T = any>(path: string, headers: Record<string, string> = apiHeaders) => answer<T>(await fetch(`${emulator.url}${path}`, {headers}))

  const api = {
    apiHeaders,
    post,
    get,
    createCustomer: (overrides: Record<string, unknown> = {}) =>
      post(`${emulator.url}/v1/customer`, {...CUSTOMER_FIELDS, organisation: emulator.organisation, ...overrides}),
    tokenize: (customer: string, pan: string, overrides: Record<string, unknown> = {}) =>
      post(
        `${emulator.proxyUrl}/tokenize/proxy/${emulator.proxyId}`,
        {customer, pan, holder_name: 'Jana Jansen', expiry_month: '12', expiry_year: '2031', organisation: emulator.organisation, ...overrides},
        {'content-type': 'application/json', 'TX-Proxy-Key': emulator.proxyKey},
      ),
    start: (body: Record<string, unknown>) => post(`${emulator.url}/v1/transaction/start`, body),
    transaction: (id: string) => get(`/v1/transaction/${id}`),
    checkoutSuccess: (id: string) => get(`/v1/transaction/${id}/checkoutsuccess`),
    /** Opens the approval page as a browser would (GET, no redirects followed). */
    openApproval: async (approvalUrl: string) => answer(await fetch(approvalUrl, {redirect: 'manual'})),
    /** Completes the approval page with one urlencoded POST, as a script would. */
    approve: async (approvalUrl: string, fields: Record<string, string>) =>
      answer(
        await fetch(approvalUrl, {
          method: 'POST',
          headers: {'content-type': 'application/x-www-form-urlencoded'},
          body: new URLSearchParams(fields).toString(),
          redirect: 'manual',
        }),
      ),
    /** A customer, a card (card product) and a started transaction. */
    async startPayment(product: 'card' | 'sofort' | 'dummy', options: {pan?: string; cvv?: boolean; extra?: Record<string, unknown>} = {}) {
      const customer = (await api.createCustomer()).body
      let card: string | undefined
      if (product === 'card') card = (await api.tokenize(customer.id, options.pan ?? '4024007108173153')).body.id
      const started = await api.start({
        payment_profile: emulator.paymentProfileId,
        amount: 1499,
        customer: customer.id,
        customer_ip: '203.0.113.7',
        dynamic_descriptor: product === 'sofort' ? 'Order 42 Müller' : 'Order 42',
        merchant_reference: 'order-42',
        payment_product: product,
        user_agent: 'Mozilla/5.0 (test)',
        ...(card ? {card} : {}),
        details: {redirect_url: 'https://shop.example/return?order=42', ...(product === 'card' && options.cvv ? {card_cvv: TEST_CARD_CVV} : {})},
        ...options.extra,
      })
      if (started.status !== 200) throw new Error(`start failed: ${started.status} ${started.text}`)
      return {customer, card, transaction: started.body}
    },
  }
  return api
}
