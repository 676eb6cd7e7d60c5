import {Flags} from '@oclif/core'

import {type CustomerRequest, PRODUCTS, type Product, luhnValid, normalizePan} from '../api/contract.js'
import {InputError, type OutcomeExitCode, outcomeExitCode} from '../errors.js'
import {BaseCommand, EXIT_CODES_HELP} from '../base-command.js'
import {APPROVAL_OUTCOMES} from '../test-mode/outcomes.js'
import type {FlowOptions} from '../flow/flow-options.js'
import type {FlowResult} from '../flow/run-flow.js'
import {parseDuration} from '../duration.js'
import {checkCardOnlyFlags, parseMinorUnits, prepareSofortDescriptor} from '../input/transaction-request.js'

const outcomesHelp = (Object.entries(APPROVAL_OUTCOMES) as [Product, readonly string[]][])
  .map(([product, outcomes]) => `  ${product.padEnd(7)} ${outcomes.join(', ')}`)
  .join('\n')

/** What `--json` prints: the flow's result with the exit code it leads to. */
export type FlowJson = {exitCode: OutcomeExitCode} & FlowResult

export default class Flow extends BaseCommand<typeof Flow, FlowJson> {
  static override summary = 'Run a whole payment flow: customer, card, transaction, approval page, redirect, webhooks, final status.'
  static override description = `Creates a customer (sample data on local and sandbox profiles), tokenizes a card for --product card (a test card on local and sandbox), starts the transaction with its redirect_url pointing at a one-shot listener on 127.0.0.1, opens the approval page in the browser (BROWSER is honoured), catches the redirect, then asks the service for the status until it is conclusive. The verdict comes from the service (checkoutsuccess), never from the redirect.

Progress goes to stderr; stdout holds the summary, or one JSON object with --json.

On the local profile with nothing listening at its address, the emulator starts inside this process for the run, so a fresh clone needs nothing else. --approve <outcome> completes the emulator's approval page without a browser:
${outcomesHelp}

Webhooks: on the local profile the listener also receives the transaction's webhooks (--webhook local) and the summary lists them. A remote service cannot reach 127.0.0.1: on sandbox or production pass --webhook-url with a public address; running a tunnel to it (and a receiver such as \`paytx webhook listen\`) is yours to do.

${EXIT_CODES_HELP}`

  static override examples = [
    '<%= config.bin %> flow --product dummy --amount 1499 --approve SETTLEMENT_COMPLETED',
    '<%= config.bin %> flow --product card --amount 2500',
    '<%= config.bin %> flow --product sofort --amount 990 --descriptor "Order 4711" --no-open --json',
    '<%= config.bin %> flow --product card --amount 100 --profile sandbox --webhook-url https://example.ngrok.app/hooks',
    'printf "%s\\n" "$PAN" | <%= config.bin %> flow --product card --amount 100 --profile production --customer 4f1c0e2a --pan-stdin --expiry-month 09 --expiry-year 2029 --holder-name "J Doe" --yes',
  ]

