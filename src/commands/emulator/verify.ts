import {statSync} from 'node:fs'
import {dirname, resolve as resolvePath} from 'node:path'

import * as Flags from '@oclif/core/flags'

import {BaseCommand, EXIT_CODES_HELP} from '../../cli/base-command.js'
import {DEFAULT_TUNNEL_TIMEOUT, type TunnelFlagValues, toTunnelRequest, tunnelFlags} from '../../cli/tunnel-flags.js'
import {isAbsoluteHttpUrl} from '../../http/url.js'
import {formatExactDuration, parseDuration} from '../../duration.js'
import {type Readings, loadReadingsFile} from '../../emulator-readings/readings.js'
import {EXIT, EnvironmentError, InputError} from '../../errors.js'
import type {VerifyOptions, VerifyReport} from '../../emulator-verify/run-verify.js'
import {lineWidth} from '../../output/wrap.js'
import {productionReason} from '../../profiles/production.js'
import type {ResolvedProfile} from '../../profiles/resolve.js'
import {redactUrl} from '../../secrets/redact-url.js'
import {commandLine} from '../../terminal/invoked-name.js'
import {productionWhy} from '../../terminal/production-banner.js'
import {visibleLines} from '../../terminal/visible-text.js'

/** The exit code of a run that found a breaking or value difference (not in product.md's table: 3 and 4 are payment outcomes). */
export const EXIT_DIFFERS = 5

const DEFAULT_WEBHOOK_WAIT_MS = 5000

export default class EmulatorVerify extends BaseCommand<typeof EmulatorVerify, VerifyReport> {
  static override summary = 'Check the emulator against a sandbox: the same requests, each difference named.'

  static override description = `Sends the same requests, built from one description, to the sandbox (--profile) and to a fresh emulator started in this process (in memory; default readings, or those of --readings): a sample customer (with house_number_suffix and fax_number), the test card through the card proxy, a dummy transaction of 1.00 with its status and checkoutsuccess, a sofort transaction of 1.00, and four requests each side must refuse (amount 0, a customer with no fields, an unknown transaction id, a wrong API key). What the profile lacks is left out on both sides (a payment profile); a profile with no organisation is refused (add it), one with no card proxy sends no card to either side.

Compared: HTTP status codes; fields only one side sends; JSON types; enumeration values (statuses, products); value rules (ids are UUIDs and times ISO 8601, compared by form; the amount a string of minor units; an error \`code\` of three digits, and its value; \`success\` and \`final\` agreeing with the status; optional customer fields kept as sent; every sofort sender field a string). Each difference is breaking (the emulator sends what the service lacks, a type, a status code, an enumeration value, an error shape), additive (only the service sends it: harmless to readers) or a value difference, and names the assumption of \`paytx emulator assumptions\` it touches, or says none does: then the emulator's contract may be wrong there.

Webhooks, through the listener \`paytx webhook listen\` uses: the dummy transaction's webhook body and id keys, and whether a delivery answered 500 is sent again (waiting --webhook-wait). A service on this machine reaches the listener directly; one elsewhere through --tunnel (cloudflared, ngrok, or --tunnel-command) or an address of yours (--webhook-url, forwarding to --webhook-port); without either the report says they were not checked. The dummy transaction is followed on both sides until the end of --webhook-wait (the tolerance): a status one side reaches sooner, such as an early abandonment, is a difference. Not checked, and why: moves after an approval (they need the payer on the service's approval page). The report lists every assumption as checked, partly checked or not, and why.

Creates on the sandbox one customer, one card and two transactions (their ids are listed, also in --json). When the service refuses the key, the report says so once and stops (exit 1). Refuses production profiles: those labelled production, and any whose service or card proxy address is a production host, whatever its label (nothing is sent). --json and --verbose mask card numbers, CVVs and keys, also where the service echoes them.

--save <file> writes the readings the service showed (id keys, card record, webhook body, webhook retries, API key header; the additive fields with their forms and the answers they came in; the timings it observed: an abandonment within --webhook-wait as --abandon-after, the wait before the first webhook retry as --webhook-backoff, while --settle-after, --pending-for and the number of webhook attempts are marked not seen; a version; schema: schemas/emulator-readings.schema.json). \`paytx emulator start --readings <file>\`, and the local profile's embedded emulator with the setting emulator_readings, then answer like the service, the additive fields included (with a value of their form; not in webhook bodies); \`emulator verify --readings <file>\` compares the service with such an emulator.

EXIT CODES
  0    no breaking or value difference (additive ones are listed); with --strict, none at all
  1    verify could not run: the network or the service failed, or the service refused the key
  2    the input was wrong (profile, flags, readings file); nothing was sent
  ${EXIT_DIFFERS}    a breaking or value difference (with --strict, also an additive one)
  130  interrupted (Ctrl-C or SIGTERM)`

