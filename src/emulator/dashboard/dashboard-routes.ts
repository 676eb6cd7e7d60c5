/**
 * The dashboard's routes: the root page (recent transactions, a search), one transaction's page,
 * and the two forms that change things (trigger a status, resend webhooks).
 *
 * How it is protected on a local emulator: the pages show test data only (never a PAN or a CVV,
 * which the store does not hold), like the open delivery log, so reading needs no API key. But
 * no other site may read or drive them: every route answers only requests whose Host is this
 * emulator's own address (a DNS-rebinding page on another name gets 403); the forms POST only,
 * carry a random token made when this emulator started (a page elsewhere cannot read it), and a
 * POST whose Origin or Sec-Fetch-Site says it came from another site is refused. The pages are
 * never framed (CSP frame-ancestors 'none').
 */
import {randomBytes, timingSafeEqual} from 'node:crypto'
import type {IncomingMessage, ServerResponse} from 'node:http'

import {type TransactionStatus, isKnownStatus} from '../../api/contract.js'
import {crossSiteRequest, isOwnHost, listensOnLoopbackOnly} from '../../http/own-host.js'
import {isAbsoluteHttpUrl} from '../../http/url.js'
import type {AssumptionSettings} from '../assumptions.js'
import type {Clock, TransactionLifecycle} from '../time/index.js'
import {DASHBOARD_PATHS, type TransactionListItem, renderDashboardError, renderDashboardHome, renderTransactionPage} from './dashboard-pages.js'
import {ApiError, isFormMediaType, parseFormBody, queryText, readBody, redirect, sendHtml} from '../http-exchange.js'
import type {Handler, Route} from '../router.js'
import type {EmulatorStore, TransactionPages} from '../store/index.js'
import {resendWebhooks, triggerStatus} from '../admin/index.js'

export interface DashboardRouteSettings {
  /** Where lists and searches are read. */
  pages: TransactionPages
  maxBodyBytes: number
  assumptions: AssumptionSettings
  clock: Clock
  /** The address the emulator listens on (`--host`): beyond loopback, it is reached by other names on purpose. */
  listenHost: string
  /** The addresses it is reached at (known once listening): its own, and its public one when it has one. */
  ownUrls(): readonly string[]
  /** Wakes the scheduler for the deliveries queued now. */
  due(at: number): void
}

/** How many transactions the root page lists. */
const LISTED = 50

function sameToken(given: string | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? '')
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** A refusal (403) is a page for the person at the browser, not a JSON object. */
function asPage(handler: Handler): Handler {
  return async (request, response, params) => {
    try {
      await handler(request, response, params)
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 403) throw error
      request.resume()
      sendHtml(response, 403, renderDashboardError('Refused', error.message))
    }
  }
}

/** What the page says after a form did its work: from a fixed set, never text from the address. */
function noticeFor(store: EmulatorStore, query: URLSearchParams, id: string): string | undefined {
  if (query.get('done') === 'trigger') return `Moved to ${store.transaction(id)?.transaction.status ?? 'the new status'}; its webhook is on its way.`
  const count = Number(query.get('count'))
  if (query.get('done') === 'resend' && Number.isInteger(count) && count > 0) return `Queued ${count} webhook${count === 1 ? '' : 's'} again.`
  return undefined
}

/** The dashboard's handlers over one store, with the token its forms carry (new at each start). */
class Dashboard {
  private readonly formToken = randomBytes(24).toString('base64url')

  constructor(
    private readonly store: EmulatorStore,
    private readonly lifecycle: TransactionLifecycle,
    private readonly settings: DashboardRouteSettings,
  ) {}

  readonly home: Handler = async (request, response) => {
    this.requireOwnHost(request)
    const query = new URLSearchParams(request.url?.split('?')[1] ?? '')
    const search = (queryText(query, 'q') ?? '').trim()
    const before = queryText(query, 'before')
    // Read off this thread (store/query-thread.ts): requests that come meanwhile are answered.
    const page = await this.settings.pages.page({limit: LISTED, ...(search ? {search} : {}), ...(before ? {before} : {})})
    // A page often shows one customer many times: each is read once.
    const names = new Map<string | undefined, string>()
    const nameOf = (id: string | undefined) => names.get(id) ?? names.set(id, this.customerName(id)).get(id)!
    const items: TransactionListItem[] = page.transactions.map(({transaction}) => ({transaction, customerName: nameOf(transaction.customer)}))
    sendHtml(response, 200, renderDashboardHome(items, search, {older: page.next, paged: before !== undefined}))
  }

  readonly transaction: Handler = (request, response, [id]) => {
    this.requireOwnHost(request)
    this.showTransaction(response, id, 200, {notice: noticeFor(this.store, new URLSearchParams(request.url?.split('?')[1] ?? ''), id)})
  }