  static override flags = {
    product: Flags.string({summary: 'Payment product.', options: [...PRODUCTS], required: true}),
    amount: Flags.string({summary: 'Amount in minor units: 1499 for 14.99 EUR.', required: true}),
    customer: Flags.string({summary: 'Reuse this customer id instead of creating one.', exclusive: ['customer-data']}),
    'customer-data': Flags.string({summary: 'Create the customer from this JSON file (- for stdin), fields as in `customer create`.'}),
    card: Flags.string({summary: 'Reuse this card id (card product).', exclusive: ['pan-stdin']}),
    'pan-stdin': Flags.boolean({summary: 'Read the card number from stdin (first line) and tokenize it.', default: false}),
    'expiry-month': Flags.string({summary: 'Expiry month of the card read with --pan-stdin (default 12 off production).'}),
    'expiry-year': Flags.string({summary: 'Four-digit expiry year of that card (default three years ahead off production).'}),
    'holder-name': Flags.string({summary: 'Cardholder name of that card (default the customer’s name off production).'}),
    'cvv-stdin': Flags.boolean({
      summary: 'Read the CVV from stdin (the line after the card number with --pan-stdin); without it the approval page asks.',
      default: false,
    }),
    descriptor: Flags.string({summary: 'dynamic_descriptor (sofort: at most 27 of 0-9 a-z A-Z space + . - ,; umlauts transliterated).'}),
    'merchant-reference': Flags.string({summary: 'merchant_reference (default: a generated unique one).'}),
    approve: Flags.string({summary: 'Emulator only: complete the approval page with this outcome, no browser needed.'}),
    open: Flags.boolean({summary: 'Open the approval page in the browser; --no-open prints it and waits.', default: true, allowNo: true}),
    webhook: Flags.string({
      summary: 'local: receive the webhooks on the flow’s listener (default on the local profile); none: ask for none.',
      options: ['local', 'none'],
      exclusive: ['webhook-url'],
    }),
    'webhook-url': Flags.string({summary: 'Public webhook address for sandbox or production (a tunnel you run).'}),
    port: Flags.integer({summary: 'Port of the redirect listener on 127.0.0.1 (default: a free one).', min: 0, max: 65_535}),
    'wait-timeout': Flags.string({summary: 'How long to wait for the payment to finish, e.g. 90s, 10m.', default: '10m'}),
    until: Flags.string({
      summary:
        'final: stop at a conclusive status (SETTLEMENT_REQUESTED counts as success); settled: wait for SETTLEMENT_COMPLETED. Default: settled with --approve SETTLEMENT_COMPLETED, else final.',
      options: ['final', 'settled'],
    }),
    yes: Flags.boolean({summary: 'Confirm a run on a production profile without asking.', default: false}),
  }

  public async run(): Promise<FlowJson> {
    const {flags} = this
    const profile = this.profile()
    const product = flags.product as Product
    const options = await this.flowOptions(product)
    const {FLOW_FIELD_FLAGS, validateFlowOptions} = await import('../flow/flow-options.js')
    this.fieldFlags = FLOW_FIELD_FLAGS
    await validateFlowOptions(profile, options)
    await this.confirmProduction('run a payment flow (create a customer, card and transaction)', flags.yes)

    const {createStepReporter} = await import('../output/step-reporter.js')
    const interactive = this.interactive()
    const reporter = await createStepReporter({secrets: this.secrets, interactive, color: interactive && !process.env.NO_COLOR})
    const {ensureEmulator} = await import('../flow/embedded-emulator.js')
    const emulator = await ensureEmulator(profile)
    if (emulator.started) reporter.note({tone: 'done', label: 'emulator started', value: `${emulator.url}  (in this process, until the flow ends)`})
    if (options.webhook.mode === 'none' && profile.profile.env !== 'local' && !flags.webhook) {
      reporter.note({tone: 'info', label: 'webhooks', value: 'go to the payment profile’s own address; to see them here, run a tunnel and pass --webhook-url'})
    }
    try {
      const {runFlow} = await import('../flow/run-flow.js')
      const result = await runFlow(await this.service(), profile, options, {onEvent: (event) => reporter.render(event)})
      const {renderFlowSummary} = await import('../output/flow-summary.js')
      this.print(renderFlowSummary(result))
      const exitCode = outcomeExitCode(result)
      this.setOutcomeExitCode(exitCode)
      return {exitCode, ...result}
    } finally {
      reporter.stop()
      await emulator.stop()
    }
  }