  static override examples = [
    '<%= config.bin %> emulator verify --profile sandbox',
    '<%= config.bin %> emulator verify --profile sandbox --json',
    '<%= config.bin %> emulator verify --profile sandbox --save readings.json',
    '<%= config.bin %> emulator verify --profile sandbox --readings readings.json --strict',
  ]

  static override flags = {
    strict: Flags.boolean({summary: 'Fail (exit 5) on additive differences too.', default: false}),
    save: Flags.string({summary: 'Write the readings the service showed to this file (for emulator start --readings).'}),
    readings: Flags.string({summary: 'Compare the service with an emulator answering with these readings (a file written by --save).'}),
    'webhook-wait': Flags.string({summary: 'How long to wait for webhooks and a retry after the requests.', default: formatExactDuration(DEFAULT_WEBHOOK_WAIT_MS)}),
    'webhook-url': Flags.string({
      summary: "A public address of yours that forwards to verify's webhook listener on --webhook-port (the listener's path and key are appended).",
      exclusive: ['tunnel', 'tunnel-command'],
    }),
    'webhook-port': Flags.integer({summary: "Port of verify's webhook listener on 127.0.0.1, for --webhook-url or --tunnel.", min: 1, max: 65535}),
    ...tunnelFlags,
  }

  public async run(): Promise<VerifyReport> {
    const resolved = await this.profileWithKeys()
    const options = toEmulatorVerifyOptions(resolved, this.globals, this.flags)
    const [{runVerify}, {renderVerifyReport}] = await Promise.all([import('../../emulator-verify/run-verify.js'), import('../../output/emulator-verify.js')])
    const readingsNote = this.flags.readings ? ` answering with the readings of ${this.flags.readings}` : ''
    this.note(`Sending the same requests to profile "${resolved.name}" (${redactUrl(resolved.profile.base_url, {asWritten: true})}) and to a fresh emulator${readingsNote}…`)
    const log = this.globals.verbose ? (line: string) => this.ctx.io.stderr.write(`${visibleLines(line)}\n`) : undefined
    const report = await runVerify({...options, secrets: this.secrets, log, signal: this.interruptSignal()})
    this.print(renderVerifyReport(report, lineWidth(this.ctx.io.stdout) ?? 80))
    if (report.refused) {
      this.setOutcomeExitCode(EXIT.service)
      return report
    }
    if (this.flags.save) {
      await saveReadings(this.flags.save, report.readings)
      this.note(`Readings written to ${this.flags.save}: \`${this.commandLine(`emulator start --readings ${this.flags.save}`)}\` answers with them.`)
    }
    const {breaking, value, additive} = report.counts
    if (breaking + value > 0 || (this.flags.strict && additive > 0)) this.setOutcomeExitCode(EXIT_DIFFERS)
    return report
  }
}

async function saveReadings(file: string, readings: Readings): Promise<void> {
  const {writeFileSync} = await import('node:fs')
  try {
    writeFileSync(file, `${JSON.stringify(readings, null, 2)}\n`)
  } catch (error) {
    throw new EnvironmentError(`Could not write the readings to ${file} (${(error as Error).message}).`, 'Pass --save a file in a folder you can write to.')
  }
}

