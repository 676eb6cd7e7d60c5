/**
 * The base of every paytx command: global flags, profile and service resolution, prompts, the
 * production guard, and the one place where an error becomes a message and an exit code.
 */
import {Command, Errors, Flags, type Interfaces} from '@oclif/core'

import {closestName} from './closest-name.js'
import {EXIT, InputError, InterruptedError, PaytxError, ServiceError, detailField} from './errors.js'
import type {PaymentService} from './api/service.js'
import type {EmbeddedEmulator} from './flow/embedded-emulator.js'
import {maskCardNumbers, scrubSecrets} from './secrets/redact.js'
import {type ResolvedProfile, resolveProfile} from './profiles/resolve.js'
import {ProfileStore} from './profiles/store.js'
import {visibleLines, visibleText} from './terminal/visible-text.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

export const EXIT_CODES_HELP = `EXIT CODES
  0    done; for outcome commands, the payment succeeded
  1    the service or the network failed
  2    the input was wrong, or a confirmation was declined; nothing was sent
  3    the payment is final and not a success
  4    waiting ran out before a final status
  130  interrupted (Ctrl-C)`

/** PAYTX_MAX_RESPONSE_BYTES: the size above which an answer of the service is cut off and reported. */
function maxResponseBytes(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.PAYTX_MAX_RESPONSE_BYTES
  if (raw === undefined || raw === '') return undefined
  if (!/^\d+$/.test(raw.trim()) || Number(raw) <= 0) {
    throw new InputError(`PAYTX_MAX_RESPONSE_BYTES must be a whole number of bytes greater than 0 (got "${raw}").`, {
      hint: 'For example PAYTX_MAX_RESPONSE_BYTES=52428800 allows answers of up to 50 MB.',
    })
  }
  return Number(raw)
}