  private async flowOptions(product: Product): Promise<FlowOptions> {
    const {flags} = this
    const profile = this.profile()
    const env = profile.profile.env
    const amount = parseMinorUnits(flags.amount)
    const waitTimeoutMs = parseDuration(flags['wait-timeout'], '--wait-timeout')

    let descriptor = flags.descriptor
    if (descriptor !== undefined && product === 'sofort') {
      const prepared = prepareSofortDescriptor(descriptor)
      descriptor = prepared.value
      for (const note of prepared.notes) this.note(note)
    }

    if (flags['customer-data'] === '-' && (flags['pan-stdin'] || flags['cvv-stdin'])) {
      throw new InputError('--customer-data - reads stdin, so it cannot be combined with --pan-stdin or --cvv-stdin.', {flag: '--customer-data'})
    }
    checkCardOnlyFlags(product, {
      '--card': flags.card,
      '--pan-stdin': flags['pan-stdin'],
      '--cvv-stdin': flags['cvv-stdin'],
      '--expiry-month': flags['expiry-month'],
      '--expiry-year': flags['expiry-year'],
      '--holder-name': flags['holder-name'],
    })

    let customer: FlowOptions['customer']
    if (flags.customer !== undefined) customer = {id: flags.customer}
    else if (flags['customer-data'] !== undefined) {
      const {readJsonObject} = await import('../input/json-data.js')
      const {unknownCustomerKeys} = await import('../input/customer-request.js')
      const data = await readJsonObject(flags['customer-data'], '--customer-data')
      const unknown = unknownCustomerKeys(data)
      if (unknown.length > 0) {
        throw new InputError(`--customer-data: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}.`, {
          flag: '--customer-data',
          hint: 'The fields are those of `paytx customer create --data`.',
        })
      }
      customer = {data: data as CustomerRequest}
    }

    const stdinFlags = [flags['pan-stdin'] ? '--pan-stdin' : undefined, flags['cvv-stdin'] ? '--cvv-stdin' : undefined].filter(
      (flag): flag is string => flag !== undefined,
    )
    const stdinValues = new Map<string, string>()
    if (stdinFlags.length > 0) {
      const {readStdinValues} = await import('../input/stdin.js')
      const values = await readStdinValues(stdinFlags)
      for (const [index, flag] of stdinFlags.entries()) stdinValues.set(flag, values[index])
    }

    let card: FlowOptions['card']
    let cvv: string | undefined
    if (product === 'card') {
      if (flags.card !== undefined) card = {id: flags.card}
      else if (flags['pan-stdin'] || env === 'production') {
        const pan = normalizePan(
          stdinValues.get('--pan-stdin') ??
            (await this.requireValue('--pan-stdin', undefined, {
              message: 'Card number (hidden):',
              secret: true,
              validate: (value) => (luhnValid(normalizePan(value)) ? true : 'not a valid card number'),
            })),
        )
        this.secrets.push(pan)
        const production = env === 'production'
        card = {
          pan,
          expiryMonth: production ? await this.requireValue('--expiry-month', flags['expiry-month'], {message: 'Expiry month (01-12):'}) : flags['expiry-month'],
          expiryYear: production ? await this.requireValue('--expiry-year', flags['expiry-year'], {message: 'Expiry year (four digits):'}) : flags['expiry-year'],
          holderName: production ? await this.requireValue('--holder-name', flags['holder-name'], {message: 'Cardholder name:'}) : flags['holder-name'],
        }
      }
      cvv = stdinValues.get('--cvv-stdin')
      if (cvv !== undefined) {
        this.secrets.push(cvv)
        if (!/^\d{3,4}$/.test(cvv)) throw new InputError('--cvv-stdin must read 3 or 4 digits from stdin.', {flag: '--cvv-stdin'})
      }
    }

    let webhook: FlowOptions['webhook']
    if (flags['webhook-url'] !== undefined) webhook = {mode: 'url', url: flags['webhook-url']}
    else if (flags.webhook === 'none' || (flags.webhook === undefined && env !== 'local')) webhook = {mode: 'none'}
    else webhook = {mode: 'local'}

    return {
      product,
      amount,
      customer,
      card,
      cvv,
      descriptor,
      merchantReference: flags['merchant-reference'],
      approve: flags.approve,
      openBrowser: flags.open,
      webhook,
      listenerPort: flags.port,
      waitTimeoutMs,
      until: flags.until === 'settled' || (flags.until === undefined && flags.approve === 'SETTLEMENT_COMPLETED') ? 'settled' : 'final',
      signal: this.interruptSignal(),
      userAgent: `paytx/${this.config.version}`,
    }
  }
}

