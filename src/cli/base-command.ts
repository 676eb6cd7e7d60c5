/**
 * The base of every paytx command: what every command needs, as short delegates to the files that do it: global flags
 * (global-flags.ts), the profile and the service (profile-and-service.ts), notes fitted to the terminal (notes.ts),
 * asking (asking.ts), failures (failure.ts), interruption (terminal/interrupt.ts).
 */
import {Command} from '@oclif/core/command'
import type {Interfaces} from '@oclif/core'

import {hintText} from '../output/remedy.js'
import type {Remedy} from '../remedy.js'
import {EXIT} from '../errors.js'
import type {HttpClientOptions} from '../api/http-client.js'
import type {PaymentService} from '../api/service.js'
import type {CommandContext} from '../context/command-context.js'
import {processContext} from '../context/process-context.js'
import type {Profile, ProfileLabel} from '../profiles/presets.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import type {ProfileStore} from '../profiles/store.js'
import {isInteractive} from '../terminal/interactive.js'
import {INTERRUPT_SIGNALS, type Interruption, type StopSignal, listenForInterrupt} from '../terminal/interrupt.js'
import {type Prompter, terminalPrompter} from '../terminal/prompts.js'
import {type Confirmation, type ValueQuestion, confirmOrRefuse, productionConfirmation, requireAnswer} from './asking.js'
import {failureScopeOf, reportFailure} from './failure.js'
import {MissingFlagsError, withAskedFlagsOptional} from './missing-flags.js'
import {GLOBAL_FLAGS, type GlobalOptions, globalOptionsOf} from './global-flags.js'
import {writeNote} from './notes.js'
import {ProfileAndService} from './profile-and-service.js'

export {EXIT_CODES_HELP, type GlobalOptions, parseRequestTimeout} from './global-flags.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/** A command typed by its flags (`T`, the command class) and by what its `run()` returns (`R`, what `--json` prints). */
export abstract class BaseCommand<T extends typeof Command, R = unknown> extends Command {
  static override enableJsonFlag = true

  static override baseFlags = GLOBAL_FLAGS

