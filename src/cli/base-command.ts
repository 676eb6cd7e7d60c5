/**
 * The base of every paytx command: what every command needs. It parses the global flags
 * (global-flags.ts), resolves the profile and the service, says whether a person is at the
 * terminal, and writes output and failures; asking (asking.ts) and the words of a failure
 * (failure.ts, output/failure-text.ts) live in their own files.
 */
import {Command} from '@oclif/core/command'
import type {Interfaces} from '@oclif/core'

import {hintText} from '../output/remedy.js'
import type {Remedy} from '../remedy.js'
import {EXIT} from '../errors.js'
import type {HttpClientOptions} from '../api/http-client.js'
import type {PaymentService} from '../api/service.js'
import type {EmbeddedEmulator} from '../flow/embedded-emulator.js'
import type {CommandContext} from '../context/command-context.js'
import {processContext} from '../context/process-context.js'
import {LOCAL_PROFILE_NAME, type Profile, type ProfileLabel} from '../profiles/presets.js'
import {EMULATOR_DEFAULTS} from '../test-mode/emulator-defaults.js'
import {scrubSecrets} from '../secrets/redact.js'
import {type ResolvedProfile, resolveProfile} from '../profiles/resolve.js'
import {keysToReadFromKeychain} from '../profiles/key-fields.js'
import type {ProfileStore} from '../profiles/store.js'
import {colorWanted, productionBanner} from '../terminal/production-banner.js'
import {isInteractive} from '../terminal/interactive.js'
import {INTERRUPT_SIGNALS, type Interruption, type StopSignal, listenForInterrupt} from '../terminal/interrupt.js'
import {type Prompter, terminalPrompter} from '../terminal/prompts.js'
import {visibleLines} from '../terminal/visible-text.js'
import {type Confirmation, type ValueQuestion, confirmOrRefuse, productionConfirmation, requireAnswer} from './asking.js'
import {type FailureScope, reportFailure} from './failure.js'
import {MissingFlagsError} from './missing-flags.js'
import {GLOBAL_FLAGS, type GlobalOptions, maxResponseBytes, parseRequestTimeout} from './global-flags.js'

export {EXIT_CODES_HELP, type GlobalOptions, parseRequestTimeout} from './global-flags.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/**
 * A command typed by its flags (`T`, the command class) and by the result its `run()` returns
 * (`R`, what `--json` prints).
 */
export abstract class BaseCommand<T extends typeof Command, R = unknown> extends Command {
  static override enableJsonFlag = true

  static override baseFlags = GLOBAL_FLAGS

  /**
   * Flags required in --help that this command asks a person for when they are missing (flow's
   * --product and --amount): oclif lets them pass, and the command calls missingFlagsError()
   * when nobody is at the terminal to ask.
   */
  static askedFlags: readonly string[] = []

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
    const asked = new Set((this.ctor as typeof BaseCommand).askedFlags)
    const {args, argv, flags} = await this.parse({
      flags: Object.fromEntries(Object.entries(this.ctor.flags ?? {}).map(([name, flag]) => [name, asked.has(name) ? {...flag, required: false} : flag])),
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
   * A value the command cannot do without: the flag's value when given, else asked on a terminal
   * (the answer checked as it is typed), else an input error naming the flag (nothing has been
   * sent at this point). See asking.ts.
   */
  protected async requireValue(flag: string, value: string | undefined, ask: ValueQuestion): Promise<string> {
    return requireAnswer(this.interactive() ? this.prompter() : undefined, flag, value, ask)
  }

  /** The input error for required flags left out (names without dashes): each with what it is for, and the command's help. */
  protected missingFlagsError(names: readonly string[]): MissingFlagsError {
    return new MissingFlagsError(names, this.ctor.flags ?? {}, this.id?.split(':').join(' ') ?? '')
  }

  /** How this command asks a person: the context's prompter, else inquirer's on the command's stdin and stderr. */
  protected prompter(): Prompter {
    return this.ctx.prompter ?? terminalPrompter(this.ctx.io)
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
    if (resolved.production) await this.confirmOrRefuse(productionConfirmation(resolved, action, yes))
  }

  /**
   * A change that needs a yes: --yes gives it; a person at the terminal is asked; otherwise the
   * command refuses (exit 2, naming --yes). A "no" is an input error too.
   */
  protected async confirmOrRefuse(ask: Confirmation): Promise<void> {
    await confirmOrRefuse(this.interactive() ? this.prompter() : undefined, ask)
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
    const json = this.jsonEnabled() ? (this.jsonLines ? 'lines' : 'document') : undefined
    reportFailure(err, this.failureScope(), {io: this.ctx.io, json, verbose: Boolean(this.globals?.verbose || this.ctx.env.DEBUG), setExitCode: this.ctx.setExitCode})
    return undefined
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    await Promise.allSettled(this.services.map((service) => service.close()))
    await Promise.allSettled(this.embeddedEmulators.map((emulator) => emulator.stop()))
    this.listeningForInterrupt?.dispose()
    return super.finally(err)
  }

  /** What the failure rendering needs to know of this command (cli/failure.ts). */
  private failureScope(): FailureScope {
    const ctor = this.ctor as typeof BaseCommand
    const flags = {...ctor.baseFlags, ...ctor.flags, ...(ctor.enableJsonFlag ? {json: {summary: 'Format output as json.'}} : {})}
    return {secrets: this.secrets, fieldFlags: this.fieldFlags, invokedAs: this.ctx.invokedAs, command: this.id?.split(':').join(' ') ?? '', flags}
  }
}
