/** `customer create`'s flags, --data and prompt answers into the request, in-process. */
import {describe, expect, it} from 'vitest'

import CustomerCreate, {type CustomerAnswers, toCustomerCreateOptions} from '../../../src/commands/customer/create.js'
import {CUSTOMER_BODY, CUSTOMER_FLAGS, ORGANISATION, customerFlagsWith as withValue, customerFlagsWithout as without} from '../../helpers/fixtures.js'
import {parseFlags} from '../../helpers/parse-flags.js'


async function options(argv: string[], stdin: {data?: Record<string, unknown>; answers?: CustomerAnswers} = {}, organisation?: string) {
  return toCustomerCreateOptions(await parseFlags(CustomerCreate, argv), {organisation}, stdin)
}

describe('toCustomerCreateOptions', () => {
  it('sends every field given as a flag', async () => {
    expect(await options(CUSTOMER_FLAGS)).toEqual({body: CUSTOMER_BODY, warnings: [], yes: false})
  })

  it('takes --data first, flags over it, the prompt’s answers for what is missing, the profile’s organisation by default', async () => {
    const {organisation: _organisation, city: _city, ...data} = CUSTOMER_BODY
    const {body} = await options(['--email-address', 'other@example.com', '--yes'], {data, answers: {city: 'Utrecht'}}, ORGANISATION)
    expect(body).toEqual({...CUSTOMER_BODY, city: 'Utrecht', email_address: 'other@example.com'})
  })

  it('warns about fields the spec does not list, and --force about the required ones left out', async () => {
    const {warnings} = await options(['--force', '--first-name', 'Jane'], {data: {nickname: 'JD'}})
    expect(warnings[0]).toBe('--data has fields the spec does not list; sent as given: nickname')
    expect(warnings[1]).toMatch(/^sending without fields the service has required so far: --title/)
  })

  it.each([
    [without('--last-name'), '--last-name', /--last-name: is required/],
    [withValue('--date-of-birth', '1990-02-30'), '--date-of-birth', /--date-of-birth: must be a real date written as YYYY-MM-DD/],
    [withValue('--date-of-birth', '28-02-1990'), '--date-of-birth', /--date-of-birth/],
    [withValue('--country-code', 'NLD'), '--country-code', /--country-code: must be a two-letter country code/],
    [withValue('--country-code', 'XX'), '--country-code', /--country-code: XX is not a country code of ISO 3166-1 \(two letters, such as NL, DE or BE\)/],
    [withValue('--country-code', 'zz'), '--country-code', /--country-code: ZZ is not a country code of ISO 3166-1/],
    [withValue('--phone-number', '0612345678'), '--phone-number', /--phone-number: must be in international E\.164 format/],
    [withValue('--email-address', 'jane.example.com'), '--email-address', /--email-address: must be an e-mail address/],
    [withValue('--title', 'dr'), '--title', /--title: must be one of mr, ms/],
    [withValue('--gender', 'x'), '--gender', /--gender: must be one of male, female/],
  ])('refuses %j naming %s', async (argv, flag, message) => {
    await expect(options(argv)).rejects.toMatchObject({flag, exitCode: 2, message: expect.stringMatching(message)})
  })

  it('names the --data field of a value of the wrong type', async () => {
    await expect(options([], {data: {...CUSTOMER_BODY, house_number: 12}})).rejects.toMatchObject({
      flag: '--house-number',
      message: expect.stringMatching(/--house-number: must be a string \(field house_number of --data\)/),
    })
  })

  it('takes --country-code in upper case, as the prompt does (nl is sent as NL)', async () => {
    expect((await options(withValue('--country-code', 'nl'))).body.country_code).toBe('NL')
  })

  it('--force sends values the local checks would refuse', async () => {
    expect((await options([...withValue('--title', 'dr'), '--force'])).body.title).toBe('dr')
  })
})
