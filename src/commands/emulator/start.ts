import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {DEFAULT_API_KEY_HEADER, PROXY_KEY_HEADER} from '../../api/contract.js'
import {EXIT, InputError} from '../../errors.js'
import {BaseCommand} from '../../cli/base-command.js'
import {EMULATOR_DEFAULTS} from '../../test-mode/emulator-defaults.js'
import {CARD_RECORDS, type CardRecordShape, DEFAULT_ASSUMPTIONS, type EmulatorEvent, type EmulatorOptions, ID_KEY_CHOICES, type IdKeyChoice, type PaymentProfileSetting, WEBHOOK_PAYLOADS, type WebhookPayload} from '../../emulator/index.js'
import {dataFolderExposure, isUuid, parsePaymentProfileSetting, resolveStoreLocation} from '../../emulator/store/index.js'
import {DURATION_HELP, formatExactDuration, parseDuration} from '../../duration.js'
import {isAbsoluteHttpUrl} from '../../http/url.js'
import type {OwnerGone, OwnerWatch} from '../../process/owner.js'
import {redactUrl} from '../../secrets/redact-url.js'
import {INTERRUPT_SIGNALS, type StopSignal} from '../../terminal/interrupt.js'

export default class EmulatorStart extends BaseCommand<typeof EmulatorStart, undefined> {
  static override summary = 'Run the local emulator of the service: API, card proxy, approval pages, webhooks.'
  static override description = `A stateful stand-in for the Payment Transaction Service on this machine: every endpoint of the spec (the card proxy under /h2h), approval pages per product, test cards, settlement over time and webhooks with retries. The built-in "local" profile matches its defaults, so every command works against it with no set-up.

Its state is an SQLite store shared by every paytx process on this machine: by default emulator.db in paytx's data folder ($XDG_DATA_HOME/paytx, else ~/.local/share/paytx; %LOCALAPPDATA%\\paytx on Windows; PAYTX_DATA_DIR moves it), or --store <file>; --store :memory: keeps nothing. Every change is committed before it is answered; settlements and webhooks that fall due while no emulator runs happen when the next one starts. A paytx 0.1 JSON state file given to --store is imported once (the JSON file is kept beside it).

Your own organisation and payment profile ids are accepted after --organisation and --payment-profile (kept in the store).

Where the spec is silent it takes the narrowest reading (paytx emulator assumptions): webhooks carry only type and the id, so receivers re-fetch the transaction; --webhook-payload full, --id-keys and --card-record choose another reading, and --readings <file> adopts the readings \`paytx emulator verify --save\` took from the sandbox.

Its root address is a dashboard for a browser: recent transactions, each one's status timeline and webhook deliveries, and forms to trigger a status or resend webhooks (also paytx emulator trigger and resend).

Prints its addresses, the default payment profile and the keys it accepts (emulator test keys), then one line per request, status change and webhook delivery attempt (NDJSON events with --json). Ctrl-C stops it cleanly and exits 130; so does the end of the program that started it (a test harness, a script), unless --no-exit-with-parent, and, with --exit-with-stdin, the end of its stdin.

--faults <file> breaks requests and webhooks on purpose (error statuses, Retry-After, latency, resets, cut bodies; dropped, duplicated, out-of-order and delayed webhooks); rules can also be added and removed while it runs (\`paytx emulator faults\`, /_emulator/faults). Each applied fault is one more line (NDJSON event "fault"). Probabilities come from a seeded generator: --seed repeats a run exactly.

Durations (--settle-after, --pending-for, --abandon-after, --webhook-backoff) are ${DURATION_HELP}.

EXIT CODES
  2    a flag is not valid, the port is in use or cannot be listened on, the fault file has a problem (line and column named), or the store file is not an emulator store
  130  stopped with Ctrl-C (or SIGTERM), after closing`

  static override examples = [
    '<%= config.bin %> emulator start',
    '<%= config.bin %> emulator start --port 0 --settle-after 0 --json',
    '<%= config.bin %> emulator start --store ./emulator.db --webhook-url http://127.0.0.1:4242/webhooks',
    '<%= config.bin %> emulator start --faults examples/faults.yaml --seed 42',
    '<%= config.bin %> emulator start --organisation 3f1c2a9e-0000-4000-8000-000000000001 --payment-profile 3f1c2a9e-0000-4000-8000-000000000002=http://127.0.0.1:4242/webhooks',
  ]

