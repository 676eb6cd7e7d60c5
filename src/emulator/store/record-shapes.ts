/**
 * The shapes of the two records the spec does not show, as the assumptions (assumptions.ts) pick
 * them: the webhook body and the card record the card proxy returns.
 */
import {API_PATHS} from '../../api/contract.js'
import type {Transaction} from '../../api/schemas.js'
import type {AssumptionSettings, IdKeyChoice} from '../assumptions.js'
import type {StoredCard} from './store.js'

function idKeys(id: string, choice: IdKeyChoice): Record<string, string> {
  if (choice === 'id') return {id}
  if (choice === '_id') return {_id: id}
  return {id, _id: id}
}

/** The JSON body of a transaction's webhook: `type` and the id, or with `full` the whole transaction too. */
export function webhookBody(transaction: Transaction, settings: Pick<AssumptionSettings, 'webhookPayload' | 'idKeys'>): Record<string, unknown> {
  const ids = idKeys(transaction.id, settings.idKeys)
  if (settings.webhookPayload === 'minimal') return {type: 'transaction', ...ids}
  const {id: _id, status, ...rest} = structuredClone(transaction)
  return {type: 'transaction', ...ids, status, ...rest}
}

/** The card record the proxy returns: never the PAN, never a CVV. */
export function cardRecord(card: StoredCard, settings: Pick<AssumptionSettings, 'cardRecord' | 'idKeys'>): Record<string, string> {
  const ids = idKeys(card.id, settings.idKeys)
  if (settings.cardRecord === 'request-names') {
    const {id: _id, ...fields} = cardView(card)
    return {...ids, ...fields}
  }
  return {
    ...ids,
    brand: card.brand,
    card_holder_name: card.holder_name,
    expiry_month: card.expiry_month,
    expiry_year: card.expiry_year,
    last_four: card.last4,
    organisation: card.organisation,
  }
}

/** The card as paytx 0.1 returned it, under the request's names; also what the approval page shows. */
export function cardView(card: StoredCard) {
  return {
    id: card.id,
    customer: card.customer,
    organisation: card.organisation,
    holder_name: card.holder_name,
    expiry_month: card.expiry_month,
    expiry_year: card.expiry_year,
    last4: card.last4,
    brand: card.brand,
    created_at: card.created_at,
  }
}

/** The spec's approval address: `/v1/transaction/<id>/authorize` under the API base. */
export function approvalUrl(baseUrl: string, transactionId: string): string {
  return `${baseUrl}${API_PATHS.authorize(transactionId)}`
}