  readonly trigger: Handler = async (request, response, [id]) => {
    const form = await this.readForm(request)
    try {
      if (!isKnownStatus(form.status ?? '')) throw new ApiError(400, 'Choose a status.', {status: 'Choose one of the statuses in the list.'})
      triggerStatus(this.store, this.lifecycle, id, {status: form.status as TransactionStatus, ...(form.reason?.trim() ? {reason: form.reason.trim()} : {}), force: form.force === 'true'})
    } catch (error) {
      return this.refused(response, id, error)
    }
    redirect(response, `${DASHBOARD_PATHS.transaction(id)}?done=trigger`)
  }

  readonly resend: Handler = async (request, response, [id]) => {
    const form = await this.readForm(request)
    const {clock, assumptions} = this.settings
    let count: number
    try {
      const to = form.to?.trim()
      if (to && !isAbsoluteHttpUrl(to)) throw new ApiError(400, 'Not an address.', {to: 'To must be an absolute http(s) address, such as http://127.0.0.1:3000/webhooks.'})
      count = resendWebhooks(this.store, clock, assumptions, id, {all: form.which === 'all', ...(to ? {to} : {})}).length
    } catch (error) {
      return this.refused(response, id, error)
    }
    this.settings.due(clock.now())
    redirect(response, `${DASHBOARD_PATHS.transaction(id)}?done=resend&count=${count}`)
  }

  /** Answers 403 unless the request is addressed to this emulator by one of its names (any, beyond loopback, as the admin routes). */
  private requireOwnHost(request: IncomingMessage): void {
    if (!listensOnLoopbackOnly(this.settings.listenHost)) return
    if (!isOwnHost(request.headers.host, this.settings.ownUrls())) {
      throw new ApiError(403, `The dashboard answers only at ${this.settings.ownUrls().join(' or ')}.`, {host: 'not this emulator\'s address'})
    }
  }

  /** The form's fields, once the POST is shown to come from this emulator's own page. */
  private async readForm(request: IncomingMessage): Promise<Record<string, string>> {
    this.requireOwnHost(request)
    if (crossSiteRequest(request.headers, this.settings.ownUrls()) !== undefined || !isFormMediaType(request)) {
      request.resume()
      throw new ApiError(403, 'This form is accepted only from the dashboard\'s own page.', {form: 'cross-site or not a form post'})
    }
    const form = parseFormBody(await readBody(request, this.settings.maxBodyBytes))
    if (!sameToken(form.token, this.formToken)) {
      throw new ApiError(403, 'The form is out of date (the emulator restarted since it was shown): reload the page and try again.', {token: 'does not match'})
    }
    return form
  }

  private customerName(customerId: string | undefined): string {
    const customer = customerId ? this.store.customer(customerId) : undefined
    return customer ? `${customer.first_name} ${customer.last_name}`.trim() || customer.email_address : ''
  }

  private showTransaction(response: ServerResponse, id: string, status: number, message: {notice?: string; error?: string} = {}): void {
    this.lifecycle.catchUp(id)
    const entry = this.store.transaction(id)
    if (!entry) return sendHtml(response, 404, renderDashboardError('Unknown transaction', `No transaction has the id ${JSON.stringify(id)}.`))
    const {transaction} = entry
    const profile = transaction.payment_profile ? this.store.paymentProfile(transaction.payment_profile) : undefined
    const webhookAddress = transaction.webhook_transaction_update || profile?.webhook_transaction_update || undefined
    sendHtml(
      response,
      status,
      renderTransactionPage({
        transaction,
        customerName: this.customerName(transaction.customer),
        ...(webhookAddress ? {webhookAddress} : {}),
        changes: this.store.statusChanges(id),
        deliveries: this.store.deliveries(id),
        formToken: this.formToken,
        ...message,
      }),
    )
  }

  /** A form the emulator refuses (a move the table does not allow, a bad address): the page again, with why. */
  private refused(response: ServerResponse, id: string, error: unknown): void {
    if (!(error instanceof ApiError) || error.status === 403) throw error
    if (error.status === 404) return this.showTransaction(response, id, 404)
    const detail = Object.values(error.details).flat()[0]
    this.showTransaction(response, id, error.status, {error: typeof detail === 'string' ? detail : error.message})
  }
}

export function dashboardRoutes(store: EmulatorStore, lifecycle: TransactionLifecycle, settings: DashboardRouteSettings): Route[] {
  const dashboard = new Dashboard(store, lifecycle, settings)
  const transaction = ['_emulator', 'dashboard', 'transactions', ':']
  const routes: Route[] = [
    {method: 'GET', pattern: [], handler: dashboard.home},
    {method: 'GET', pattern: transaction, handler: dashboard.transaction},
    {method: 'POST', pattern: [...transaction, 'trigger'], handler: dashboard.trigger},
    {method: 'POST', pattern: [...transaction, 'resend'], handler: dashboard.resend},
  ]
  return routes.map((route) => ({...route, handler: asPage(route.handler)}))
}