  // The profile, timeout and prompt flags of the API commands mean nothing here: hidden from help.
  static override baseFlags = hideFlags(BaseCommand.baseFlags)

  protected override jsonLines = true

  // Closing the terminal stops it as cleanly as Ctrl-C does.
  protected override stopSignals: readonly StopSignal[] = [...INTERRUPT_SIGNALS, 'SIGHUP']

  static override flags = {
    port: Flags.integer({summary: 'Port to listen on; 0 picks a free one (printed).', default: EMULATOR_DEFAULTS.port, min: 0, max: 65535}),
    host: Flags.string({summary: 'Address to listen on.', default: EMULATOR_DEFAULTS.host}),
    'public-url': Flags.string({summary: 'The address it is reached at from elsewhere (a compose service, a port mapping), e.g. http://paytx:4010: used in approval_url and the pages, and its host is answered as the emulator\'s own.'}),
    'api-key': Flags.string({summary: 'API key it accepts.', default: EMULATOR_DEFAULTS.apiKey}),
    'api-key-header': Flags.string({summary: 'Header that carries the API key.', default: DEFAULT_API_KEY_HEADER}),
    'proxy-key': Flags.string({summary: `Card proxy key it accepts (${PROXY_KEY_HEADER}).`, default: EMULATOR_DEFAULTS.proxyKey}),
    'proxy-id': Flags.string({summary: 'Card proxy id in the tokenize path.', default: EMULATOR_DEFAULTS.proxyId}),
    store: Flags.string({summary: 'The SQLite store to keep the state in; :memory: keeps nothing. Default: emulator.db in the data folder.'}),
    organisation: Flags.string({summary: 'Also accept this organisation UUID (kept in the store; repeatable).', multiple: true}),
    'payment-profile': Flags.string({
      summary: 'Also accept this payment profile, <uuid> or <uuid>=<webhook url> (of the first --organisation; kept in the store; repeatable).',
      multiple: true,
    }),
    'settle-after': Flags.string({summary: 'Time from SETTLEMENT_REQUESTED to SETTLEMENT_COMPLETED.', default: formatExactDuration(EMULATOR_DEFAULTS.settleAfterMs)}),
    'pending-for': Flags.string({summary: 'Time a PENDING payment waits before it settles.', default: formatExactDuration(EMULATOR_DEFAULTS.pendingForMs)}),
    'abandon-after': Flags.string({
      summary: 'Time after which an unfinished approval (INITIATED, IN_PROGRESS) becomes ABANDONED.',
      default: formatExactDuration(EMULATOR_DEFAULTS.abandonAfterMs),
    }),
    'webhook-url': Flags.string({summary: "The default payment profile's webhook_transaction_update."}),
    'webhook-attempts': Flags.integer({summary: 'Delivery attempts per webhook, the first included.', default: 5, min: 1, max: 20}),
    'webhook-backoff': Flags.string({summary: 'Wait before the first webhook retry, doubled for each further one.', default: '500ms'}),
    'webhook-payload': Flags.string({
      summary: 'Webhook body: minimal (type and the id; receivers re-fetch) or full (also status and the whole transaction).',
      options: [...WEBHOOK_PAYLOADS],
      default: DEFAULT_ASSUMPTIONS.webhookPayload,
    }),
    'id-keys': Flags.string({
      summary: 'Id keys of the webhook body and the card record: both (id and _id), id or _id.',
      options: [...ID_KEY_CHOICES],
      default: DEFAULT_ASSUMPTIONS.idKeys,
    }),
    'card-record': Flags.string({
      summary: "Card record names: earlier (last_four, card_holder_name) or request-names (last4, holder_name, paytx 0.1's).",
      options: [...CARD_RECORDS],
      default: DEFAULT_ASSUMPTIONS.cardRecord,
    }),
    readings: Flags.string({
      summary: 'A readings file of emulator verify --save: answer as the service it was taken from did (id keys, card record, webhook body and retries, API key header, the observed timings, the fields only it sent); it wins over those flags.',
    }),
    faults: Flags.string({summary: 'A fault file (YAML or JSON): rules that break requests and webhooks on purpose.'}),
    seed: Flags.integer({summary: 'Seed of the fault rules\' probabilities (same seed, same faults); default: the file\'s, else random (printed).', min: 0, max: 2 ** 32 - 1}),
    'exit-with-parent': Flags.boolean({
      summary: 'Stop when the program that started it exits; --no-exit-with-parent keeps it running on its own.',
      default: true,
      allowNo: true,
    }),
    'exit-with-stdin': Flags.boolean({
      summary: 'Also stop when stdin closes: a harness that holds a pipe to it stops it by ending, even killed, even through npx.',
      default: false,
    }),
  }

