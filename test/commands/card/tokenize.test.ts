/** `card tokenize`'s flags and card number into the request, in-process. */
import {describe, expect, it} from 'vitest'

import CardTokenize, {toCardTokenizeOptions} from '../../../src/commands/card/tokenize.js'
import type {PanSource} from '../../../src/input/card-request.js'
import {CARD_FLAGS, CUSTOMER_ID, ORGANISATION, cardFlagsWith as cardFlags} from '../../helpers/fixtures.js'
import {parseFlags} from '../../helpers/parse-flags.js'
import {PAN} from '../../helpers/secrets.js'

const nextYear = String(new Date().getUTCFullYear() + 1)

async function options(argv: string[], pan = PAN, source: PanSource = '--pan-stdin', organisation?: string) {
  return toCardTokenizeOptions(await parseFlags(CardTokenize, argv), {organisation}, {pan, source})
}

describe('toCardTokenizeOptions', () => {
  it('builds the proxy request, the month two digits, the organisation the profile’s unless given', async () => {
    expect((await options(cardFlags('--expiry-month', '9'), PAN, '--pan-stdin', ORGANISATION)).body).toEqual({
      customer: CUSTOMER_ID,
      expiry_month: '09',
      expiry_year: '2030',
      holder_name: 'Jane Doe',
      pan: PAN,
      organisation: ORGANISATION,
    })
    expect((await options([...CARD_FLAGS, '--organisation', 'org-2'], PAN, 'prompt', ORGANISATION)).body.organisation).toBe('org-2')
    expect((await options(CARD_FLAGS)).body).not.toHaveProperty('organisation')
  })

  it.each([
    [cardFlags('--expiry-month', '13'), PAN, '--expiry-month', /--expiry-month: must be a month from 01 to 12/],
    [cardFlags('--expiry-month', '00'), PAN, '--expiry-month', /--expiry-month: must be a month from 01 to 12/],
    [cardFlags('--expiry-year', '30'), PAN, '--expiry-year', /--expiry-year: must be a four-digit year/],
    [cardFlags('--expiry-year', '2020'), PAN, '--expiry-year', /--expiry-year: is in the past/],
    [cardFlags('--holder-name', ' '), PAN, '--holder-name', /--holder-name: must not be blank/],
    [CARD_FLAGS, '4024007108173154', '--pan-stdin', /--pan-stdin: is not a valid card number/],
    [['--expiry-month', '12', '--expiry-year', nextYear, '--holder-name', 'J'], PAN, '--customer', /--customer is required/],
    [['--customer', CUSTOMER_ID, '--expiry-year', nextYear, '--holder-name', 'J'], PAN, '--expiry-month', /--expiry-month is required \(01-12\)/],
  ])('refuses %j with that card number, naming the flag', async (argv, pan, flag, message) => {
    const refusal = options(argv, pan)
    await expect(refusal).rejects.toMatchObject({flag, exitCode: 2, message: expect.stringMatching(message)})
  })

  it('leaves a card number on the command line to oclif’s parser: there is no --pan', async () => {
    await expect(parseFlags(CardTokenize, [...CARD_FLAGS, '--pan', PAN])).rejects.toThrow(/--pan/)
  })
})
