/** Request and response bodies shared by the command tests. */
export const ORGANISATION = '0a0f2c55-6c8e-4c51-9b0e-3e7a1d000001'
export const PAYMENT_PROFILE = '7d3c2a10-5b1e-4f6a-8c2d-9e0b4d000001'
export const CUSTOMER_ID = '4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f'
export const CARD_ID = 'c4rd0000-1111-4222-8333-444455556666'
export const TX_ID = '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'

/** The customer as flags, every one of the 15 fields. */
export const CUSTOMER_FLAGS = [
  '--title', 'ms',
  '--gender', 'female',
  '--initials', 'J.',
  '--first-name', 'Jane',
  '--last-name', 'Doe',
  '--date-of-birth', '1990-02-28',
  '--street-address', 'Damrak',
  '--house-number', '1',
  '--city', 'Amsterdam',
  '--region', 'Noord-Holland',
  '--postal-code', '1012 LG',
  '--country-code', 'NL',
  '--phone-number', '+31612345678',
  '--email-address', 'jane@example.com',
  '--organisation', ORGANISATION,
]

/** CUSTOMER_FLAGS without these flags (and their values). */
export const customerFlagsWithout = (...flags: string[]) => CUSTOMER_FLAGS.filter((_, i, all) => !flags.includes(all[i]) && !flags.includes(all[i - 1]))

/** CUSTOMER_FLAGS with another value for one flag. */
export const customerFlagsWith = (flag: string, value: string) => CUSTOMER_FLAGS.map((item, i, all) => (all[i - 1] === flag ? value : item))

/** The card flags of `card tokenize`, all but the card number. */
export const CARD_FLAGS = ['--customer', CUSTOMER_ID, '--expiry-month', '12', '--expiry-year', '2030', '--holder-name', 'Jane Doe']

/** CARD_FLAGS with another value for one flag. */
export const cardFlagsWith = (flag: string, value: string) => CARD_FLAGS.map((item, i, all) => (all[i - 1] === flag ? value : item))

/** A valid customer request without its organisation (which depends on the service it goes to). */
export const CUSTOMER_FIELDS = {
  title: 'ms',
  gender: 'female',
  initials: 'J.',
  first_name: 'Jane',
  last_name: 'Doe',
  date_of_birth: '1990-02-28',
  street_address: 'Damrak',
  house_number: '1',
  city: 'Amsterdam',
  region: 'Noord-Holland',
  postal_code: '1012 LG',
  country_code: 'NL',
  phone_number: '+31612345678',
  email_address: 'jane@example.com',
}

/** The request body `customer create` sends for CUSTOMER_FLAGS. */
export const CUSTOMER_BODY = {...CUSTOMER_FIELDS, organisation: ORGANISATION}

export const CUSTOMER_RESPONSE = {
  id: CUSTOMER_ID,
  ...CUSTOMER_BODY,
  fax_number: '',
  house_number_suffix: '',
  social_security_number: '',
  status: 'unverified',
  status_reason: '',
  segment: '',
  created_at: '2026-11-20T10:00:00.000Z',
  last_status_update: '2026-11-20T10:00:00.000Z',
}