  public async run(): Promise<undefined> {
    const options = {...(await withReadingsFile(toEmulatorStartOptions(this.flags, this.ctx.env), this.flags.readings)), ...(await this.faultOptions())}
    const exposure = this.flags.store === undefined ? dataFolderExposure(this.ctx.env) : undefined
    if (exposure) this.warnUser(exposure)
    const [{startEmulator}, {emulatorStartRenderer}, {BatchedLineWriter}, {lineWidth}, {holdYoungGenerationAt}] = await Promise.all([
      import('../../emulator/index.js'),
      import('../../output/emulator-start.js'),
      import('../../terminal/turn-batch.js'),
      import('../../output/wrap.js'),
      import('../../process/small-heap.js'),
    ])
    // An emulator may serve a load test for hours: under a steady stream of requests V8 would
    // double its young generation up to 32 MB (see small-heap.ts), the most of its memory growth.
    holdYoungGenerationAt(8)
    // A line per request and status change: a catch-up over 100,000 overdue moves is 100,000 lines,
    // written a turn of the event loop's worth at a time instead of with a system call each.
    const lines = new BatchedLineWriter(this.ctx.io.stdout)
    const render = emulatorStartRenderer({
      json: this.jsonEnabled(),
      write: (line) => lines.add(line),
      // What goes to stderr comes after the lines on stdout written before it.
      note: (text) => {
        lines.flush()
        this.note(text)
      },
      warn: (text) => {
        lines.flush()
        this.warnUser(text)
      },
      invokedAs: this.ctx.invokedAs,
      width: lineWidth(this.ctx.io.stdout),
    })
    // What happens before the listening lines are out (due work carried out as the scheduler
    // starts, a first request) is held back and shown after them, in the order it happened.
    let held: EmulatorEvent[] | undefined = []
    const onEvent = (event: EmulatorEvent) => (held ? held.push(event) : render({kind: 'activity', event}))
    const emulator = await startEmulator({...options, onEvent, onWarning: (line) => render({kind: 'warning', line})})
    const interruption = this.interruption()
    const owner = await this.watchOwner()
    const ownerGone = await new Promise<OwnerGone | undefined>((resolveStopped) => {
      interruption.signal.addEventListener('abort', () => resolveStopped(undefined), {once: true})
      void owner.gone.then(resolveStopped)
      render({kind: 'listening', emulator, options})
      for (const event of held ?? []) render({kind: 'activity', event})
      held = undefined
    })
    owner.dispose()
    await emulator.close()
    render({kind: 'stopped', signal: interruption.received ?? (ownerGone ? undefined : 'SIGINT'), ownerGone, store: emulator.store})
    lines.flush()
    this.setOutcomeExitCode(EXIT.interrupted)
    return undefined
  }

  /** What stops the emulator besides a signal: its owner gone (process/owner.ts), as the flags ask. */
  private async watchOwner(): Promise<OwnerWatch> {
    const {watchOwner} = await import('../../process/owner.js')
    return watchOwner({parent: this.flags['exit-with-parent'], stdin: this.flags['exit-with-stdin'] ? this.ctx.io.stdin : undefined})
  }

  /** The fault file's rules and seed (`--seed` wins); checked before anything listens. */
  private async faultOptions(): Promise<Pick<EmulatorOptions, 'faults'>> {
    const {faults: file, seed} = this.flags
    if (file === undefined) return seed === undefined ? {} : {faults: {rules: [], seed}}
    const {loadFaultFile} = await import('../../emulator/faults/index.js')
    const loaded = await loadFaultFile(file)
    return {faults: {rules: loaded.rules, seed: seed ?? loaded.seed}}
  }

}

export type EmulatorStartFlags = Interfaces.InferredFlags<typeof EmulatorStart.flags>

/**
 * The flags of `emulator start` as the emulator's options; an InputError (exit 2) names a wrong
 * flag before anything listens. `env` places the default store (PAYTX_DATA_DIR, XDG_DATA_HOME).
 */
