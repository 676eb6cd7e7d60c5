/**
 * The customer a flow creates on local and sandbox profiles when none is given: complete and
 * valid for every rule the service is known to apply (api-notes), and obviously a test person.
 */
import type {CustomerRequest} from '../api/schemas.js'

export function sampleCustomer(organisation: string | undefined): CustomerRequest {
  return {
    title: 'ms',
    gender: 'female',
    initials: 'J.',
    first_name: 'Jane',
    last_name: 'Tester',
    date_of_birth: '1990-04-12',
    street_address: 'Teststraat',
    house_number: '1',
    city: 'Amsterdam',
    region: 'Noord-Holland',
    postal_code: '1012 AB',
    country_code: 'NL',
    phone_number: '+31612345678',
    email_address: 'jane.tester@example.com',
    ...(organisation ? {organisation} : {}),
  }
}
