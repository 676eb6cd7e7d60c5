/**
 * What a command runs against, for the base command: the profile in use (resolved once, its
 * production line said first), the keys it keeps in the OS keychain (read while the command loads
 * what it needs), the service clients built for it and, for a `local` profile with no emulator to
 * rely on, an emulator in this process until the command ends. The base command's profile(),
 * profileWithKeys() and service() are short delegates to one of these.
 */
import type {HttpClientOptions} from '../api/http-client.js'
import type {PaymentService} from '../api/service.js'
import type {CommandContext} from '../context/command-context.js'
import type {EmbeddedEmulator} from '../flow/embedded-emulator.js'
import {LOCAL_PROFILE_NAME, type Profile, type ProfileLabel} from '../profiles/presets.js'
import {keysToReadFromKeychain} from '../profiles/key-fields.js'
import {type ResolvedProfile, resolveProfile} from '../profiles/resolve.js'
import {EMULATOR_DEFAULTS} from '../test-mode/emulator-defaults.js'
import {colorWanted, productionBanner} from '../terminal/production-banner.js'
import {visibleLines} from '../terminal/visible-text.js'
import {type GlobalOptions, maxResponseBytes} from './global-flags.js'

/** What the profile and its service need of the command that uses them. */
export interface ProfileScope {
  ctx: CommandContext
  globals: GlobalOptions
  /** The command's secrets: the keys found are added, and every client scrubs them. */
  secrets: string[]
  /** Adds secrets to the command and to every client built so far. */
  addSecrets(...values: (string | undefined)[]): void
  note(text: string): void
}

/** Addresses a command's own flag gives (an emulator's --url), over the profile and PAYTX_* alike. */
export type AddressOverrides = Partial<Pick<Profile, 'base_url' | 'h2h_url'>>

export class ProfileAndService {
  /** Every client built for the command, closed when it ends. */
  readonly services: PaymentService[] = []
  private readonly embeddedEmulators: EmbeddedEmulator[] = []
  private addressOverrides: AddressOverrides = {}
  private cachedProfile?: ResolvedProfile
  private keychainKeys?: Promise<void>

  constructor(private readonly scope: ProfileScope) {}

  /**
   * Points the command at the emulator at `url` (an emulator command's --url): the local profile
   * (or --profile's), with that address for the API and the card proxy. Call before profile().
   */
  useEmulatorAt(url: string | undefined): void {
    if (url === undefined) return
    this.addressOverrides = {base_url: url, h2h_url: `${url}${EMULATOR_DEFAULTS.proxyBasePath}`}
    this.scope.globals.profile ??= LOCAL_PROFILE_NAME
  }

  /** The profile in use, resolved once; a production profile announces itself on stderr first (also with --json). */
  profile(): ResolvedProfile {
    if (!this.cachedProfile) {
      const {ctx, globals} = this.scope
      this.cachedProfile = resolveProfile(ctx.profiles({notice: (line) => this.scope.note(line)}), {name: globals.profile, env: ctx.env, overrides: this.addressOverrides})
      this.scope.secrets.push(...[this.cachedProfile.profile.api_key, this.cachedProfile.profile.proxy_key].filter((s): s is string => Boolean(s)))
      this.announceProduction(this.cachedProfile)
      // Started now, so that the keychain answers while the command loads what it needs.
      this.keychainKeys = this.fillKeysFromKeychain(this.cachedProfile)
    }
    return this.cachedProfile
  }

  /** The production line, for a profile that is production by label or by address (profiles/production.ts). */
  announceProduction(resolved: Pick<ResolvedProfile, 'name' | 'profile' | 'production'>): void {
    const {io, env} = this.scope.ctx
    // paytx's own line, coloured on purpose: written as it is, not escaped as outside text is.
    if (resolved.production) io.stderr.write(`${productionBanner(resolved, {color: colorWanted(io.stderr, env)})}\n`)
  }

  /** The profile in use with the keys it keeps in the OS keychain read (see profiles/key-storage.ts). */
  async profileWithKeys(): Promise<ResolvedProfile> {
    const resolved = this.profile()
    await this.keychainKeys
    return resolved
  }

  /**
   * Fills in the keys a profile keeps in the keychain (nothing to do, and nothing loaded, for keys
   * in the file or the environment). Never fails: a key that cannot be read is said in one line,
   * and the command goes on without it.
   */
  async fillKeysFromKeychain(resolved: {name: string; profile: Profile}): Promise<void> {
    if (keysToReadFromKeychain(resolved.profile).length === 0) return
    const [{readKeychainKeys}, {describeUnreadableKeys}] = await Promise.all([import('../profiles/key-storage.js'), import('../output/unreadable-keys.js')])
    const {keys, unreadable} = await readKeychainKeys(resolved.profile, this.scope.ctx.keychain)
    Object.assign(resolved.profile, keys)
    this.scope.addSecrets(...Object.values(keys))
    if (unreadable.length > 0) this.scope.note(describeUnreadableKeys(resolved.name, unreadable, this.scope.ctx.invokedAs))
  }

  /** The profile to show under a result on a terminal (a pipe gets the result alone). */
  profileUnderResult(): ProfileLabel | undefined {
    if (!this.scope.ctx.io.stdout.isTTY) return undefined
    const {name, profile} = this.profile()
    return {name, env: profile.env}
  }

  /** The service client for the resolved profile; closed when the command ends. */
  async service(shared: Pick<HttpClientOptions, 'gate'> = {}, {embeddedEmulator = true}: {embeddedEmulator?: boolean} = {}): Promise<PaymentService> {
    const withKeys = await this.profileWithKeys()
    // A command that drives a running emulator (trigger, resend) never starts one of its own: it
    // would answer from the shared store, not from the emulator the user means.
    const resolved = embeddedEmulator ? await this.withLocalEmulator(withKeys) : withKeys
    const {ctx, globals, secrets} = this.scope
    const service = await ctx.service(resolved, {
      timeoutMs: globals.requestTimeoutMs,
      maxResponseBytes: maxResponseBytes(ctx.env),
      log: globals.verbose ? (line) => ctx.io.stderr.write(`${visibleLines(line)}\n`) : undefined,
      secrets,
      ...shared,
    })
    this.services.push(service)
    return service
  }

  /** Closes every client and stops every emulator this command started; never fails. */
  async close(): Promise<void> {
    await Promise.allSettled(this.services.map((service) => service.close()))
    await Promise.allSettled(this.embeddedEmulators.map((emulator) => emulator.stop()))
  }

  /**
   * A `local` profile with no emulator to rely on at its address gets one in this process, over
   * the shared store, until the command ends (see flow/embedded-emulator.ts). Loaded only then.
   */
  private async withLocalEmulator(resolved: ResolvedProfile): Promise<ResolvedProfile> {
    if (resolved.profile.env !== 'local') return resolved
    const [{pointedAt}, emulator] = await Promise.all([import('../flow/embedded-emulator.js'), this.scope.ctx.emulator(resolved)])
    this.embeddedEmulators.push(emulator)
    return pointedAt(resolved, emulator)
  }
}
