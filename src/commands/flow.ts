import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {PRODUCTS, type Product} from '../api/contract.js'
import {normalizePan} from '../secrets/card-number.js'
import type {CustomerRequest} from '../api/schemas.js'
import {InputError, type OutcomeExitCode, outcomeExitCode} from '../errors.js'
import {BaseCommand, EXIT_CODES_HELP} from '../cli/base-command.js'
import {APPROVAL_OUTCOMES} from '../test-mode/outcomes.js'
import type {FlowOptions} from '../flow/flow-options.js'
import type {FlowResult} from '../flow/run-flow.js'
import {parseDuration} from '../duration.js'
import {TRANSACTION_ANSWER_CHECKS, checkCardOnlyFlags, parseMinorUnits, prepareSofortDescriptor} from '../input/transaction-request.js'
import {unknownCustomerKeys} from '../input/customer-request.js'
import {cardAnswerChecks} from '../input/card-request.js'
import {requireFlag} from '../input/required-flag.js'
import type {Environment} from '../profiles/presets.js'
import {toTunnelRequest, tunnelFlags} from '../cli/tunnel-flags.js'

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

Webhooks: on the local profile the listener also receives the transaction's webhooks (--webhook local) and the summary lists them. A remote service cannot reach 127.0.0.1: on sandbox or production, --tunnel cloudflared (no account needed) or --tunnel ngrok starts that program to the listener, passes its public address (with the listener's token on the path) as the transaction's webhook_transaction_update, and stops it when the flow ends; --tunnel-command runs any other tool. Or pass --webhook-url with a public address of your own.

