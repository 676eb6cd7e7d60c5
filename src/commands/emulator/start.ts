import {Flags} from '@oclif/core'

import {DEFAULT_API_KEY_HEADER, PROXY_KEY_HEADER} from '../../api/contract.js'
import {EXIT, InputError} from '../../errors.js'
import {BaseCommand} from '../../base-command.js'
import {EMULATOR_DEFAULTS} from '../../test-mode/emulator-defaults.js'
import type {EmulatorEvent, EmulatorOptions, PaymentProfileSetting, RunningEmulator} from '../../emulator/index.js'
import {isUuid, parsePaymentProfileSetting} from '../../emulator/ids.js'
import {resolveStoreLocation} from '../../emulator/store-location.js'
import {DURATION_HELP, formatExactDuration, parseDuration} from '../../duration.js'
import {isAbsoluteHttpUrl} from '../../http/url.js'
import {visibleLines} from '../../terminal/visible-text.js'

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

export default class EmulatorStart extends BaseCommand<typeof EmulatorStart> {
  static override summary = 'Run the local emulator of the service: API, card proxy, approval pages, webhooks.'
  static override description = `A stateful stand-in for the Payment Transaction Service on this machine: every endpoint of the spec (the card proxy under /h2h), approval pages per product, test cards, settlement over time and webhooks with retries. The built-in "local" profile matches its defaults, so every command works against it with no set-up.

Its state is an SQLite store shared by every paytx process on this machine: by default emulator.db in paytx's data folder ($XDG_DATA_HOME/paytx, else ~/.local/share/paytx; %LOCALAPPDATA%\\paytx on Windows; PAYTX_DATA_DIR moves it), or --store <file>; --store :memory: keeps nothing. Every change is committed before it is answered; settlements and webhooks that fall due while no emulator runs happen when the next one starts. A paytx 0.1 JSON state file given to --store is imported once (the JSON file is kept beside it).

Your own organisation and payment profile ids are accepted after --organisation and --payment-profile (kept in the store).

Prints its addresses, the default payment profile and the keys it accepts (emulator test keys), then one line per request, status change and webhook delivery attempt (NDJSON events with --json). Ctrl-C stops it cleanly and exits 130.

Durations (--settle-after, --pending-for, --abandon-after, --webhook-backoff) are ${DURATION_HELP}.

EXIT CODES
  1    the port is in use or cannot be listened on
  2    a flag is not valid, or the store file is not an emulator store
  130  stopped with Ctrl-C (or SIGTERM), after closing`

  static override examples = [
    '<%= config.bin %> emulator start',
    '<%= config.bin %> emulator start --port 0 --settle-after 0 --json',
    '<%= config.bin %> emulator start --store ./emulator.db --webhook-url http://127.0.0.1:4242/webhooks',
    '<%= config.bin %> emulator start --organisation 3f1c2a9e-0000-4000-8000-000000000001 --payment-profile 3f1c2a9e-0000-4000-8000-000000000002=http://127.0.0.1:4242/webhooks',
  ]

  // The profile, timeout and prompt flags of the API commands mean nothing here: hidden from help.
  static override baseFlags = hideFlags(BaseCommand.baseFlags)

  static override flags = {
    port: Flags.integer({summary: 'Port to listen on; 0 picks a free one (printed).', default: EMULATOR_DEFAULTS.port, min: 0, max: 65535}),
    host: Flags.string({summary: 'Address to listen on.', default: EMULATOR_DEFAULTS.host}),
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
  }

  public async run(): Promise<undefined> {
    const options = this.emulatorOptions()
    const json = this.jsonEnabled()
    const {startEmulator} = await import('../../emulator/index.js')
    const emulator = await startEmulator({
      ...options,
      ...(json ? {onEvent: (event: EmulatorEvent) => this.emit(event)} : {log: (line: string) => this.emitLine(line)}),
    })
    const signal = await new Promise<string>((resolveSignal) => {
      for (const name of STOP_SIGNALS) process.once(name, () => resolveSignal(name))
      this.announce(emulator, options)
    })
    await emulator.close()
    if (json) this.emit({event: 'stopped', signal})
    else this.note(`Stopped (${signal}).${emulator.store === ':memory:' ? '' : ` The state is kept in ${emulator.store}.`}`)
    process.exitCode = EXIT.interrupted
    return undefined
  }

