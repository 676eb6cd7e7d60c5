import {describe, expect, it} from 'vitest'

import {validateCustomerRequest} from '../../src/api/schemas.js'
import {
  CUSTOMER_FIELD_FLAGS,
  customerIssuesToProblems,
  draftCustomerRequest,
  missingRequiredCustomerFields,
  unknownCustomerKeys,
} from '../../src/input/customer-request.js'

describe('customer request drafting', () => {
  it('names each of the 15 fields’ flags in kebab case', () => {
    expect(Object.keys(CUSTOMER_FIELD_FLAGS)).toHaveLength(15)
    expect(CUSTOMER_FIELD_FLAGS.date_of_birth).toBe('--date-of-birth')
    expect(CUSTOMER_FIELD_FLAGS.email_address).toBe('--email-address')
  })

  it('puts flags over --data values and falls back to the profile’s organisation', () => {
    const draft = draftCustomerRequest({first_name: 'Janet', city: 'Utrecht', extra: 1}, {first_name: 'Jane'}, 'org-p')
    expect(draft.body).toEqual({first_name: 'Jane', city: 'Utrecht', extra: 1, organisation: 'org-p'})
    expect(draft.sources).toMatchObject({first_name: 'flag', city: 'data', organisation: 'profile'})
    expect(draftCustomerRequest({organisation: 'org-d'}, {}, 'org-p').body.organisation).toBe('org-d')
    expect(unknownCustomerKeys(draft.body)).toEqual(['extra'])
  })

  it('lists missing required fields in a stable order', () => {
    expect(missingRequiredCustomerFields({title: 'mr', first_name: ''})).toEqual([
      'first_name',
      'last_name',
      'email_address',
      'country_code',
      'city',
      'street_address',
      'postal_code',
      'phone_number',
      'organisation',
    ])
  })

  it('turns validation issues into problems naming the flag and the origin of the value', () => {
    const body = {title: 'dr', date_of_birth: '2023-02-29', phone_number: '0612', house_number: 12}
    const problems = customerIssuesToProblems(validateCustomerRequest(body, {mode: 'cli'}), {
      title: 'flag',
      date_of_birth: 'flag',
      phone_number: 'data',
      house_number: 'data',
    })
    expect(problems).toEqual([
      {flag: '--title', field: 'title', message: 'must be one of mr, ms'},
      {flag: '--date-of-birth', field: 'date_of_birth', message: 'must be a real date written as YYYY-MM-DD'},
      {flag: '--house-number', field: 'house_number', message: 'must be a string (field house_number of --data)'},
      {
        flag: '--phone-number',
        field: 'phone_number',
        message: 'must be in international E.164 format with a leading +, e.g. +31612345678 (field phone_number of --data)',
      },
    ])
    expect(validateCustomerRequest(body, {mode: 'forced'}).map((issue) => issue.path)).toEqual(['house_number'])
  })
})
