import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {PRODUCTS, type Product, readId} from '../../api/contract.js'
import type {Transaction, TransactionStartRequest} from '../../api/schemas.js'
import {InputErrors} from '../../errors.js'
import {BaseCommand, EXIT_CODES_HELP} from '../../cli/base-command.js'
import {
  TRANSACTION_ANSWER_CHECKS,
  TRANSACTION_FIELD_FLAGS,
  checkCardOnlyFlags,
  describeAmount,
  generateMerchantReference,
  parseMinorUnits,
  prepareSofortDescriptor,
} from '../../input/transaction-request.js'
import {requireFlag} from '../../input/required-flag.js'
import {DEAD_ADDRESS_MARK, commandEmulatorNote, servedByCommandEmulator} from '../../output/command-emulator.js'
import {table} from '../../output/table.js'
import {lineWidth} from '../../output/wrap.js'
import {describeStatus, unlistedStatusWarning} from '../../output/transaction.js'
import {visibleText} from '../../terminal/visible-text.js'

export default class TransactionStart extends BaseCommand<typeof TransactionStart, Transaction> {
  static override summary = 'Start a card, sofort or dummy transaction (POST /v1/transaction/start).'
  static override description = `Prints the transaction's id, status and details.approval_url, the address where the customer
authorizes the payment; --open opens it in the browser (BROWSER is honoured). Then check the
outcome server-side with \`paytx status <id>\` or \`paytx checkoutsuccess <id>\`.

On the local profile with no emulator running, the emulator runs inside this command and stops
with it: the approval URL is then marked as not served and --open opens nothing; keep one running
with \`paytx emulator start\` for a URL that works.

--amount is in minor units: 1499 is 14.99 EUR. For card, the CVV is read with --cvv-stdin or a
hidden prompt; without it the service asks for it on the approval page. For sofort, umlauts and ß
in --descriptor are transliterated, then only 0-9 a-z A-Z space + . - , are allowed, at most 27.

${EXIT_CODES_HELP}`

  static override examples = [
    '<%= config.bin %> transaction start --product dummy --amount 1499 --customer 4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f --redirect-url https://shop.example.com/return --open',
    'printf \'%s\\n\' "$CVV" | <%= config.bin %> transaction start --product card --card c4rd0000-1111-4222-8333-444455556666 --cvv-stdin --amount 2500 --customer 4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f --redirect-url https://shop.example.com/return --json',
    '<%= config.bin %> transaction start --product sofort --amount 995 --customer 4f1c2d3e-5a6b-4c7d-8e9f-0a1b2c3d4e5f --descriptor "Bestellung 4711 Müller" --redirect-url https://shop.example.com/return',
  ]

  static override flags = {
    product: Flags.string({summary: 'Payment product.', options: [...PRODUCTS]}),
    amount: Flags.string({summary: 'Amount in minor units, a whole number: 1499 is 14.99 EUR.'}),
    customer: Flags.string({summary: 'Id of an existing customer.'}),
    card: Flags.string({summary: 'Id of a tokenized card (required for --product card).'}),
    'cvv-stdin': Flags.boolean({summary: 'Read the card’s CVV from stdin (card only; optional).', default: false}),
    descriptor: Flags.string({summary: 'Text on the customer’s statement (dynamic_descriptor).'}),
    'merchant-reference': Flags.string({summary: 'Your order reference (default: a generated unique one).'}),
    'customer-ip': Flags.string({summary: 'IP address of the customer.', default: '127.0.0.1'}),
    'user-agent': Flags.string({summary: 'Browser user agent of the customer (default: paytx/<version>).'}),
    'redirect-url': Flags.string({summary: 'Where the customer lands after authorizing (details.redirect_url).'}),
    'webhook-url': Flags.string({summary: 'Webhook address for this transaction (webhook_transaction_update).'}),
    'payment-profile': Flags.string({summary: 'Payment profile UUID (default: the profile’s).'}),
    open: Flags.boolean({summary: 'Open the approval URL in the browser (honours BROWSER).', default: false}),
    yes: Flags.boolean({char: 'y', summary: 'Confirm starting on a production profile without asking.', default: false}),
  }

  protected override fieldFlags: Record<string, string> = {...TRANSACTION_FIELD_FLAGS}

