/**
 * The card, for `--product card` only: a card id reused as given, or a card number tokenized
 * through the proxy (by default the test card that leads to the --approve outcome). Only the
 * last four digits leave this step.
 */
import {lastFour} from '../../api/contract.js'
import {cardId as readCardId} from '../../api/service.js'
import {ResponseError} from '../../errors.js'
import {DEFAULT_TEST_CARD, testCardFor} from '../../test-mode/outcomes.js'
import {type FlowContext, runStep} from '../context.js'
import {cardRequest} from '../flow-options.js'
import {confirmReused} from './customer.js'

export interface FlowCard {
  cardId?: string
  cardLast4?: string
}

export async function cardStep(context: FlowContext, customerId: string): Promise<FlowCard> {
  const {options, profile} = context
  if (options.product !== 'card') return {}
  const given = options.card
  // Reported as reused once the transaction's start accepted it (customer.ts confirmReused).
  if (given && 'id' in given) return {cardId: given.id}
  const pan = given ? given.pan : (testCardFor(options.approve ?? '') ?? DEFAULT_TEST_CARD).pan
  const body = cardRequest(profile, options, customerId, given ?? {pan})
  const card = await runStep(context, 'card', () => context.service.tokenizeCard(body))
  const cardId = readCardId(card)
  if (!cardId) throw new ResponseError('The card proxy answered without a card id (looked for id, _id and token).')
  // The card was made for the given customer: the service knows it.
  confirmReused(context, {customer: true})
  const cardLast4 = lastFour(pan)
  context.emit({kind: 'card-tokenized', cardId, last4: cardLast4, testCard: !given})
  return {cardId, cardLast4}
}