/** What verify runs with: the profile (checked by checkVerifyProfile), --timeout, the readings file and the webhook wait. */
export function toEmulatorVerifyOptions(
  resolved: Pick<ResolvedProfile, 'name' | 'profile' | 'production'>,
  globals: {requestTimeoutMs: number},
  flags: {readings?: string; save?: string; 'webhook-wait'?: string; 'webhook-url'?: string; 'webhook-port'?: number} & Partial<TunnelFlagValues> = {},
): Omit<VerifyOptions, 'secrets'> {
  checkVerifyProfile(resolved)
  if (flags.save !== undefined && !isFolder(dirname(resolvePath(flags.save)))) {
    throw new InputError(`--save ${flags.save}: its folder does not exist. Nothing was sent.`, {flag: '--save'})
  }
  const publicWebhooks = publicWebhookOptions(flags)
  const webhookWaitMs = flags['webhook-wait'] === undefined ? DEFAULT_WEBHOOK_WAIT_MS : parseDuration(flags['webhook-wait'], '--webhook-wait', {allowZero: true})
  return {
    profileName: resolved.name,
    profile: resolved.profile,
    timeoutMs: globals.requestTimeoutMs,
    webhookWaitMs,
    ...(flags.readings === undefined ? {} : {readings: loadReadingsFile(flags.readings, '--readings')}),
    ...(publicWebhooks ? {publicWebhooks} : {}),
  }
}

/** How a service elsewhere reaches the webhook listener: --webhook-url with --webhook-port, or a tunnel (--tunnel, --tunnel-command). */
function publicWebhookOptions(flags: {'webhook-url'?: string; 'webhook-port'?: number} & Partial<TunnelFlagValues>): VerifyOptions['publicWebhooks'] {
  const url = flags['webhook-url']
  const tunnel = toTunnelRequest({tunnel: flags.tunnel, 'tunnel-command': flags['tunnel-command'], 'tunnel-timeout': flags['tunnel-timeout'] ?? DEFAULT_TUNNEL_TIMEOUT})
  const port = flags['webhook-port']
  if (url !== undefined && (!isAbsoluteHttpUrl(url) || new URL(url).search || new URL(url).hash)) {
    throw new InputError(`--webhook-url must be an absolute http(s) address with no query, such as https://hooks.example.com (got "${redactUrl(url, {asWritten: true})}").`, {flag: '--webhook-url'})
  }
  if (url !== undefined && port === undefined) throw new InputError('--webhook-url needs --webhook-port: the local port your address forwards to.', {flag: '--webhook-port'})
  if (port !== undefined && url === undefined && !tunnel) throw new InputError('--webhook-port is the port --webhook-url or a tunnel forwards to: pass one of them too.', {flag: '--webhook-port'})
  if (url !== undefined) return {port: port!, url}
  return tunnel ? {port: port ?? 0, tunnel} : undefined
}

/** The profile verify may run against: a sandbox one with an API key and an organisation. InputError (exit 2) otherwise, before anything is sent. */
export function checkVerifyProfile(resolved: Pick<ResolvedProfile, 'name' | 'profile' | 'production'>): void {
  const {name, profile} = resolved
  const production = resolved.production ?? productionReason(profile)
  if (production) {
    const why = productionWhy({...resolved, production})
    throw new InputError(`emulator verify creates customers, a card and transactions; it refuses production profiles ("${name}" is production${why ? `: ${why}` : ''}). Nothing was sent.`, {
      flag: '--profile',
      hint: why ? 'Point the profile at the sandbox (`--base-url`, `--h2h-url`, PAYTX_BASE_URL, PAYTX_H2H_URL), or pass a sandbox profile: --profile <name>.' : 'Pass a sandbox profile: --profile <name>.',
    })
  }
  if (profile.env === 'local') {
    throw new InputError(`Profile "${name}" is the emulator itself: emulator verify compares the emulator with the real sandbox.`, {
      flag: '--profile',
      hint: `Pass a sandbox profile (\`${commandLine('profile add sandbox --env sandbox …')}\`).`,
    })
  }
  if (!profile.api_key) {
    throw new InputError(`Profile "${name}" has no API key.`, {flag: '--profile', hint: `Set it with \`${commandLine(`profile add ${name} --api-key-stdin`)}\` (or PAYTX_API_KEY).`})
  }
  if (!profile.organisation) {
    throw new InputError(`Profile "${name}" has no organisation: the customer verify creates needs one, on both sides.`, {
      flag: '--profile',
      hint: `Add it with \`${commandLine(`profile add ${name} --organisation <uuid>`)}\`.`,
    })
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