  private emulatorOptions(): EmulatorOptions {
    const {flags} = this
    const duration = (flag: 'settle-after' | 'pending-for' | 'abandon-after' | 'webhook-backoff') => parseDuration(flags[flag], `--${flag}`, {allowZero: true})
    const nonEmpty = (flag: 'host' | 'api-key' | 'api-key-header' | 'proxy-key' | 'proxy-id') => {
      const value = flags[flag].trim()
      if (value === '') throw new InputError(`--${flag} must not be empty.`, {flag: `--${flag}`})
      return value
    }
    const webhookUrl = flags['webhook-url']
    if (webhookUrl !== undefined && !isAbsoluteHttpUrl(webhookUrl)) {
      throw new InputError(`--webhook-url must be an absolute http(s) URL such as http://127.0.0.1:4242/webhooks (got "${webhookUrl}").`, {
        flag: '--webhook-url',
      })
    }
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(flags['api-key-header'])) {
      throw new InputError(`--api-key-header must be an HTTP header name such as X-APIKEY (got "${flags['api-key-header']}").`, {flag: '--api-key-header'})
    }
    return {
      host: nonEmpty('host'),
      port: flags.port,
      apiKey: nonEmpty('api-key'),
      apiKeyHeader: nonEmpty('api-key-header'),
      proxyKey: nonEmpty('proxy-key'),
      proxyId: nonEmpty('proxy-id'),
      store: resolveStoreLocation(flags.store),
      organisations: this.organisations(),
      paymentProfiles: this.paymentProfiles(),
      lifetime: 'service',
      settleAfterMs: duration('settle-after'),
      pendingForMs: duration('pending-for'),
      abandonAfterMs: duration('abandon-after'),
      webhookUrl,
      webhookAttempts: flags['webhook-attempts'],
      webhookBackoffMs: duration('webhook-backoff'),
    }
  }

  private organisations(): string[] {
    const given = this.flags.organisation ?? []
    for (const id of given) {
      if (!isUuid(id)) throw new InputError(`--organisation must be a UUID (got "${id}").`, {flag: '--organisation'})
    }
    return given.map((id) => id.toLowerCase())
  }

  private paymentProfiles(): PaymentProfileSetting[] {
    return (this.flags['payment-profile'] ?? []).map((text) => {
      const setting = parsePaymentProfileSetting(text)
      if (typeof setting === 'string') {
        throw new InputError(`--payment-profile must be <uuid> or <uuid>=<webhook url>: ${setting}.`, {flag: '--payment-profile'})
      }
      return setting
    })
  }

  private announce(emulator: RunningEmulator, options: EmulatorOptions): void {
    if (this.jsonEnabled()) {
      this.emit({
        event: 'listening',
        url: emulator.url,
        proxy_url: emulator.proxyUrl,
        host: emulator.host,
        port: emulator.port,
        proxy_id: emulator.proxyId,
        payment_profile: emulator.paymentProfileId,
        organisation: emulator.organisation,
        api_key_header: emulator.apiKeyHeader,
        api_key: emulator.apiKey,
        proxy_key: emulator.proxyKey,
        webhook_url: options.webhookUrl ?? null,
        settle_after_ms: options.settleAfterMs,
        pending_for_ms: options.pendingForMs,
        abandon_after_ms: options.abandonAfterMs,
        webhook_attempts: options.webhookAttempts,
        store: emulator.store,
        organisations: options.organisations ?? [],
        payment_profiles: (options.paymentProfiles ?? []).map((profile) => ({id: profile.id, webhook_url: profile.webhookUrl ?? null})),
      })
    } else {
      const rows: [string, string][] = [
        ['API', `${emulator.url}  (paths under /v1)`],
        ['Card proxy', `${emulator.proxyUrl}  (proxy id ${emulator.proxyId})`],
        ['Payment profile', `${emulator.paymentProfileId}  (default; webhooks to ${options.webhookUrl ?? 'none set'})`],
        ['Organisation', emulator.organisation],
        ...(options.organisations?.length ? [['Also accepts', `organisation ${options.organisations.join(', ')}`] as [string, string]] : []),
        ...(options.paymentProfiles ?? []).map(
          (profile): [string, string] => ['Also accepts', `payment profile ${profile.id}${profile.webhookUrl ? `  (webhooks to ${profile.webhookUrl})` : ''}`],
        ),
        ['API key', `${emulator.apiKeyHeader}: ${emulator.apiKey}`],
        ['Proxy key', `${PROXY_KEY_HEADER}: ${emulator.proxyKey}`],
        [
          'Timing',
          `settles after ${formatExactDuration(options.settleAfterMs!)}, pending for ${formatExactDuration(options.pendingForMs!)}, abandoned after ${formatExactDuration(options.abandonAfterMs!)}`,
        ],
        ['Store', emulator.store === ':memory:' ? 'in memory (lost on exit)' : emulator.store],
      ]
      const width = Math.max(...rows.map(([label]) => label.length))
      const lines = rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`)
      this.emitLine(['paytx emulator is listening (the keys are emulator test keys)', ...lines].join('\n'))
    }
    if (!this.matchesLocalProfile(emulator)) {
      this.note(
        [
          'The built-in "local" profile expects the defaults; point commands here by pasting:',
          `  export PAYTX_BASE_URL=${emulator.url}`,
          `  export PAYTX_H2H_URL=${emulator.proxyUrl}`,
          `  export PAYTX_API_KEY=${emulator.apiKey}`,
          `  export PAYTX_PROXY_KEY=${emulator.proxyKey}`,
        ].join('\n'),
      )
    } else {
      this.note('The built-in "local" profile points here: try `paytx customer create --help`.')
    }
    if (emulator.host !== '127.0.0.1' && emulator.host !== 'localhost' && emulator.host !== '::1') {
      this.warnUser(`listening on ${emulator.host}: other machines may reach the emulator, and its keys are public test keys.`)
    }
    this.note('Press Ctrl-C to stop.')
  }

  private matchesLocalProfile(emulator: RunningEmulator): boolean {
    return (
      emulator.port === EMULATOR_DEFAULTS.port &&
      emulator.host === EMULATOR_DEFAULTS.host &&
      emulator.apiKey === EMULATOR_DEFAULTS.apiKey &&
      emulator.apiKeyHeader === DEFAULT_API_KEY_HEADER &&
      emulator.proxyKey === EMULATOR_DEFAULTS.proxyKey &&
      emulator.proxyId === EMULATOR_DEFAULTS.proxyId
    )
  }

  /** One NDJSON line on stdout. */
  private emit(event: EmulatorEvent | Record<string, unknown>): void {
    process.stdout.write(`${JSON.stringify(event)}\n`)
  }

  private emitLine(line: string): void {
    process.stdout.write(`${visibleLines(line)}\n`)
  }
}

/** The API commands' global flags, hidden: the emulator commands take no profile. */
export function hideFlags<T extends Record<string, object>>(flags: T): T {
  return Object.fromEntries(Object.entries(flags).map(([name, flag]) => [name, {...flag, hidden: true}])) as T
}
