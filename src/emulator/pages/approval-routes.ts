/**
 * The approval pages' routes: GET shows the product's page (and marks the transaction
 * IN_PROGRESS), POST completes it with the chosen outcome and sends the customer back to the
 * shop's redirect_url. A page that cannot complete sends the customer back with `error`.
 */
import type {ServerResponse} from 'node:http'

import type {SofortSender} from '../../api/schemas.js'
import {appendQuery, isFormMediaType, parseFormBody, readBody, redirect, sendHtml} from '../http-exchange.js'
import {type TransactionLifecycle, isAwaitingApproval} from '../time/index.js'
import {type ApprovalPageContext, decideApproval, renderApprovalPage, renderErrorPage} from './pages.js'
import {type EmulatorStore, approvalUrl, cardView} from '../store/index.js'
import type {Handler, Route} from '../router.js'

export interface ApprovalRouteSettings {
  maxBodyBytes: number
  /** The API base this emulator listens at (known once listening). */
  baseUrl(): string
}

const alreadyDone = (status: string) => `The transaction is already ${status}; it cannot be approved again.`

function unknownTransactionPage(response: ServerResponse, id: string): void {
  sendHtml(response, 404, renderErrorPage('Unknown transaction', `No transaction has the id ${JSON.stringify(id)}. Check the approval address.`))
}

/** The approval page's handlers over one store: show the page, take its form. */
class ApprovalPages {
  constructor(
    private readonly store: EmulatorStore,
    private readonly lifecycle: TransactionLifecycle,
    private readonly settings: ApprovalRouteSettings,
  ) {}

  readonly show: Handler = (_request, response, [id]) => {
    const status = this.currentStatus(id)
    if (status === undefined) return unknownTransactionPage(response, id)
    if (!isAwaitingApproval(status)) return this.cannotComplete(response, id, 409, 'Already completed', alreadyDone(status))
    this.lifecycle.opened(id)
    sendHtml(response, 200, renderApprovalPage(this.pageContext(id)!))
  }

  readonly submit: Handler = async (request, response, [id]) => {
    if (this.store.transaction(id) === undefined) {
      request.resume()
      return unknownTransactionPage(response, id)
    }
    if (!isFormMediaType(request)) {
      request.resume()
      return sendHtml(response, 415, renderErrorPage('Unsupported form', 'Post the approval form as application/x-www-form-urlencoded.'))
    }
    const form = parseFormBody(await readBody(request, this.settings.maxBodyBytes))
    const status = this.currentStatus(id)!
    if (!isAwaitingApproval(status)) return this.cannotComplete(response, id, 409, 'Already completed', alreadyDone(status))
    // A script may post without opening the page first; the transaction passes IN_PROGRESS all the same.
    this.lifecycle.opened(id)
    const context = this.pageContext(id)!
    const decision = decideApproval(context, form)
    if (decision.kind === 'invalid') return sendHtml(response, 400, renderApprovalPage(context, {error: decision.message}))
    this.lifecycle.completed(id, decision.outcome, {
      statusReason: decision.statusReason,
      sender: decision.sender && this.withCustomerAsHolder(id, decision.sender),
    })
    const redirectUrl = this.store.transaction(id)!.transaction.details.redirect_url!
    redirect(response, appendQuery(redirectUrl, {transaction_id: id}))
  }

  private pageContext(id: string): ApprovalPageContext | undefined {
    const entry = this.store.transaction(id)
    if (!entry) return undefined
    const {transaction} = entry
    const card = transaction.card ? this.store.card(transaction.card) : undefined
    return {
      transaction,
      ...(card ? {card: {...cardView(card), testOutcome: card.testOutcome}} : {}),
      needsCvv: transaction.payment_product === 'card' && !entry.cvvGiven,
      actionUrl: new URL(approvalUrl(this.settings.baseUrl(), transaction.id)).pathname,
    }
  }

  /** The current status, after any move that was due (an approval left too long is abandoned). */
  private currentStatus(id: string): string | undefined {
    this.lifecycle.catchUp(id)
    return this.store.transaction(id)?.transaction.status
  }

  /** Sends the customer back when the page cannot complete: with `error`, or an error page. */
  private cannotComplete(response: ServerResponse, id: string, status: number, title: string, message: string): void {
    const redirectUrl = this.store.transaction(id)?.transaction.details.redirect_url
    if (typeof redirectUrl === 'string' && redirectUrl !== '') {
      redirect(response, appendQuery(redirectUrl, {transaction_id: id, error: message}))
    } else {
      sendHtml(response, status, renderErrorPage(title, message))
    }
  }

  /** The pages do not know the customer; the sender of a sofort payment is the customer. */
  private withCustomerAsHolder(id: string, sender: SofortSender): SofortSender {
    const customerId = this.store.transaction(id)?.transaction.customer
    const customer = customerId ? this.store.customer(customerId) : undefined
    const name = customer ? `${customer.first_name} ${customer.last_name}`.trim() : ''
    return name ? {...sender, holder: name} : sender
  }
}

export function approvalRoutes(store: EmulatorStore, lifecycle: TransactionLifecycle, settings: ApprovalRouteSettings): Route[] {
  const pages = new ApprovalPages(store, lifecycle, settings)
  const pattern = ['v1', 'transaction', ':', 'authorize']
  return [
    {method: 'GET', pattern, handler: pages.show},
    {method: 'POST', pattern, handler: pages.submit},
  ]
}
