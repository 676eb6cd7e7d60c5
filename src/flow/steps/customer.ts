/** The flow's first step: the customer given by id, created from the given data, or a sample one. */
import {readId} from '../../api/contract.js'
import type {CustomerRequest} from '../../api/schemas.js'
import {ResponseError} from '../../errors.js'
import {type FlowContext, runStep} from '../context.js'

/** Returns the customer's id. */
export async function customerStep(context: FlowContext): Promise<string> {
  const {options, profile} = context
  const given = options.customer
  if (given && 'id' in given) {
    context.emit({kind: 'customer-reused', customerId: given.id})
    return given.id
  }
  const data: CustomerRequest = given
    ? {organisation: profile.profile.organisation, ...given.data}
    : (await import('../sample-customer.js')).sampleCustomer(profile.profile.organisation)
  const created = await runStep(context, 'customer', () => context.service.createCustomer(data))
  const customerId = readId(created)
  if (!customerId) throw new ResponseError('The service created a customer but its answer has no id.')
  context.emit({kind: 'customer-created', customerId, profile: profile.name})
  return customerId
}
