/** Human rendering of a created customer; --json prints the service's object as it came. */
import {readId} from '../api/contract.js'
import type {Customer} from '../api/schemas.js'
import {table} from './table.js'

export function renderCustomer(customer: Customer, options: {width?: number} = {}): string {
  const name = [customer.title, customer.first_name, customer.last_name].filter(Boolean).join(' ')
  const address = [
    [customer.street_address, customer.house_number].filter(Boolean).join(' '),
    [customer.postal_code, customer.city].filter(Boolean).join(' '),
    customer.country_code,
  ]
    .filter(Boolean)
    .join(', ')
  return table([
    ['Customer', readId(customer) ?? '(no id)'],
    ['Status', typeof customer.status === 'string' ? customer.status : undefined],
    ['Name', name],
    ['E-mail', customer.email_address],
    ['Phone', customer.phone_number],
    ['Address', address],
    ['Organisation', customer.organisation],
    ['Created', customer.created_at],
  ], options)
}