export function toEmulatorStartOptions(flags: EmulatorStartFlags, env: NodeJS.ProcessEnv): EmulatorOptions {
  const duration = (flag: 'settle-after' | 'pending-for' | 'abandon-after' | 'webhook-backoff') => parseDuration(flags[flag], `--${flag}`, {allowZero: true})
  const nonEmpty = (flag: 'host' | 'api-key' | 'api-key-header' | 'proxy-key' | 'proxy-id') => {
    const value = flags[flag].trim()
    if (value === '') throw new InputError(`--${flag} must not be empty.`, {flag: `--${flag}`})
    return value
  }
  const webhookUrl = flags['webhook-url']
  if (webhookUrl !== undefined && !isAbsoluteHttpUrl(webhookUrl)) {
    throw new InputError(`--webhook-url must be an absolute http(s) URL such as http://127.0.0.1:4242/webhooks (got "${redactUrl(webhookUrl)}").`, {
      flag: '--webhook-url',
    })
  }
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(flags['api-key-header'])) {
    throw new InputError(`--api-key-header must be an HTTP header name such as X-APIKEY (got "${flags['api-key-header']}").`, {flag: '--api-key-header'})
  }
  return {
    host: nonEmpty('host'),
    ...(flags['public-url'] === undefined ? {} : {publicUrl: publicUrlOf(flags['public-url'])}),
    port: flags.port,
    apiKey: nonEmpty('api-key'),
    apiKeyHeader: nonEmpty('api-key-header'),
    proxyKey: nonEmpty('proxy-key'),
    proxyId: nonEmpty('proxy-id'),
    store: resolveStoreLocation(flags.store, env),
    organisations: organisationIds(flags.organisation ?? []),
    paymentProfiles: paymentProfileSettings(flags['payment-profile'] ?? []),
    lifetime: 'service',
    settleAfterMs: duration('settle-after'),
    pendingForMs: duration('pending-for'),
    abandonAfterMs: duration('abandon-after'),
    webhookUrl,
    webhookAttempts: flags['webhook-attempts'],
    webhookBackoffMs: duration('webhook-backoff'),
    assumptions: {
      webhookPayload: flags['webhook-payload'] as WebhookPayload,
      idKeys: flags['id-keys'] as IdKeyChoice,
      cardRecord: flags['card-record'] as CardRecordShape,
    },
  }
}

/** The options with the readings of `file` (`--readings`) laid over the switches they set; an InputError names a bad file before anything listens. */
export async function withReadingsFile(options: EmulatorOptions, file: string | undefined): Promise<EmulatorOptions> {
  if (file === undefined) return options
  const {loadReadingsFile, readingsEmulatorOptions} = await import('../../emulator-readings/readings.js')
  const adopted = readingsEmulatorOptions(loadReadingsFile(file, '--readings'))
  return {...options, ...adopted, assumptions: {...options.assumptions, ...adopted.assumptions}}
}

/** --public-url as the base of approval_url: an http(s) origin, with no path, query or fragment of its own. */
function publicUrlOf(text: string): string {
  const url = isAbsoluteHttpUrl(text) ? new URL(text) : undefined
  if (!url || url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw new InputError(`--public-url must be an http(s) address with no path, such as http://paytx:4010 (got "${redactUrl(text, {asWritten: true})}").`, {flag: '--public-url'})
  }
  return url.origin
}

function organisationIds(given: readonly string[]): string[] {
  for (const id of given) {
    if (!isUuid(id)) throw new InputError(`--organisation must be a UUID (got "${id}").`, {flag: '--organisation'})
  }
  return given.map((id) => id.toLowerCase())
}

function paymentProfileSettings(given: readonly string[]): PaymentProfileSetting[] {
  return given.map((text) => {
    const setting = parsePaymentProfileSetting(text)
    if (typeof setting === 'string') {
      throw new InputError(`--payment-profile must be <uuid> or <uuid>=<webhook url>: ${setting}.`, {flag: '--payment-profile'})
    }
    return setting
  })
}

/** The API commands' global flags, hidden: the emulator commands take no profile. */
export function hideFlags<T extends Record<string, object>>(flags: T): T {
  return Object.fromEntries(Object.entries(flags).map(([name, flag]) => [name, {...flag, hidden: true}])) as T
}
