/**
 * The base of every paytx command: global flags, profile and service resolution, prompts, the
 * production guard, and the one place where an error becomes a message and an exit code.
 */
import {Command} from '@oclif/core/command'
import * as Errors from '@oclif/core/errors'
import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {closestName} from '../closest-name.js'
import {secretFlagHint} from '../input/secret-flags.js'
import {hintText} from '../output/remedy.js'
import type {Remedy} from '../remedy.js'
import {EXIT, InputError, PaytxError, ServiceError, detailField} from '../errors.js'
import {MAX_TIMER_MS} from '../duration.js'
import type {HttpClientOptions} from '../api/http-client.js'
import type {PaymentService} from '../api/service.js'
import type {EmbeddedEmulator} from '../flow/embedded-emulator.js'
import type {CommandContext} from '../context/command-context.js'
import {processContext} from '../context/process-context.js'
import {LOCAL_PROFILE_NAME, type Profile, type ProfileLabel} from '../profiles/presets.js'
import {EMULATOR_DEFAULTS} from '../test-mode/emulator-defaults.js'
import {maskCardNumbers, scrubSecrets} from '../secrets/redact.js'
import {type ResolvedProfile, resolveProfile} from '../profiles/resolve.js'
import {keysToReadFromKeychain} from '../profiles/key-fields.js'
import type {ProfileStore} from '../profiles/store.js'
import {colorWanted, productionAddressShown, productionBanner, productionWhy} from '../terminal/production-banner.js'
import {requireFlag} from '../input/required-flag.js'
import {isInteractive} from '../terminal/interactive.js'
import {commandLine} from '../terminal/invoked-name.js'
import {INTERRUPT_SIGNALS, type Interruption, type StopSignal, listenForInterrupt} from '../terminal/interrupt.js'
import {visibleLines, visibleText} from '../terminal/visible-text.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

export const EXIT_CODES_HELP = `EXIT CODES
  0    done; for outcome commands, the payment succeeded
  1    the service or the network failed
  2    the input was wrong, or a confirmation was declined; nothing was sent
  3    the payment is final and not a success
  4    waiting ran out before a final status
  130  interrupted (Ctrl-C or SIGTERM)`

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

/** The global flags, parsed and checked once in `init()`. */
export interface GlobalOptions {
  profile?: string
  verbose: boolean
  requestTimeoutMs: number
  noInput: boolean
}

/** --timeout in seconds, as milliseconds; anything but a positive number is an input error. */
export function parseRequestTimeout(raw: string): number {
  const seconds = Number(raw)
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new InputError(`--timeout must be a number of seconds greater than 0 (got "${raw}").`, {flag: '--timeout'})
  }
  if (seconds * 1000 > MAX_TIMER_MS) {
    throw new InputError(`--timeout can be at most ${Math.floor(MAX_TIMER_MS / 1000)} seconds (about 24.8 days), the longest paytx can wait (got "${raw}").`, {flag: '--timeout'})
  }
  return Math.round(seconds * 1000)
}

/**
 * A command typed by its flags (`T`, the command class) and by the result its `run()` returns
 * (`R`, what `--json` prints).
 */
export abstract class BaseCommand<T extends typeof Command, R = unknown> extends Command {
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
  protected globals!: GlobalOptions
  /** Every positional argument in order, for commands that take a list (`static strict = false`). */
  protected argList: string[] = []
  /** Maps a request field (as in the service's error details) to the flag that set it. */
  protected fieldFlags: Record<string, string> = {}
  /** Extra values to scrub from every message (a PAN or CVV read by this command). */
  protected secrets: string[] = []
  private services: PaymentService[] = []
  private embeddedEmulators: EmbeddedEmulator[] = []
  /** Addresses a command's own flag gives (an emulator's --url), over the profile and PAYTX_* alike; set before profile() is first called. */
  protected addressOverrides: Partial<Pick<Profile, 'base_url' | 'h2h_url'>> = {}
  /** Whether --json prints a stream of JSON lines (NDJSON) rather than one document: then an error is one line too. */
  protected jsonLines = false
  /** The signals that stop this command cleanly (exit 130) once it listens for them. */
  protected stopSignals: readonly StopSignal[] = INTERRUPT_SIGNALS
  private listeningForInterrupt?: Interruption
  private cachedProfile?: ResolvedProfile
  private keychainKeys?: Promise<void>
  private givenContext?: CommandContext

  /** Runs this command against `context` instead of this process's (tests, other front ends). Call before running. */
  public useContext(context: CommandContext): this {
    this.givenContext = context
    return this
  }

  /** What this run touches of the world: the given context, else this process's, built on first use. */
  protected get ctx(): CommandContext {
    this.givenContext ??= processContext(this.config.configDir)
    return this.givenContext
  }