export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true

  static override baseFlags = {
    profile: Flags.string({
      summary: 'Profile to use (default: the active profile, or PAYTX_PROFILE).',
      helpGroup: 'GLOBAL',
    }),
    verbose: Flags.boolean({
      summary: 'Log requests and responses to stderr, with keys, PAN and CVV redacted.',
      helpGroup: 'GLOBAL',
      default: false,
    }),
    timeout: Flags.string({
      summary: 'Seconds to wait for each request to the service.',
      helpGroup: 'GLOBAL',
      default: '30',
    }),
    'no-input': Flags.boolean({
      summary: 'Never prompt; a missing value is an error.',
      helpGroup: 'GLOBAL',
      default: false,
    }),
  }

  protected flags!: BaseFlags<T>
  protected args!: BaseArgs<T>
  /** Maps a request field (as in the service's error details) to the flag that set it. */
  protected fieldFlags: Record<string, string> = {}
  /** Extra values to scrub from every message (a PAN or CVV read by this command). */
  protected secrets: string[] = []
  private services: PaymentService[] = []
  private embeddedEmulators: EmbeddedEmulator[] = []
  private interruption?: {controller: AbortController; handler: () => void}
  private cachedProfile?: ResolvedProfile

  public override async init(): Promise<void> {
    await super.init()
    const {args, flags} = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: this.ctor.args,
      strict: this.ctor.strict,
    })
    this.flags = flags as BaseFlags<T>
    this.args = args as BaseArgs<T>
  }

  /** A secret read by this command (PAN, CVV, key): scrubbed from every message and log from now on. */
  protected addSecrets(...values: (string | undefined)[]): void {
    const known = values.filter((value): value is string => Boolean(value))
    this.secrets.push(...known)
    for (const service of this.services) service.addSecrets(...known)
  }

  /** Request timeout from --timeout, in milliseconds. */
  protected timeoutMs(): number {
    const raw = (this.flags as {timeout?: string}).timeout ?? '30'
    const seconds = Number(raw)
    if (!Number.isFinite(seconds) || seconds <= 0) {
      throw new InputError(`--timeout must be a number of seconds greater than 0 (got "${raw}").`, {flag: '--timeout'})
    }
    return Math.round(seconds * 1000)
  }

  protected profileStore(): ProfileStore {
    return new ProfileStore(this.config.configDir, {notice: (line) => this.note(line)})
  }

  protected profile(): ResolvedProfile {
    if (!this.cachedProfile) {
      this.cachedProfile = resolveProfile(this.profileStore(), {name: (this.flags as {profile?: string}).profile})
      this.secrets.push(...[this.cachedProfile.profile.api_key, this.cachedProfile.profile.proxy_key].filter((s): s is string => Boolean(s)))
    }
    return this.cachedProfile
  }

  /** The service client for the resolved profile; closed when the command ends. */
  protected async service(): Promise<PaymentService> {
    const [{PaymentService}, {name, profile}] = await Promise.all([import('./api/service.js'), this.withLocalEmulator(this.profile())])
    const verbose = (this.flags as {verbose?: boolean}).verbose
    const service = new PaymentService(
      {profileName: name, profile},
      {
        timeoutMs: this.timeoutMs(),
        maxResponseBytes: maxResponseBytes(process.env),
        log: verbose ? (line) => process.stderr.write(`${visibleLines(line)}\n`) : undefined,
        secrets: this.secrets,
      },
    )
    this.services.push(service)
    return service
  }

  /**
   * A `local` profile with no emulator to rely on at its address gets one in this process, over
   * the shared store, until the command ends (see flow/embedded-emulator.ts). Loaded only then.
   */
  private async withLocalEmulator(resolved: ResolvedProfile): Promise<ResolvedProfile> {
    if (resolved.profile.env !== 'local') return resolved
    const {ensureEmulator, pointedAt} = await import('./flow/embedded-emulator.js')
    const emulator = await ensureEmulator(resolved)
    this.embeddedEmulators.push(emulator)
    return pointedAt(resolved, emulator)
  }

  /** Prompts only when a person can answer: stdin and stderr are terminals and --no-input is off. */
  protected canPrompt(): boolean {
    return Boolean(process.stdin.isTTY && process.stderr.isTTY) && !(this.flags as {'no-input'?: boolean})['no-input']
  }

  /**
   * A value the command cannot do without: the flag's value when given, else asked on a terminal,
   * else an input error naming the flag (nothing has been sent at this point).
   */
  protected async requireValue(
    flag: string,
    value: string | undefined,
    ask: {message: string; secret?: boolean; validate?: (value: string) => true | string; allowed?: string},
  ): Promise<string> {
    if (value !== undefined && value !== '') return value
    if (!this.canPrompt()) {
      throw new InputError(`${flag} is required${ask.allowed ? ` (${ask.allowed})` : ''}.`, {
        flag,
        hint: 'Pass it as a flag; paytx asks for missing values only in a terminal and without --no-input.',
      })
    }
    const prompts = await import('./terminal/prompts.js')
    const validate = (answer: string) => (answer.trim() === '' ? `${flag} is required` : (ask.validate?.(answer.trim()) ?? true))
    const answer = ask.secret ? await prompts.askSecret(ask.message, {validate}) : await prompts.ask(ask.message, {validate})
    return answer.trim()
  }

  /**
   * The one JSON document of --json, written as plain JSON. oclif's own `logJson` colours it with
   * a walk that runs out of stack on large or deep values; answers are capped in size and depth
   * before they get here, and JSON.stringify handles what is left.
   */
  override logJson(json: unknown): void {
    process.stdout.write(`${JSON.stringify(json, null, 2)}\n`)
  }

  /** Human output goes to stdout only when --json is off. */
  protected print(text: string): void {
    if (!this.jsonEnabled()) process.stdout.write(`${text}\n`)
  }

  /** Hints, progress and warnings: always stderr, never under stdout's data. */
  protected note(text: string): void {
    process.stderr.write(`${visibleLines(scrubSecrets(text, this.secrets))}\n`)
  }

  protected warnUser(text: string): void {
    this.note(`Warning: ${text}`)
  }

  /**
   * The production guard: creating anything against a production profile asks first, or needs
   * --yes; without a terminal and without --yes it refuses before anything is sent.
   */
  protected async confirmProduction(action: string, yes: boolean): Promise<void> {
    const {name, profile} = this.profile()
    if (profile.env !== 'production' || yes) return
    if (!this.canPrompt()) {
      throw new InputError(`Refusing to ${action} on production profile "${name}" without confirmation.`, {
        flag: '--yes',
        hint: 'Pass --yes to confirm, or run it in a terminal to be asked.',
      })
    }
    const {confirm} = await import('./terminal/prompts.js')
    if (!(await confirm(`This will ${action} on PRODUCTION (profile "${name}", ${profile.base_url}). Continue?`))) {
      throw new InputError('Cancelled; nothing was sent.')
    }
  }

  /**
   * A signal that aborts on Ctrl-C (SIGINT) or SIGTERM, for commands that wait: they clean up and
   * throw InterruptedError (exit 130). A second Ctrl-C exits at once.
   */
  protected interruptSignal(): AbortSignal {
    if (!this.interruption) {
      const controller = new AbortController()
      const handler = () => {
        if (controller.signal.aborted) process.exit(EXIT.interrupted)
        controller.abort(new InterruptedError())
      }
      process.on('SIGINT', handler)
      process.on('SIGTERM', handler)
      this.interruption = {controller, handler}
    }
    return this.interruption.controller.signal
  }

  /** Sets the process exit code for a result that is not a plain success (3 or 4). */
  protected setOutcomeExitCode(code: number): void {
    process.exitCode = code
  }

  protected override async catch(err: Error & {exitCode?: number}): Promise<unknown> {
    const failure = this.describeFailure(err)
    process.exitCode = failure.exitCode
    if (this.jsonEnabled()) {
      this.logJson({error: failure.json})
      return undefined
    }
    if (failure.exitCode === EXIT.interrupted && !failure.text) return undefined
    process.stderr.write(`${visibleLines(failure.text)}\n`)
    const verbose = (this.flags as {verbose?: boolean} | undefined)?.verbose || process.env.DEBUG
    if (verbose && err.stack && !(err instanceof PaytxError)) process.stderr.write(`${scrubSecrets(err.stack, this.secrets)}\n`)
    return undefined
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    await Promise.allSettled(this.services.map((service) => service.close()))
    await Promise.allSettled(this.embeddedEmulators.map((emulator) => emulator.stop()))
    if (this.interruption) {
      process.off('SIGINT', this.interruption.handler)
      process.off('SIGTERM', this.interruption.handler)
    }
    return super.finally(err)
  }

  private describeFailure(err: Error & {exitCode?: number}): {exitCode: number; text: string; json: Record<string, unknown>} {
    const scrub = (text: string) => scrubSecrets(text, this.secrets)
    if (err instanceof PaytxError) {
      const lines = [`Error: ${scrub(err.message)}`]
      const json: Record<string, unknown> = JSON.parse(scrub(JSON.stringify(err.toJSON())))
      if (err instanceof ServiceError && err.details) {
        const fields: Record<string, string> = {}
        for (const [key, value] of Object.entries(err.details)) {
          const field = detailField(key)
          const flag = this.fieldFlags[field]
          const text = Array.isArray(value) ? value.join('; ') : String(value)
          lines.push(`  ${visibleText(field)}${flag ? ` (${flag})` : ''}: ${visibleText(scrub(text))}`)
          if (flag) fields[field] = flag
        }
        if (Object.keys(fields).length > 0) json.flags = fields
      }
      if (err.hint) lines.push(`Hint: ${scrub(err.hint)}`)
      return {exitCode: err.exitCode, text: lines.join('\n'), json}
    }
    if (err instanceof Errors.CLIError) {
      const exit = (err as Errors.CLIError).oclif?.exit
      if (exit === 0 || (err as {code?: string}).code === 'EEXIT') return {exitCode: exit ?? 0, text: '', json: {exitCode: exit ?? 0}}
      // oclif's flag and argument parsing errors are input errors. They quote flag values, and are
      // raised before this command knows its secrets, so card numbers are masked by their shape.
      const message = maskCardNumbers(scrub(err.message.replace(/\n\s*See more help with --help$/, '')))
      const code = exit === undefined || exit === 2 ? EXIT.input : exit
      return {
        exitCode: code,
        text: `Error: ${message}${code === EXIT.input ? `\nHint: ${this.flagErrorHint(err)}` : ''}`,
        json: {kind: code === EXIT.input ? 'input' : 'internal', exitCode: code, message},
      }
    }
    const message = scrub(err.message || String(err))
    return {
      exitCode: EXIT.service,
      text: `Error: ${message}\nHint: this looks like a bug in paytx; run again with --verbose and report it.`,
      json: {kind: 'internal', exitCode: EXIT.service, message},
    }
  }

  /** The hint for a flag error, naming the closest known flag when one was mistyped. */
  private flagErrorHint(err: Errors.CLIError): string {
    const typed = (err as {flags?: unknown}).flags
    const seeHelp = 'see --help for the flags and their allowed values.'
    if (!Array.isArray(typed) || typeof typed[0] !== 'string') return seeHelp
    const known = Object.keys(this.ctor.flags ?? {}).map((name) => `--${name}`)
    const closest = closestName(typed[0].split('=')[0], known)
    return closest ? `did you mean \`${closest}\`? Or ${seeHelp}` : seeHelp
  }
}
