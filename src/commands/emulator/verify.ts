import {BaseCommand, EXIT_CODES_HELP} from '../../cli/base-command.js'
import {EXIT, InputError} from '../../errors.js'
import type {VerifyOptions, VerifyReport} from '../../emulator-verify/run-verify.js'
import {productionReason} from '../../profiles/production.js'
import type {ResolvedProfile} from '../../profiles/resolve.js'
import {redactUrl} from '../../secrets/redact-url.js'
import {commandLine} from '../../terminal/invoked-name.js'
import {productionWhy} from '../../terminal/production-banner.js'

export default class EmulatorVerify extends BaseCommand<typeof EmulatorVerify, VerifyReport> {
  static override summary = 'Send the same small set of requests to a sandbox profile and to a fresh emulator, and show where the answers differ.'

  static override description = `Sends, in order, to the sandbox (--profile) and to a fresh emulator started in this process (in memory, default readings): a sample customer, the test card through the card proxy, a dummy transaction of 1.00, its status and checkoutsuccess, and four requests each side must refuse (amount 0, a customer with no fields, an unknown transaction id, a wrong API key). For each request it shows both status codes and, field by field, where the answers differ: fields only one side sends, JSON types, status codes and error shapes (values are not compared: ids and times differ by nature). Each difference names the listed emulator assumption it touches (\`paytx emulator assumptions\`), or says none does: then the emulator's contract may be wrong there.

Creates one customer, one card and one transaction on the sandbox. Refuses production profiles: those labelled production, and any whose service or card proxy address is a production host, whatever its label (nothing is sent). Exit 0 when no answer differs, 1 when any does (and for a failed request); --json prints the report for CI.

${EXIT_CODES_HELP}`

  static override examples = ['<%= config.bin %> emulator verify --profile sandbox', '<%= config.bin %> emulator verify --profile sandbox --json']

  public async run(): Promise<VerifyReport> {
    const resolved = await this.profileWithKeys()
    const options = toEmulatorVerifyOptions(resolved, this.globals)
    const [{runVerify}, {renderVerifyReport}] = await Promise.all([import('../../emulator-verify/run-verify.js'), import('../../output/emulator-verify.js')])
    this.note(`Sending the same requests to profile "${resolved.name}" (${redactUrl(resolved.profile.base_url, {asWritten: true})}) and to a fresh emulator…`)
    const report = await runVerify({...options, secrets: this.secrets})
    this.print(renderVerifyReport(report))
    if (report.differences > 0) this.setOutcomeExitCode(EXIT.service)
    return report
  }
}

/** What verify runs with: the profile (checked by checkVerifyProfile) and the --timeout of each request. */
export function toEmulatorVerifyOptions(
  resolved: Pick<ResolvedProfile, 'name' | 'profile' | 'production'>,
  globals: {requestTimeoutMs: number},
): Omit<VerifyOptions, 'secrets'> {
  checkVerifyProfile(resolved)
  return {profileName: resolved.name, profile: resolved.profile, timeoutMs: globals.requestTimeoutMs}
}

/** The profile verify may run against: a sandbox one with an API key. InputError (exit 2) otherwise, before anything is sent. */
export function checkVerifyProfile(resolved: Pick<ResolvedProfile, 'name' | 'profile' | 'production'>): void {
  const {name, profile} = resolved
  const production = resolved.production ?? productionReason(profile)
  if (production) {
    const why = productionWhy({...resolved, production})
    throw new InputError(`emulator verify creates a customer, a card and a transaction; it refuses production profiles ("${name}" is production${why ? `: ${why}` : ''}). Nothing was sent.`, {
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
}