  public override async init(): Promise<void> {
    await super.init()
    const {args, argv, flags} = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: this.ctor.args,
      strict: this.ctor.strict,
    })
    this.flags = flags as BaseFlags<T>
    this.args = args as BaseArgs<T>
    this.globals = {
      profile: flags.profile,
      verbose: flags.verbose,
      requestTimeoutMs: parseRequestTimeout(flags.timeout),
      noInput: flags['no-input'],
    }
    this.argList = argv as string[]
  }

  public abstract override run(): Promise<R>

  /** A secret read by this command (PAN, CVV, key): scrubbed from every message and log from now on. */
  protected addSecrets(...values: (string | undefined)[]): void {
    const known = values.filter((value): value is string => Boolean(value))
    this.secrets.push(...known)
    for (const service of this.services) service.addSecrets(...known)
  }

  protected profileStore(): ProfileStore {
    return this.ctx.profiles({notice: (line) => this.note(line)})
  }

  /**
   * The profile in use, resolved once. A production profile announces itself on stderr first
   * (also with --json), so nobody reads from or writes to production unawares.
   */
  protected profile(): ResolvedProfile {
    if (!this.cachedProfile) {
      this.cachedProfile = resolveProfile(this.profileStore(), {name: this.globals.profile, env: this.ctx.env, overrides: this.addressOverrides})
      this.secrets.push(...[this.cachedProfile.profile.api_key, this.cachedProfile.profile.proxy_key].filter((s): s is string => Boolean(s)))
      this.announceProduction(this.cachedProfile)
      // Started now, so that the keychain answers while the command loads what it needs.
      this.keychainKeys = this.fillKeysFromKeychain(this.cachedProfile)
    }
    return this.cachedProfile
  }

  /** The production line, for a profile that is production by label or by address (profiles/production.ts). */
  protected announceProduction(resolved: Pick<ResolvedProfile, 'name' | 'profile' | 'production'>): void {
    // paytx's own line, coloured on purpose: written as it is, not escaped as outside text is.
    if (resolved.production) this.ctx.io.stderr.write(`${productionBanner(resolved, {color: colorWanted(this.ctx.io.stderr, this.ctx.env)})}\n`)
  }

  /**
   * Points this command at the emulator at `url` (an emulator command's --url): the local profile
   * (or --profile's), with that address for the API and the card proxy. Call before profile().
   */
  protected useEmulatorAt(url: string | undefined): void {
    if (url === undefined) return
    this.addressOverrides = {base_url: url, h2h_url: `${url}${EMULATOR_DEFAULTS.proxyBasePath}`}
    this.globals.profile ??= LOCAL_PROFILE_NAME
  }

  /** The profile in use with the keys it keeps in the OS keychain read (see profiles/key-storage.ts). */
  protected async profileWithKeys(): Promise<ResolvedProfile> {
    const resolved = this.profile()
    await this.keychainKeys
    return resolved
  }

  /**
   * Fills in the keys a profile keeps in the keychain (nothing to do, and nothing loaded, for keys
   * in the file or the environment). Never fails: a key that cannot be read is said in one line,
   * and the command goes on without it.
   */
  protected async fillKeysFromKeychain(resolved: {name: string; profile: Profile}): Promise<void> {
    if (keysToReadFromKeychain(resolved.profile).length === 0) return
    const [{readKeychainKeys}, {describeUnreadableKeys}] = await Promise.all([import('../profiles/key-storage.js'), import('../output/unreadable-keys.js')])
    const {keys, unreadable} = await readKeychainKeys(resolved.profile, this.ctx.keychain)
    Object.assign(resolved.profile, keys)
    this.addSecrets(...Object.values(keys))
    if (unreadable.length > 0) this.note(describeUnreadableKeys(resolved.name, unreadable, this.ctx.invokedAs))
  }

  /** The profile to show under a result on a terminal (a pipe gets the result alone). */
  protected profileUnderResult(): ProfileLabel | undefined {
    if (!this.ctx.io.stdout.isTTY) return undefined
    const {name, profile} = this.profile()
    return {name, env: profile.env}
  }

  /** The service client for the resolved profile; closed when the command ends. */
  protected async service(shared: Pick<HttpClientOptions, 'gate'> = {}, {embeddedEmulator = true}: {embeddedEmulator?: boolean} = {}): Promise<PaymentService> {
    const withKeys = await this.profileWithKeys()
    // A command that drives a running emulator (trigger, resend) never starts one of its own: it
    // would answer from the shared store, not from the emulator the user means.
    const resolved = embeddedEmulator ? await this.withLocalEmulator(withKeys) : withKeys
    const service = await this.ctx.service(resolved, {
      timeoutMs: this.globals.requestTimeoutMs,
      maxResponseBytes: maxResponseBytes(this.ctx.env),
      log: this.globals.verbose ? (line) => this.ctx.io.stderr.write(`${visibleLines(line)}\n`) : undefined,
      secrets: this.secrets,
      ...shared,
    })
    this.services.push(service)
    return service
  }

  /**
   * A `local` profile with no emulator to rely on at its address gets one in this process, over
   * the shared store, until the command ends (see flow/embedded-emulator.ts). Loaded only then.
   */
  private async withLocalEmulator(resolved: ResolvedProfile): Promise<ResolvedProfile> {
    if (resolved.profile.env !== 'local') return resolved
    const [{pointedAt}, emulator] = await Promise.all([import('../flow/embedded-emulator.js'), this.ctx.emulator(resolved)])
    this.embeddedEmulators.push(emulator)
    return pointedAt(resolved, emulator)
  }

  /**
   * Whether a person is at the terminal (terminal/interactive.ts): only then does a command prompt,
   * spin or redraw lines in place.
   */
  protected interactive(): boolean {
    return isInteractive({noInput: this.globals.noInput, json: this.jsonEnabled()}, this.ctx.env, this.ctx.io)
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
    if ((value !== undefined && value !== '') || !this.interactive()) return requireFlag(flag, value, ask.allowed)
    const prompts = await import('../terminal/prompts.js')
    // A person at a prompt typed no flag: problems name what was asked.
    const asked = ask.message.replace(/\s*\(.*\)\s*:?$|:$/, '')
    const validate = (answer: string) => (answer.trim() === '' ? `${asked} is required` : (ask.validate?.(answer.trim()) ?? true))
    const answer = ask.secret ? await prompts.askSecret(ask.message, {validate}) : await prompts.ask(ask.message, {validate})
    return answer.trim()
  }

  /**
   * The one JSON document of --json, written as plain JSON. oclif's own `logJson` colours it with
   * a walk that runs out of stack on large or deep values; answers are capped in size and depth
   * before they get here, and JSON.stringify handles what is left.
   */
  override logJson(json: unknown): void {
    this.ctx.io.stdout.write(`${JSON.stringify(json, null, 2)}\n`)
  }

  /** Human output goes to stdout only when --json is off. */
  protected print(text: string): void {
    if (!this.jsonEnabled()) this.ctx.io.stdout.write(`${text}\n`)
  }

  /** A command line for a hint, named as the user ran paytx: `paytx profile show`, `./bin/run.js profile show`. */
  protected commandLine(args: string): string {
    return `${this.ctx.invokedAs} ${args}`
  }

  /**
   * An error reported inside a result (one id of many, one smoke case) gets its remedies in words
   * in its `hint`, as the command's own error does, for the JSON, the table and the JUnit report.
   */
  protected sayRemedies(error: {hint?: string; remedies?: readonly Remedy[]}): void {
    error.hint = hintText(error, this.ctx.invokedAs)
  }

  /** Hints, progress and warnings: always stderr, never under stdout's data. */
  protected note(text: string): void {
    this.ctx.io.stderr.write(`${visibleLines(scrubSecrets(text, this.secrets))}\n`)
  }

  protected warnUser(text: string): void {
    this.note(`Warning: ${text}`)
  }

  /**
   * The production guard: creating anything against production (by label or by address, see
   * profiles/production.ts) asks first, or needs --yes; without a terminal and without --yes it
   * refuses before anything is sent.
   */
  protected async confirmProduction(action: string, yes: boolean): Promise<void> {
    const resolved = this.profile()
    if (!resolved.production) return
    const {name} = resolved
    const why = productionWhy(resolved)
    await this.confirmOrRefuse({
      yes,
      refusal: `Refusing to ${action} on production profile "${name}" without confirmation${why ? ` (${why})` : ''}.`,
      question: `This will ${action} on PRODUCTION (profile "${name}", ${productionAddressShown(resolved)}${why ? `; ${why}` : ''}). Continue?`,
      cancelled: 'Cancelled; nothing was sent.',
    })
  }

  /**
   * A change that needs a yes: --yes gives it; a person at the terminal is asked; otherwise the
   * command refuses (exit 2, naming --yes). A "no" is an input error too.
   */
  protected async confirmOrRefuse(ask: {yes: boolean; refusal: string; question: string; cancelled: string; hint?: string}): Promise<void> {
    if (ask.yes) return
    if (!this.interactive()) {
      throw new InputError(ask.refusal, ask.hint ? {hint: ask.hint} : {flag: '--yes', hint: 'Pass --yes to confirm, or run it in a terminal to be asked.'})
    }
    const {confirm} = await import('../terminal/prompts.js')
    if (!(await confirm(ask.question))) throw new InputError(ask.cancelled)
  }

  /**
   * Listens for Ctrl-C (SIGINT) and SIGTERM from now until the command ends, for commands that
   * wait: they stop waiting, clean up and end with exit 130. A second signal exits at once.
   */
  protected interruption(): Interruption {
    this.listeningForInterrupt ??= listenForInterrupt(this.stopSignals)
    return this.listeningForInterrupt
  }

  /** The interruption's abort signal: commands that wait throw InterruptedError (exit 130) when it aborts. */
  protected interruptSignal(): AbortSignal {
    return this.interruption().signal
  }

  /**
   * The exit code of a command that ran to its end: the outcome (errors.ts's outcomeExitCode, a
   * smoke run's, or 130 after a clean stop). 0 leaves the process's exit code as it is.
   */
  protected setOutcomeExitCode(code: number): void {
    if (code !== EXIT.ok) this.ctx.setExitCode(code)
  }

  protected override async catch(err: Error & {exitCode?: number}): Promise<unknown> {
    const failure = this.describeFailure(err)
    this.ctx.setExitCode(failure.exitCode)
    if (this.jsonEnabled() && !this.jsonLines) {
      this.logJson({error: failure.json})
      return undefined
    }
    // A stream of JSON lines ends with its error as one more line, which a line reader can parse;
    // the words go to stderr as without --json.
    if (this.jsonEnabled()) this.ctx.io.stdout.write(`${JSON.stringify({error: failure.json})}\n`)
    if (failure.exitCode === EXIT.interrupted && !failure.text) return undefined
    this.ctx.io.stderr.write(`${visibleLines(failure.text)}\n`)
    const verbose = this.globals?.verbose || this.ctx.env.DEBUG
    if (verbose && err.stack && !(err instanceof PaytxError)) this.ctx.io.stderr.write(`${visibleLines(scrubSecrets(err.stack, this.secrets))}\n`)
    return undefined
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    await Promise.allSettled(this.services.map((service) => service.close()))
    await Promise.allSettled(this.embeddedEmulators.map((emulator) => emulator.stop()))
    this.listeningForInterrupt?.dispose()
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
      const hint = hintText(err, this.ctx.invokedAs)
      if (hint) {
        lines.push(`Hint: ${scrub(hint)}`)
        json.hint = scrub(hint)
      }
      return {exitCode: err.exitCode, text: lines.join('\n'), json}
    }
    if (err instanceof Errors.CLIError) {
      const exit = (err as Errors.CLIError).oclif?.exit
      if (exit === 0 || (err as {code?: string}).code === 'EEXIT') return {exitCode: exit ?? 0, text: '', json: {exitCode: exit ?? 0}}
      // oclif's flag and argument parsing errors are input errors. They quote flag values, and are
      // raised before this command knows its secrets, so card numbers are masked by their shape.
      const message = maskCardNumbers(scrub(err.message.replace(/\n\s*See more help with --help$/, '')))
      const code = exit === undefined || exit === 2 ? EXIT.input : exit
      if (code !== EXIT.input) return {exitCode: code, text: `Error: ${message}`, json: {kind: 'internal', exitCode: code, message}}
      const hint = this.flagErrorHint(err)
      return {exitCode: code, text: `Error: ${message}\nHint: ${hint}`, json: {kind: 'input', exitCode: code, message, hint}}
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
    // oclif's message for a value outside the allowed ones, of a flag (`Expected --product=crad to be
    // one of: card, sofort, dummy`) or of an argument (`Expected DECLIEND to be one of: ...`).
    const option = /^Expected (?:--([\w-]+)=)?(.*) to be one of: (.+)$/m.exec(err.message)
    if (option) {
      const [, flag, value, allowed] = option
      const closest = closestName(value, allowed.split(', '))
      if (!closest) return seeHelp
      return `did you mean \`${flag ? `--${flag} ${closest}` : closest}\`? Or ${seeHelp}`
    }
    if (!Array.isArray(typed) || typeof typed[0] !== 'string') return seeHelp
    const ctor = this.ctor as typeof BaseCommand
    const names = [...Object.keys(ctor.baseFlags ?? {}), ...Object.keys(ctor.flags ?? {}), ...(ctor.enableJsonFlag ? ['json'] : [])]
    const known = [...new Set(names)].map((name) => `--${name}`)
    const secret = secretFlagHint(typed[0], known, commandLine(this.id?.split(':').join(' ') ?? ''))
    if (secret) return secret
    const closest = closestName(typed[0].split('=')[0], known)
    return closest ? `did you mean \`${closest}\`? Or ${seeHelp}` : seeHelp
  }
}
