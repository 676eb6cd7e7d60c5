/**
 * The flow's first step: the customer given by id, created from the given data, or a sample one.
 * A customer given by id is not reported here: the spec has no way to read a customer, so the
 * id is checked by the first request that names it (card tokenization or the transaction's
 * start), which reports it as reused once the service accepted it (`confirmReused`).
 */
import {readId} from '../../api/contract.js'
import type {CustomerRequest} from '../../api/schemas.js'
import {ResponseError} from '../../errors.js'
import {type FlowContext, runStep} from '../context.js'

/** Returns the customer's id. */
export async function customerStep(context: FlowContext): Promise<string> {
  const {options, profile} = context
  const given = options.customer
  if (given && 'id' in given) return given.id
  const data: CustomerRequest = given
    ? {organisation: profile.profile.organisation, ...given.data}
    : (await import('../sample-customer.js')).sampleCustomer(profile.profile.organisation)
  const created = await runStep(context, 'customer', () => context.service.createCustomer(data))
  const customerId = readId(created)
  if (!customerId) throw new ResponseError('The service created a customer but its answer has no id.')
  context.emit({kind: 'customer-created', customerId, profile: profile.name})
  return customerId
}

/**
 * Reports the ids the flow was given (--customer, --card) as reused, once a request naming them
 * was accepted by the service: before that, nothing says they exist. Each is reported once.
 */
export function confirmReused(context: FlowContext, which: {customer?: boolean; card?: boolean}): void {
  const {options} = context
  const reported = new Set(context.timeline.map((event) => event.kind))
  if (which.customer && options.customer && 'id' in options.customer && !reported.has('customer-reused')) {
    context.emit({kind: 'customer-reused', customerId: options.customer.id})
  }
  if (which.card && options.card && 'id' in options.card && !reported.has('card-reused')) {
    context.emit({kind: 'card-reused', cardId: options.card.id})
  }
}
