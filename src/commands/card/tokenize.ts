import {Flags} from '@oclif/core'

import {type CardRequest, cardBrand, lastFour, normalizePan} from '../../api/contract.js'
import {InputError, InputErrors} from '../../errors.js'
import {cardId} from '../../api/service.js'
import {BaseCommand, EXIT_CODES_HELP} from '../../base-command.js'
import {CARD_FIELD_FLAGS, type PanSource, cardIssuesToProblems, normalizeExpiryMonth} from '../../input/card-request.js'
import {maskPan, redactBody, scrubSecrets} from '../../secrets/redact.js'
import {table} from '../../output/table.js'

export interface TokenizedCard {
  /** The card's id for `transaction start --card`: the proxy's `id`, else `_id`, else `token`. */
  id: string
  last_four: string
  brand: string
  customer: string
  /** The proxy's answer as it came, with any card number masked. */
  proxy_response: unknown
}

export default class CardTokenize extends BaseCommand<typeof CardTokenize> {
  static override summary = 'Tokenize a card through the card proxy ({h2h_url}/tokenize/proxy/<PROXY_ID>).'
  static override description = `Sends the card with the profile's TX-Proxy-Key and without the API key. The card number is
read from a hidden prompt, or from stdin with --pan-stdin; never from the command line, where
shell history, the process list and debug logs would keep it. Checked before sending: Luhn,
month 01-12, a four-digit year not in the past, a holder name. Shows the card id and the last
four digits only.

${EXIT_CODES_HELP}`

  static override examples = [
    '<%= config.bin %> card tokenize --customer 4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f --expiry-month 12 --expiry-year 2030 --holder-name "Jane Doe"',
    'printf \'%s\\n\' "$PAN" | <%= config.bin %> card tokenize --customer 4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f --expiry-month 12 --expiry-year 2030 --holder-name "Jane Doe" --pan-stdin --json',
  ]

  static override flags = {
    customer: Flags.string({summary: 'Id of an existing customer.'}),
    'expiry-month': Flags.string({summary: 'Expiry month, 01-12.'}),
    'expiry-year': Flags.string({summary: 'Expiry year, four digits.'}),
    'holder-name': Flags.string({summary: 'Name on the card.'}),
    organisation: Flags.string({summary: 'Organisation UUID (default: the profile’s).'}),
    'pan-stdin': Flags.boolean({summary: 'Read the card number from stdin.', default: false}),
    yes: Flags.boolean({char: 'y', summary: 'Confirm tokenizing on a production profile without asking.', default: false}),
  }

  protected override fieldFlags: Record<string, string> = {...CARD_FIELD_FLAGS}

  public async run(): Promise<TokenizedCard> {
    const {flags} = this
    const service = await this.service()
    service.assertCardProxyConfigured()

    const customer = await this.requireValue('--customer', flags.customer, {message: 'Customer id'})
    const month = await this.requireValue('--expiry-month', flags['expiry-month'], {message: 'Expiry month (01-12)', allowed: '01-12'})
    const year = await this.requireValue('--expiry-year', flags['expiry-year'], {message: 'Expiry year (four digits)', allowed: 'four digits'})
    const holder = await this.requireValue('--holder-name', flags['holder-name'], {message: 'Name on the card'})
    const {pan, source} = await this.readPan()
    this.fieldFlags.pan = source === 'prompt' ? 'card number' : source

    const body: CardRequest = {customer, expiry_month: normalizeExpiryMonth(month), expiry_year: year.trim(), holder_name: holder, pan}
    const organisation = flags.organisation ?? this.profile().profile.organisation
    if (organisation) body.organisation = organisation

    const {validateCardRequest} = await import('../../api/schemas.js')
    const issues = validateCardRequest(body)
    if (issues.length > 0) throw new InputErrors(cardIssuesToProblems(issues, source))

    await this.confirmProduction('tokenize a card', flags.yes)
    const response = await service.tokenizeCard(body)
    const shown = JSON.parse(scrubSecrets(JSON.stringify(redactBody(response)), [pan])) as Record<string, unknown>
    // The service checked that the answer names the card (id, _id or token).
    const id = cardId(shown)!
    const result: TokenizedCard = {id, last_four: lastFour(pan), brand: cardBrand(pan), customer, proxy_response: shown}
    this.print(
      table([
        ['Card', id],
        ['Number', `${result.brand} ${maskPan(pan)}`],
        ['Customer', customer],
      ]),
    )
    this.note(`Next: paytx transaction start --product card --card ${id} --customer ${customer} --amount <minor units> --redirect-url <url>`)
    return result
  }

  /** The PAN from --pan-stdin or a hidden prompt; never echoed. */
  private async readPan(): Promise<{pan: string; source: PanSource}> {
    const {flags} = this
    let raw: string
    let source: PanSource
    if (flags['pan-stdin']) {
      const {readStdinValues} = await import('../../input/stdin.js')
      ;[raw] = await readStdinValues(['--pan-stdin'])
      source = '--pan-stdin'
    } else if (this.canPrompt()) {
      const {luhnValid} = await import('../../api/contract.js')
      const {askSecret} = await import('../../terminal/prompts.js')
      raw = await askSecret('Card number (hidden)', {
        validate: (value) => (luhnValid(normalizePan(value)) ? true : 'not a valid card number (12-19 digits passing the Luhn check)'),
      })
      source = 'prompt'
    } else {
      throw new InputError('The card number is required: pipe it with --pan-stdin (or run in a terminal to type it at a hidden prompt).', {
        flag: '--pan-stdin',
      })
    }
    const pan = normalizePan(raw)
    this.addSecrets(pan, raw)
    return {pan, source}
  }
}