  public async run(): Promise<Transaction> {
    const flags = await this.askForMissing(this.flags)
    const cvv = await this.readCvv(flags)
    const options = await toTransactionStartOptions(
      flags,
      {paymentProfile: this.profile().profile.payment_profile, version: this.config.version, merchantReference: generateMerchantReference()},
      {cvv},
    )
    for (const warning of options.warnings) this.warnUser(warning)
    const {body} = options

    await this.confirmProduction(`start a ${body.payment_product} transaction of ${describeAmount(body.amount)}`, options.yes)
    // On a local profile with no emulator running, one runs inside this command: its addresses die with it.
    const emulator = await this.ctx.emulator(await this.profileWithKeys())
    try {
      const service = await this.service()
      const transaction = await service.startTransaction(body)
      this.report(transaction, body, options.open, emulator.url)
      if (options.open) await this.openApproval(transaction.details?.approval_url, emulator.url)
      return transaction
    } finally {
      await emulator.stop()
    }
  }

  /** The result, and what to do next; an approval URL served by an emulator that ran inside this command is said to be dead. */
  private report(transaction: Transaction, body: TransactionStartRequest, open: boolean, commandEmulatorUrl: string | undefined): void {
    const id = readId(transaction) ?? '(no id)'
    const approvalUrl = transaction.details?.approval_url
    const commandEmulator = commandEmulatorUrl === undefined ? undefined : {emulatorUrl: commandEmulatorUrl, profileBaseUrl: this.profile().profile.base_url}
    const dead = typeof approvalUrl === 'string' && commandEmulator !== undefined && servedByCommandEmulator(approvalUrl, commandEmulator)
    this.print(
      table([
        ['Transaction', id],
        ['Status', typeof transaction.status === 'string' ? describeStatus(transaction.status) : undefined],
        ['Amount', describeAmount(body.amount)],
        ['Product', body.payment_product],
        ['Reference', body.merchant_reference],
        ['Approval URL', typeof approvalUrl === 'string' ? `${approvalUrl}${dead ? `  ${DEAD_ADDRESS_MARK}` : ''}` : '(none returned)'],
      ], {width: lineWidth(this.ctx.io.stdout)}),
    )
    const warning = unlistedStatusWarning(transaction.status)
    if (warning) this.warnUser(warning)
    const status = `\`${this.commandLine(`status ${visibleText(id)}`)}\``
    if (dead) {
      this.note(commandEmulatorNote(commandEmulator!, 'the approval URL', this.commandLine('emulator start')))
      this.note(`Next: with an emulator running, send the customer to the approval URL, then ${status}.`)
      return
    }
    this.note(`Next: ${open ? 'authorize in the browser' : 'send the customer to the approval URL'}, then ${status}.`)
  }

  /** A person at the terminal is asked for what the flags leave out; otherwise the flags stay as given. */
  private async askForMissing(flags: TransactionStartFlags): Promise<TransactionStartFlags> {
    if (!this.interactive()) return flags
    const product = flags.product ?? (await this.prompter().choose('Payment product', PRODUCTS))
    return {
      ...flags,
      product,
      amount: await this.requireValue('--amount', flags.amount, {message: 'Amount in minor units (1499 is 14.99 EUR)', validate: TRANSACTION_ANSWER_CHECKS.amount}),
      customer: await this.requireValue('--customer', flags.customer, {message: 'Customer id'}),
      card: product === 'card' ? await this.requireValue('--card', flags.card, {message: 'Card id (from paytx card tokenize)'}) : flags.card,
      'redirect-url': await this.requireValue('--redirect-url', flags['redirect-url'], {
        message: 'Redirect URL (where the customer lands afterwards)',
        validate: TRANSACTION_ANSWER_CHECKS.redirectUrl,
      }),
      'payment-profile': await this.requireValue('--payment-profile', flags['payment-profile'] ?? this.profile().profile.payment_profile, {message: 'Payment profile id'}),
    }
  }

  /** The CVV of a card payment from --cvv-stdin, else a hidden prompt that may be left empty; never echoed. */
  private async readCvv(flags: TransactionStartFlags): Promise<string | undefined> {
    if (flags.product !== 'card') return undefined
    let cvv: string | undefined
    if (flags['cvv-stdin']) {
      const {readStdinValues} = await import('../../input/stdin.js')
      ;[cvv] = await readStdinValues(['--cvv-stdin'], this.ctx.io.stdin)
    } else if (this.interactive()) {
      cvv = (
        await this.prompter().askSecret('CVV (hidden; empty to enter it on the approval page)', {
          validate: (value) => (value.trim() === '' || /^\d{3,4}$/.test(value.trim()) ? true : '3 or 4 digits, or empty'),
        })
      ).trim()
    }
    if (cvv) this.addSecrets(cvv)
    return cvv || undefined
  }