${EXIT_CODES_HELP}`

  static override examples = [
    '<%= config.bin %> flow --product dummy --amount 1499 --approve SETTLEMENT_COMPLETED',
    '<%= config.bin %> flow --product card --amount 2500',
    '<%= config.bin %> flow --product sofort --amount 990 --descriptor "Order 4711" --no-open --json',
    '<%= config.bin %> flow --product card --amount 100 --profile sandbox --tunnel cloudflared',
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
    ...tunnelFlags,
  }

  static override askedFlags = ['product', 'amount']

  public async run(): Promise<FlowJson> {
    const profile = this.profile()
    const flags = await this.askForRequired(this.flags)
    const input = await this.readInput(flags)
    const {options, notes} = toFlowOptions(input.flags, {environment: profile.profile.env, version: this.config.version, signal: this.interruptSignal()}, input.stdin)
    for (const note of notes) this.note(note)
    const {FLOW_FIELD_FLAGS, validateFlowOptions} = await import('../flow/flow-options.js')
    this.fieldFlags = FLOW_FIELD_FLAGS
    await validateFlowOptions(profile, options)
    await this.confirmProduction('run a payment flow (create a customer, card and transaction)', flags.yes)

    const {createStepReporter} = await import('../output/step-reporter.js')
    const interactive = this.interactive()
    const reporter = await createStepReporter({stream: this.ctx.io.stderr, stdin: this.ctx.io.stdin, secrets: this.secrets, interactive, color: interactive && !this.ctx.env.NO_COLOR})
    if (options.webhook.mode === 'tunnel') options.webhook.tunnel.announce = (line) => reporter.note({tone: 'info', label: 'tunnel', value: line})
    const emulator = await this.ctx.emulator(profile)
    if (emulator.started) reporter.note({tone: 'done', label: 'emulator started', value: `${emulator.url}  (in this process, until the flow ends)`})
    if (options.webhook.mode === 'none' && profile.profile.env !== 'local' && !flags.webhook) {
      reporter.note({tone: 'info', label: 'webhooks', value: 'go to the payment profile’s own address; to see them here, add --tunnel cloudflared (or ngrok)'})
    }
    try {
      const {runFlow} = await import('../flow/run-flow.js')
      const result = await runFlow(await this.service(), profile, options, {onEvent: (event) => reporter.render(event), openUrl: this.ctx.browser, timer: this.ctx.clock})
      const [{renderFlowSummary}, {lineWidth}] = await Promise.all([import('../output/flow-summary.js'), import('../output/wrap.js')])
      this.print(renderFlowSummary(result, {width: lineWidth(this.ctx.io.stdout)}))
      const exitCode = outcomeExitCode(result)
      this.setOutcomeExitCode(exitCode)
      return {exitCode, ...result}
    } finally {
      reporter.stop()
      await emulator.stop()
    }
  }

  /** --product and --amount: asked of a person at the terminal, as `transaction start` asks; otherwise their absence is an input error. */
  private async askForRequired(flags: FlowFlags): Promise<FlowFlags> {
    const missing = Flow.askedFlags.filter((name) => flags[name as 'product' | 'amount'] === undefined)
    if (missing.length === 0) return flags
    if (!this.interactive()) throw this.missingFlagsError(missing)
    const product = flags.product ?? (await this.prompter().choose('Payment product', PRODUCTS))
    const amount = await this.requireValue('--amount', flags.amount, {message: 'Amount in minor units (1499 is 14.99 EUR)', validate: TRANSACTION_ANSWER_CHECKS.amount})
    return {...flags, product, amount}
  }

  /**
   * What the flow reads besides its flags: --customer-data's object, the card number and CVV
   * from stdin, and on production the card's values asked of a person at the terminal.
   */
  private async readInput(flags: FlowFlags): Promise<{flags: FlowFlags; stdin: FlowStdin}> {
    const stdin: FlowStdin = {}
    const card = flags.product === 'card'
    const cardFromStdin = card && (flags['pan-stdin'] || flags['cvv-stdin'])
    // Both want stdin: toFlowOptions refuses the pair before anything is read.
    if (flags['customer-data'] === '-' && (flags['pan-stdin'] || flags['cvv-stdin'])) return {flags, stdin}
    if (flags['customer-data'] !== undefined) {
      const {readJsonObject} = await import('../input/json-data.js')
      stdin.customerData = await readJsonObject(flags['customer-data'], '--customer-data', this.ctx.io.stdin)
    }
    if (cardFromStdin) {
      const stdinFlags = [flags['pan-stdin'] ? '--pan-stdin' : undefined, flags['cvv-stdin'] ? '--cvv-stdin' : undefined].filter((flag): flag is string => flag !== undefined)
      const {readStdinValues} = await import('../input/stdin.js')
      const values = await readStdinValues(stdinFlags, this.ctx.io.stdin)
      for (const [index, flag] of stdinFlags.entries()) {
        if (flag === '--pan-stdin') stdin.pan = values[index]
        else stdin.cvv = values[index]
      }
    }
    const production = this.profile().profile.env === 'production'
    const asking = card && flags.card === undefined && production && this.interactive()
    // Each answer is checked as it is typed, by the rules `card tokenize` uses.
    const checks = asking ? await cardAnswerChecks() : undefined
    if (checks) stdin.pan ??= await this.requireValue('--pan-stdin', undefined, {message: 'Card number (hidden)', secret: true, validate: checks.pan})
    this.addSecrets(stdin.pan, stdin.pan === undefined ? undefined : normalizePan(stdin.pan), stdin.cvv)
    if (!checks) return {flags, stdin}
    const month = await this.requireValue('--expiry-month', flags['expiry-month'], {message: 'Expiry month (01-12)', allowed: '01-12', validate: checks.expiryMonth})
    const year = await this.requireValue('--expiry-year', flags['expiry-year'], {message: 'Expiry year (four digits)', allowed: 'four digits', validate: checks.expiryYear(month)})
    const holder = await this.requireValue('--holder-name', flags['holder-name'], {message: 'Name on the card', validate: checks.holderName})
    return {flags: {...flags, 'expiry-month': month, 'expiry-year': year, 'holder-name': holder}, stdin}
  }
}

export type FlowFlags = Interfaces.InferredFlags<typeof Flow.flags>

/** What the flow needs from outside its flags. */
export interface FlowEnv {
  environment: Environment
  /** paytx's version, for the transaction's user agent. */
  version: string
  /** Aborted on Ctrl-C or SIGTERM. */
  signal: AbortSignal
}

/** Values read from stdin (or a hidden prompt), never from the command line. */
export interface FlowStdin {
  /** --customer-data's object. */
  customerData?: Record<string, unknown>
  /** The card number from --pan-stdin or a hidden prompt. */
  pan?: string
  cvv?: string
}

/** An existing customer (--customer), or one to create from --customer-data's fields. */
function flowCustomer(flags: FlowFlags, stdin: FlowStdin): FlowOptions['customer'] {
  if (flags.customer !== undefined) return {id: flags.customer}
  if (stdin.customerData === undefined) return undefined
  const unknown = unknownCustomerKeys(stdin.customerData)
  if (unknown.length > 0) {
    throw new InputError(`--customer-data: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}.`, {
      flag: '--customer-data',
      remedy: {kind: 'fix-customer-data'},
    })
  }
  return {data: stdin.customerData as CustomerRequest}
}

/** A card payment's card: an existing one (--card), or one to tokenize (every value required on production). */
function flowCard(flags: FlowFlags, env: FlowEnv, stdin: FlowStdin): Pick<FlowOptions, 'card' | 'cvv'> {
  const production = env.environment === 'production'
  let card: FlowOptions['card']
  if (flags.card !== undefined) card = {id: flags.card}
  else if (flags['pan-stdin'] || production) {
    card = {
      pan: normalizePan(requireFlag('--pan-stdin', stdin.pan)),
      expiryMonth: production ? requireFlag('--expiry-month', flags['expiry-month']) : flags['expiry-month'],
      expiryYear: production ? requireFlag('--expiry-year', flags['expiry-year']) : flags['expiry-year'],
      holderName: production ? requireFlag('--holder-name', flags['holder-name']) : flags['holder-name'],
    }
  }
  const {cvv} = stdin
  if (cvv !== undefined && !/^\d{3,4}$/.test(cvv)) throw new InputError('--cvv-stdin must read 3 or 4 digits from stdin.', {flag: '--cvv-stdin'})
  return {card, cvv}
}

/** Where webhooks go: --webhook-url, none, or the flow's own listener (the default against a local profile). */
function flowWebhook(flags: FlowFlags, env: FlowEnv): FlowOptions['webhook'] {
  const tunnel = toTunnelRequest(flags)
  if (tunnel && (flags['webhook-url'] !== undefined || flags.webhook !== undefined)) {
    const other = flags['webhook-url'] === undefined ? `--webhook ${flags.webhook}` : '--webhook-url'
    throw new InputError(`A tunnel gives the flow its own webhook address, so it cannot be combined with ${other}.`, {flag: flags.tunnel === undefined ? '--tunnel-command' : '--tunnel'})
  }
  if (tunnel) return {mode: 'tunnel', tunnel}
  if (flags['webhook-url'] !== undefined) return {mode: 'url', url: flags['webhook-url']}
  if (flags.webhook === 'none' || (flags.webhook === undefined && env.environment !== 'local')) return {mode: 'none'}
  return {mode: 'local'}
}

/**
 * The flags of `flow` as the flow to run; an InputError (exit 2) names the first flag that is
 * missing or wrong. `notes` say how the input was changed (a transliterated descriptor).
 */
export function toFlowOptions(flags: FlowFlags, env: FlowEnv, stdin: FlowStdin): {options: FlowOptions; notes: string[]} {
  const product = flags.product as Product
  const amount = parseMinorUnits(flags.amount)
  const waitTimeoutMs = parseDuration(flags['wait-timeout'], '--wait-timeout')

  const notes: string[] = []
  let descriptor = flags.descriptor
  if (descriptor !== undefined && product === 'sofort') {
    const prepared = prepareSofortDescriptor(descriptor)
    descriptor = prepared.value
    notes.push(...prepared.notes)
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

  const customer = flowCustomer(flags, stdin)
  const {card, cvv} = product === 'card' ? flowCard(flags, env, stdin) : {card: undefined, cvv: undefined}
  const webhook = flowWebhook(flags, env)

  return {
    options: {
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
      signal: env.signal,
      userAgent: `paytx/${env.version}`,
    },
    notes,
  }
}