  /** Flags required in --help that the command asks for when missing (flow's): oclif lets them pass; see missingFlagsError(). */
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
  /** Whether --json prints a stream of JSON lines (NDJSON) rather than one document: then an error is one line too. */
  protected jsonLines = false
  /** The signals that stop this command cleanly (exit 130) once it listens for them. */
  protected stopSignals: readonly StopSignal[] = INTERRUPT_SIGNALS
  private listeningForInterrupt?: Interruption
  private profileAndService?: ProfileAndService
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
    const ctor = this.ctor as typeof BaseCommand
    // The flags it asks for when missing are not required of oclif's parser (see askedFlags).
    const input = {baseFlags: ctor.baseFlags, enableJsonFlag: ctor.enableJsonFlag, args: ctor.args, strict: ctor.strict}
    const {args, argv, flags} = await this.parse({...input, flags: withAskedFlagsOptional(ctor.flags, ctor.askedFlags)})
    this.flags = flags as BaseFlags<T>
    this.args = args as BaseArgs<T>
    this.globals = globalOptionsOf(flags)
    this.argList = argv as string[]
  }

  public abstract override run(): Promise<R>

  /** A secret read by this command (PAN, CVV, key): scrubbed from every message and log from now on. */
  protected addSecrets(...values: (string | undefined)[]): void {
    const known = values.filter((value): value is string => Boolean(value))
    this.secrets.push(...known)
    for (const service of this.profileAndService?.services ?? []) service.addSecrets(...known)
  }

  protected profileStore(): ProfileStore {
    return this.ctx.profiles({notice: (line) => this.note(line)})
  }

  // The profile in use, its keychain keys, its service clients and a local profile's emulator: profile-and-service.ts.
  private get against(): ProfileAndService {
    const scope = {ctx: this.ctx, globals: this.globals, secrets: this.secrets, note: (text: string) => this.note(text)}
    this.profileAndService ??= new ProfileAndService({...scope, addSecrets: (...values) => this.addSecrets(...values)})
    return this.profileAndService
  }

  protected profile(): ResolvedProfile {
    return this.against.profile()
  }

  protected announceProduction(resolved: Pick<ResolvedProfile, 'name' | 'profile' | 'production'>): void {
    this.against.announceProduction(resolved)
  }

  /** Points this command at the emulator at `url` (an emulator command's --url). Call before profile(). */
  protected useEmulatorAt(url: string | undefined): void {
    this.against.useEmulatorAt(url)
  }

  protected async profileWithKeys(): Promise<ResolvedProfile> {
    return this.against.profileWithKeys()
  }

  protected async fillKeysFromKeychain(resolved: {name: string; profile: Profile}): Promise<void> {
    return this.against.fillKeysFromKeychain(resolved)
  }

  protected profileUnderResult(): ProfileLabel | undefined {
    return this.against.profileUnderResult()
  }

  protected async service(shared: Pick<HttpClientOptions, 'gate'> = {}, options: {embeddedEmulator?: boolean} = {}): Promise<PaymentService> {
    return this.against.service(shared, options)
  }

  /** Whether a person is at the terminal (terminal/interactive.ts): only then does a command prompt, spin or redraw lines. */
  protected interactive(): boolean {
    return isInteractive({noInput: this.globals.noInput, json: this.jsonEnabled()}, this.ctx.env, this.ctx.io)
  }

  // Asking (asking.ts): a required value, the missing-flags error, the production guard, a change that needs a yes.
  protected async requireValue(flag: string, value: string | undefined, ask: ValueQuestion): Promise<string> {
    return requireAnswer(this.interactive() ? this.prompter() : undefined, flag, value, ask)
  }

  protected missingFlagsError(names: readonly string[]): MissingFlagsError {
    return new MissingFlagsError(names, this.ctor.flags ?? {}, this.id?.split(':').join(' ') ?? '')
  }

  protected async confirmProduction(action: string, yes: boolean): Promise<void> {
    const resolved = this.profile()
    if (resolved.production) await this.confirmOrRefuse(productionConfirmation(resolved, action, yes))
  }

  protected async confirmOrRefuse(ask: Confirmation): Promise<void> {
    await confirmOrRefuse(this.interactive() ? this.prompter() : undefined, ask)
  }

  /** How this command asks a person: the context's prompter, else inquirer's on the command's stdin and stderr. */
  protected prompter(): Prompter {
    return this.ctx.prompter ?? terminalPrompter(this.ctx.io)
  }

  /** The one JSON document of --json, plain: oclif's own colours it with a walk that runs out of stack on deep values. */
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

  /** An error inside a result (one id of many, one smoke case) gets its remedies in words in its `hint`, as the command's own error does. */
  protected sayRemedies(error: {hint?: string; remedies?: readonly Remedy[]}): void {
    error.hint = hintText(error, this.ctx.invokedAs)
  }

  /** Hints, progress and warnings: always stderr, never under stdout's data; fitted to a terminal's width (notes.ts). */
  protected note(text: string): void {
    writeNote(this.ctx.io.stderr, text, this.secrets)
  }

  protected warnUser(text: string): void {
    this.note(`Warning: ${text}`)
  }

  /** Ctrl-C and SIGTERM, heard until the command ends: it cleans up and exits 130; ^C at a terminal ends its line (terminal/interrupt.ts). */
  protected interruption(): Interruption {
    this.listeningForInterrupt ??= listenForInterrupt(this.stopSignals, process, this.ctx.io)
    return this.listeningForInterrupt
  }

  /** The interruption's abort signal: commands that wait throw InterruptedError (exit 130) when it aborts. */
  protected interruptSignal(): AbortSignal {
    return this.interruption().signal
  }

  /** The exit code of a command that ran to its end (an outcome, or 130 after a clean stop); 0 leaves it as it is. */
  protected setOutcomeExitCode(code: number): void {
    if (code !== EXIT.ok) this.ctx.setExitCode(code)
  }

  protected override async catch(err: Error & {exitCode?: number}): Promise<unknown> {
    const json = this.jsonEnabled() ? (this.jsonLines ? 'lines' : 'document') : undefined
    const scope = failureScopeOf(this.ctor as typeof BaseCommand, this.id, {secrets: this.secrets, fieldFlags: this.fieldFlags, invokedAs: this.ctx.invokedAs})
    reportFailure(err, scope, {io: this.ctx.io, json, verbose: Boolean(this.globals?.verbose || this.ctx.env.DEBUG), setExitCode: this.ctx.setExitCode})
    return undefined
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    await this.profileAndService?.close()
    this.listeningForInterrupt?.dispose()
    return super.finally(err)
  }
}