  /** --open: the approval URL in the browser, unless it is served by an emulator that stops with this command (a dead page). */
  private async openApproval(url: unknown, commandEmulatorUrl: string | undefined): Promise<void> {
    if (typeof url !== 'string' || url === '') {
      this.warnUser('the service returned no approval URL to open.')
      return
    }
    if (commandEmulatorUrl !== undefined && servedByCommandEmulator(url, {emulatorUrl: commandEmulatorUrl, profileBaseUrl: this.profile().profile.base_url})) {
      this.warnUser('--open: the approval URL was not opened: the emulator that serves it stops with this command, and the page would not load.')
      return
    }
    const opened = await this.ctx.browser(url)
    if (opened.opened) this.note(`Opened ${visibleText(url)}`)
    else this.warnUser(`${opened.reason}; open the approval URL yourself.`)
  }
}

export type TransactionStartFlags = Interfaces.InferredFlags<typeof TransactionStart.flags>

/** What transaction start needs from outside its flags: the profile's default and fresh values. */
export interface TransactionStartEnv {
  /** The profile's payment profile, used when --payment-profile is not given. */
  paymentProfile?: string
  /** paytx's version, for the default user agent. */
  version: string
  /** The merchant reference used when --merchant-reference is not given. */
  merchantReference: string
}

/** Values read from stdin (or a hidden prompt), never from the command line. */
export interface TransactionStartStdin {
  cvv?: string
}

export interface TransactionStartOptions {
  body: TransactionStartRequest
  open: boolean
  yes: boolean
  /** How the input was changed or may be shown (a transliterated, long descriptor), for stderr. */
  warnings: string[]
}

/**
 * The flags of `transaction start` as the request to send, checked as the service would check
 * it; an InputError (exit 2) names the first flag that is missing or wrong. Sends nothing.
 */
export async function toTransactionStartOptions(
  flags: TransactionStartFlags,
  env: TransactionStartEnv,
  stdin: TransactionStartStdin,
): Promise<TransactionStartOptions> {
  const product = requireFlag('--product', flags.product, PRODUCTS.join(', ')) as Product
  const amount = parseMinorUnits(requireFlag('--amount', flags.amount, 'minor units, e.g. 1499 for 14.99 EUR'))
  checkCardOnlyFlags(product, {'--card': flags.card, '--cvv-stdin': flags['cvv-stdin']})
  const customer = requireFlag('--customer', flags.customer)
  const card = product === 'card' ? requireFlag('--card', flags.card) : undefined
  const redirectUrl = requireFlag('--redirect-url', flags['redirect-url'], 'an absolute http(s) URL')
  const paymentProfile = requireFlag('--payment-profile', flags['payment-profile'] ?? env.paymentProfile, 'the profile has none', {
    kind: 'set-profile-values',
    profile: '<name>',
    flags: ['--payment-profile <id>'],
  })

  const warnings: string[] = []
  let descriptor = flags.descriptor
  if (descriptor !== undefined && product === 'sofort') {
    const prepared = prepareSofortDescriptor(descriptor)
    descriptor = prepared.value
    warnings.push(...prepared.notes)
  }

  const body: TransactionStartRequest = {
    payment_profile: paymentProfile,
    amount,
    customer,
    customer_ip: flags['customer-ip'],
    ...(descriptor === undefined ? {} : {dynamic_descriptor: descriptor}),
    merchant_reference: flags['merchant-reference'] ?? env.merchantReference,
    payment_product: product,
    user_agent: flags['user-agent'] ?? `paytx/${env.version}`,
    ...(card === undefined ? {} : {card}),
    details: {redirect_url: redirectUrl, ...(stdin.cvv ? {card_cvv: stdin.cvv} : {})},
    ...(flags['webhook-url'] === undefined ? {} : {webhook_transaction_update: flags['webhook-url']}),
  }

  const {validateTransactionStartRequest} = await import('../../api/schemas.js')
  const issues = validateTransactionStartRequest(body)
  if (issues.length > 0) {
    throw new InputErrors(issues.map((issue) => ({flag: TRANSACTION_FIELD_FLAGS[issue.path] ?? issue.path, field: issue.path, message: issue.message})))
  }
  return {body, open: flags.open, yes: flags.yes, warnings}
}
