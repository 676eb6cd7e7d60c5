import {join} from 'node:path'

import {EXIT} from '../errors.js'
import {BaseCommand, EXIT_CODES_HELP} from '../cli/base-command.js'
import {profileFileMode} from '../doctor/profile-checks.js'
import type {DoctorReport} from '../doctor/report.js'
import type {WaitingLine} from '../output/doctor-waiting.js'
import {lineWidth} from '../output/wrap.js'
import {resolveProfile} from '../profiles/resolve.js'
import {colorWanted} from '../terminal/production-banner.js'
import {PROFILE_FILE_NAME} from '../profiles/store.js'

export default class Doctor extends BaseCommand<typeof Doctor, DoctorReport> {
  static override summary = 'Check everything paytx depends on, one line each: ✔ fine, ⚠ look at it, ✖ will not work, with what to do.'

  static override description = `Checks Node and the build; the profile (--profile, PAYTX_PROFILE or the active one) and where each of its keys lives (the environment, the OS keychain, or the profile file and its mode); the service and the card proxy step by step (DNS, TCP, TLS with the certificate's issuer and expiry, or the proxy that HTTPS_PROXY names, and the time taken); the clock against the service's Date; the emulator's store (integrity, schema version, size); the config and data folders' modes; the default ports (the emulator's, 4010 or the local profile's, and 4020): free, held by a paytx emulator (asked, and fine), or held by another program, named with its pid where the system says (Linux /proc, else lsof); and a browser opener.

Never prints a key and sends no write request: the service is asked, with the profile's key, for a transaction that cannot exist (404 with the service's error object means the key was accepted; an answer that is not the service's, such as another web server's page, is ✖ with what it looks like). On a terminal a line says what the checks wait for and how long at most (Ctrl-C stops). Exit 1 when any check fails (✖), 0 otherwise; --json prints the checks for CI.

${EXIT_CODES_HELP}`

  static override examples = ['<%= config.bin %> doctor', '<%= config.bin %> doctor --profile sandbox', '<%= config.bin %> doctor --json']

  public async run(): Promise<DoctorReport> {
    // Read before the profile is: reading it tightens a file others can read, which doctor reports.
    const profileFileModeBefore = profileFileMode(join(this.profileStore().dir, PROFILE_FILE_NAME))
    this.announceProductionIfResolvable()
    const [{runDoctor, doctorWaitLimitMs}, {readKeychainKeys}, {renderDoctorReport, withCommandsAsRun}] = await Promise.all([import('../doctor/run-doctor.js'), import('../profiles/key-storage.js'), import('../output/doctor.js')])
    const options = toDoctorOptions(this.globals)
    const waiting = await this.waitingLine(doctorWaitLimitMs(options.timeoutMs))
    let found: DoctorReport
    try {
      const checked = runDoctor({
        root: this.config.root,
        version: this.config.version,
        engines: (this.config.pjson as {engines?: {node?: string}}).engines?.node,
        store: this.profileStore(),
        ...options,
        env: this.ctx.env,
        readKeychain: readKeychainKeys,
        profileFileModeBefore,
        onWaiting: waiting && ((waitingFor) => waiting.update(waitingFor)),
      })
      found = await (waiting ? untilInterrupted(checked, this.interruptSignal()) : checked)
    } finally {
      waiting?.stop()
    }
    const report = withCommandsAsRun(found, this.ctx.invokedAs)
    const {stdout} = this.ctx.io
    this.print(renderDoctorReport(report, {width: lineWidth(stdout), color: colorWanted(stdout, this.ctx.env)}))
    if (!report.ok) this.setOutcomeExitCode(EXIT.service)
    return report
  }

  /** On a terminal (stdout and stderr), never under --json: the line that says what the checks wait for. */
  private async waitingLine(limitMs: number): Promise<WaitingLine | undefined> {
    const {stdout, stderr} = this.ctx.io
    if (this.jsonEnabled() || !stdout.isTTY || !stderr.isTTY || this.ctx.env.TERM === 'dumb') return undefined
    const {startWaitingLine} = await import('../output/doctor-waiting.js')
    return startWaitingLine(stderr, {width: lineWidth(stderr) ?? 80, until: Date.now() + limitMs})
  }

  /** Doctor reads from the service too: the production line first, when the profile resolves (a profile that does not is one of doctor's ✖ lines). */
  private announceProductionIfResolvable(): void {
    let resolved
    try {
      resolved = resolveProfile(this.profileStore(), {name: this.globals.profile, env: this.ctx.env})
    } catch {
      return
    }
    this.announceProduction(resolved)
  }
}

/** The checks' result, or InterruptedError (exit 130) at Ctrl-C. */
function untilInterrupted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason)
    if (signal.aborted) return stop()
    signal.addEventListener('abort', stop, {once: true})
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop))
  })
}

/** Each check waits at most 10 s, however long --timeout allows a request. */
const DOCTOR_CHECK_TIMEOUT_MS = 10_000

/** The profile to check (--profile; undefined: the one in use) and how long each check may wait. */
export function toDoctorOptions(globals: {profile?: string; requestTimeoutMs: number}): {profileName: string | undefined; timeoutMs: number} {
  return {profileName: globals.profile, timeoutMs: Math.min(globals.requestTimeoutMs, DOCTOR_CHECK_TIMEOUT_MS)}
}
