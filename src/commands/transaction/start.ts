import {Flags} from '@oclif/core'

import {PRODUCTS, type Product, type Transaction, type TransactionStartRequest, readId} from '../../api/contract.js'
import {InputError, InputErrors} from '../../errors.js'
import {BaseCommand, EXIT_CODES_HELP} from '../../base-command.js'
import {
  TRANSACTION_FIELD_FLAGS,
  checkCardOnlyFlags,
  describeAmount,
  generateMerchantReference,
  parseMinorUnits,
  prepareSofortDescriptor,
} from '../../input/transaction-request.js'
import {table} from '../../output/table.js'
import {describeStatus} from '../../output/transaction.js'

export default class TransactionStart extends BaseCommand<typeof TransactionStart, Transaction> {
  static override summary = 'Start a card, sofort or dummy transaction (POST /v1/transaction/start).'
  static override description = `Prints the transaction's id, status and details.approval_url, the address where the customer
authorizes the payment; --open opens it in the browser (BROWSER is honoured). Then check the
outcome server-side with \`paytx status <id>\` or \`paytx checkoutsuccess <id>\`.

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
    const {flags} = this
    const product = (flags.product ?? (await this.askProduct())) as Product
    const amount = parseMinorUnits(await this.requireValue('--amount', flags.amount, {message: 'Amount in minor units (1499 is 14.99 EUR)', allowed: 'minor units, e.g. 1499 for 14.99 EUR'}))
    checkCardOnlyFlags(product, {'--card': flags.card, '--cvv-stdin': flags['cvv-stdin']})
    const customer = await this.requireValue('--customer', flags.customer, {message: 'Customer id'})
    const card = product === 'card' ? await this.requireValue('--card', flags.card, {message: 'Card id (from paytx card tokenize)'}) : undefined
    const redirectUrl = await this.requireValue('--redirect-url', flags['redirect-url'], {message: 'Redirect URL (where the customer lands afterwards)', allowed: 'an absolute http(s) URL'})
    const paymentProfile = await this.requireValue('--payment-profile', flags['payment-profile'] ?? this.profile().profile.payment_profile, {
      message: 'Payment profile id',
      allowed: 'the profile has none; set it with `paytx profile add <name> --payment-profile <id>`',
    })

    let descriptor = flags.descriptor
    if (descriptor !== undefined && product === 'sofort') {
      const prepared = prepareSofortDescriptor(descriptor)
      descriptor = prepared.value
      for (const note of prepared.notes) this.warnUser(note)
    }

    const body: TransactionStartRequest = {
      payment_profile: paymentProfile,
      amount,
      customer,
      customer_ip: flags['customer-ip'],
      ...(descriptor === undefined ? {} : {dynamic_descriptor: descriptor}),
      merchant_reference: flags['merchant-reference'] ?? generateMerchantReference(),
      payment_product: product,
      user_agent: flags['user-agent'] ?? `paytx/${this.config.version}`,
      ...(card === undefined ? {} : {card}),
      details: {redirect_url: redirectUrl},
      ...(flags['webhook-url'] === undefined ? {} : {webhook_transaction_update: flags['webhook-url']}),
    }
    if (product === 'card') {
      const cvv = await this.readCvv()
      if (cvv) body.details.card_cvv = cvv
    }

    const {validateTransactionStartRequest} = await import('../../api/schemas.js')
    const issues = validateTransactionStartRequest(body)
    if (issues.length > 0) {
      throw new InputErrors(issues.map((issue) => ({flag: TRANSACTION_FIELD_FLAGS[issue.path] ?? issue.path, field: issue.path, message: issue.message})))
    }

    await this.confirmProduction(`start a ${product} transaction of ${describeAmount(amount)}`, flags.yes)
    const service = await this.service()
    const transaction = await service.startTransaction(body)
    const id = readId(transaction) ?? '(no id)'
    const approvalUrl = transaction.details?.approval_url
    this.print(
      table([
        ['Transaction', id],
        ['Status', typeof transaction.status === 'string' ? describeStatus(transaction.status) : undefined],
        ['Amount', describeAmount(amount)],
        ['Product', product],
        ['Reference', body.merchant_reference],
        ['Approval URL', typeof approvalUrl === 'string' ? approvalUrl : '(none returned)'],
      ]),
    )
    if (flags.open) await this.openApproval(approvalUrl)
    this.note(`Next: ${flags.open ? 'authorize in the browser' : 'send the customer to the approval URL'}, then \`paytx status ${id}\`.`)
    return transaction
  }

  private async askProduct(): Promise<string> {
    if (!this.interactive()) throw new InputError(`--product is required (${PRODUCTS.join(', ')}).`, {flag: '--product'})
    const {choose} = await import('../../terminal/prompts.js')
    return choose('Payment product', PRODUCTS)
  }

  /** The CVV from --cvv-stdin, else a hidden prompt that may be left empty; never echoed. */
  private async readCvv(): Promise<string | undefined> {
    let cvv: string | undefined
    if (this.flags['cvv-stdin']) {
      const {readStdinValues} = await import('../../input/stdin.js')
      ;[cvv] = await readStdinValues(['--cvv-stdin'])
    } else if (this.interactive()) {
      const {askSecret} = await import('../../terminal/prompts.js')
      cvv = (
        await askSecret('CVV (hidden; empty to enter it on the approval page)', {
          validate: (value) => (value.trim() === '' || /^\d{3,4}$/.test(value.trim()) ? true : '3 or 4 digits, or empty'),
        })
      ).trim()
    }
    if (cvv) this.addSecrets(cvv)
    return cvv || undefined
  }

  private async openApproval(url: unknown): Promise<void> {
    if (typeof url !== 'string' || url === '') {
      this.warnUser('the service returned no approval URL to open.')
      return
    }
    const {openInBrowser} = await import('../../terminal/browser.js')
    const opened = await openInBrowser(url)
    if (opened.opened) this.note(`Opened ${url}`)
    else this.warnUser(`${opened.reason}; open the approval URL yourself.`)
  }
}
