import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {cardBrand, lastFour} from '../../api/contract.js'
import {normalizePan} from '../../secrets/card-number.js'
import type {CardRequest} from '../../api/schemas.js'
import {InputError, InputErrors} from '../../errors.js'
import {cardId} from '../../api/service.js'
import {BaseCommand, EXIT_CODES_HELP} from '../../cli/base-command.js'
import {type AnswerCheck, CARD_FIELD_FLAGS, CARD_FIELD_NAMES, type PanSource, cardAnswerChecks, cardIssuesToProblems, normalizeExpiryMonth} from '../../input/card-request.js'
import {maskPan, redactedJson, scrubSecrets} from '../../secrets/redact.js'
import {requireFlag} from '../../input/required-flag.js'
import {table} from '../../output/table.js'
import {lineWidth} from '../../output/wrap.js'
import {visibleText} from '../../terminal/visible-text.js'

export interface TokenizedCard {
  /** The card's id for `transaction start --card`: the proxy's `id`, else `_id`, else `token`. */
  id: string
  last_four: string
  brand: string
  customer: string
  /** The proxy's answer as it came, with any card number masked. */
  proxy_response: unknown
}

export default class CardTokenize extends BaseCommand<typeof CardTokenize, TokenizedCard> {
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

    // Each answer typed at a prompt is checked at once, and its problems name the field, not a flag.
    const checks = await cardAnswerChecks()
    const given = {customer: flags.customer, expiry_month: flags['expiry-month'], expiry_year: flags['expiry-year'], holder_name: flags['holder-name']}
    const prompted = new Set(Object.keys(given).filter((field) => !given[field as keyof typeof given]))
    // The hidden card number is asked first: a number typed by habit at the first prompt never shows.
    const panFirst = this.interactive() ? await this.readPan(checks.pan) : undefined
    const customer = await this.requireValue('--customer', flags.customer, {message: 'Customer id'})
    const month = await this.requireValue('--expiry-month', flags['expiry-month'], {message: 'Expiry month (01-12)', allowed: '01-12', validate: checks.expiryMonth})
    const year = await this.requireValue('--expiry-year', flags['expiry-year'], {message: 'Expiry year (four digits)', allowed: 'four digits', validate: checks.expiryYear(month)})
    const holder = await this.requireValue('--holder-name', flags['holder-name'], {message: 'Name on the card', validate: checks.holderName})
    const stdin = panFirst ?? (await this.readPan(checks.pan))
    if (stdin.source === 'prompt') prompted.add('pan')
    else this.fieldFlags.pan = stdin.source
    for (const field of prompted) this.fieldFlags[field] = CARD_FIELD_NAMES[field]
    const asked = {...flags, customer, 'expiry-month': month, 'expiry-year': year, 'holder-name': holder}
    const {body, pan} = await toCardTokenizeOptions(asked, {organisation: this.profile().profile.organisation}, {...stdin, prompted})

    await this.confirmProduction('tokenize a card', flags.yes)
    const response = await service.tokenizeCard(body)
    const shown = JSON.parse(scrubSecrets(redactedJson(response), [pan])) as Record<string, unknown>
    // The service checked that the answer names the card (id, _id or token).
    const id = cardId(shown)!
    const result: TokenizedCard = {id, last_four: lastFour(pan), brand: cardBrand(pan), customer, proxy_response: shown}
    this.print(
      table([
        ['Card', id],
        ['Number', `${result.brand} ${maskPan(pan)}`],
        ['Customer', customer],
      ], {width: lineWidth(this.ctx.io.stdout)}),
    )
    this.note(`Next: ${this.commandLine(`transaction start --product card --card ${visibleText(id)} --customer ${visibleText(customer)} --amount <minor units> --redirect-url <url>`)}`)
    return result
  }

  /** The PAN from --pan-stdin or a hidden prompt; never echoed. */
  private async readPan(validate: AnswerCheck): Promise<{pan: string; source: PanSource}> {
    const {flags} = this
    let raw: string
    let source: PanSource
    if (flags['pan-stdin']) {
      const {readStdinValues} = await import('../../input/stdin.js')
      ;[raw] = await readStdinValues(['--pan-stdin'], this.ctx.io.stdin)
      source = '--pan-stdin'
    } else if (this.interactive()) {
      raw = await this.prompter().askSecret('Card number (hidden)', {validate})
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

export type CardTokenizeFlags = Interfaces.InferredFlags<typeof CardTokenize.flags>

export interface CardTokenizeOptions {
  body: CardRequest
  customer: string
  pan: string
}

/**
 * The flags of `card tokenize` and the card number read from stdin or a hidden prompt as the
 * request to send, checked first (Luhn, month, year, holder); an InputErrors (exit 2) names every
 * flag that is missing or wrong. Sends nothing.
 */
export async function toCardTokenizeOptions(
  flags: CardTokenizeFlags,
  env: {organisation?: string},
  stdin: {pan: string; source: PanSource; prompted?: ReadonlySet<string>},
): Promise<CardTokenizeOptions> {
  const customer = requireFlag('--customer', flags.customer)
  const month = requireFlag('--expiry-month', flags['expiry-month'], '01-12')
  const year = requireFlag('--expiry-year', flags['expiry-year'], 'four digits')
  const holder = requireFlag('--holder-name', flags['holder-name'])
  const body: CardRequest = {customer, expiry_month: normalizeExpiryMonth(month), expiry_year: year.trim(), holder_name: holder, pan: stdin.pan}
  const organisation = flags.organisation ?? env.organisation
  if (organisation) body.organisation = organisation

  const {validateCardRequest} = await import('../../api/schemas.js')
  const issues = validateCardRequest(body)
  if (issues.length > 0) throw new InputErrors(cardIssuesToProblems(issues, {panSource: stdin.source, prompted: stdin.prompted ?? new Set()}))
  return {body, customer, pan: stdin.pan}
}
