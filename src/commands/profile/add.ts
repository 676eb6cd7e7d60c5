import {resolve as resolvePath} from 'node:path'

import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {DEFAULT_API_KEY_HEADER} from '../../api/contract.js'
import {loadReadingsFile} from '../../emulator-readings/readings.js'
import {InputError} from '../../errors.js'
import {BaseCommand} from '../../cli/base-command.js'
import {type ProfileView, profileView, renderProfile} from '../../output/profile.js'
import {lineWidth} from '../../output/wrap.js'
import {applyProfileChanges, checkProfileName, checkProfileUrls, environmentFromName} from '../../profiles/edit.js'
import {ENVIRONMENTS, ENVIRONMENT_PRESETS, type Environment, type Profile} from '../../profiles/presets.js'
import {KEY_NAMES, hasStoredKey} from '../../profiles/key-fields.js'
import type {KeyPlacement} from '../../profiles/key-storage.js'
import {describeProductionAddress, productionAddressPhrase, productionReason} from '../../profiles/production.js'
import {envOverrides} from '../../profiles/resolve.js'
import {productionAddressShown} from '../../terminal/production-banner.js'

export type ProfileAddResult = ProfileView & {path: string}

export default class ProfileAdd extends BaseCommand<typeof ProfileAdd, ProfileAddResult> {
  static override summary = 'Add a profile, or change an existing one (only the values given change).'
  static override description = `--env fills the known addresses of the environment (base URL and card proxy URL):
  local       ${ENVIRONMENT_PRESETS.local.base_url}  (the emulator; ids and keys filled too)
  sandbox     ${ENVIRONMENT_PRESETS.sandbox.base_url}  ${ENVIRONMENT_PRESETS.sandbox.h2h_url}
  production  ${ENVIRONMENT_PRESETS.production.base_url}  ${ENVIRONMENT_PRESETS.production.h2h_url}
A profile named sandbox, production or local gets that environment without --env.
Production is decided by address: a profile labelled sandbox or local whose base URL or card
proxy URL is a production host is treated as production by every command; profile add says so
and asks in a terminal, and refuses without one (use --env production, or the sandbox's addresses).

Keys never go on the command line: in a terminal they are asked with hidden prompts (when the
profile has none yet, or when --api-key-stdin / --proxy-key-stdin is given); otherwise
--api-key-stdin and --proxy-key-stdin read them from stdin, one per line, API key first when
both are given.

Keys are stored in the OS keychain (service "paytx"); profiles.json then names the entry. When
no keychain can be used (none running, no answer within 3 s, an error) they stay in the profile
file (0600) with a notice; --insecure-storage keeps them there on purpose. Keys an older paytx
left in the file move to the keychain when the profile is written again.`

  static override examples = [
    'printf \'%s\\n\' "$SANDBOX_KEY" | <%= config.bin %> profile add sandbox --api-key-stdin --organisation 0a0f2c55-6c8e-4c51-9b0e-3e7a1d000001 --payment-profile 7d3c2a10-5b1e-4f6a-8c2d-9e0b4d000001',
    'printf \'%s\\n%s\\n\' "$API_KEY" "$PROXY_KEY" | <%= config.bin %> profile add prod --env production --proxy-id 1234567890123456 --api-key-stdin --proxy-key-stdin --use',
    '<%= config.bin %> profile add staging --env sandbox --base-url https://staging.example.com/v1',
  ]

  static override args = {
    name: Args.string({description: 'Profile name (letters, digits, "_", "." and "-")', required: true}),
  }

  static override flags = {
    env: Flags.string({summary: 'Environment; fills its known addresses.', options: [...ENVIRONMENTS]}),
    'base-url': Flags.string({summary: 'Base URL of the service, with or without /v1.'}),
    'h2h-url': Flags.string({summary: 'Base URL of the card tokenization proxy.'}),
    'proxy-id': Flags.string({summary: 'PROXY_ID of the card proxy path.'}),
    organisation: Flags.string({summary: 'Organisation UUID used by default.'}),
    'payment-profile': Flags.string({summary: 'Payment profile UUID used by default.'}),
    'api-key-header': Flags.string({summary: `Header that carries the API key (default ${DEFAULT_API_KEY_HEADER}).`}),
    'emulator-readings': Flags.string({summary: 'For a local profile: its embedded emulator answers with these readings (a file of emulator verify --save).'}),
    'api-key-stdin': Flags.boolean({summary: 'Read the API key from stdin (hidden prompt in a terminal).', default: false}),
    'proxy-key-stdin': Flags.boolean({
      summary: 'Read the card proxy key from stdin (the line after the API key when both are read).',
      default: false,
    }),
    use: Flags.boolean({summary: 'Make it the active profile.', default: false}),
    'insecure-storage': Flags.boolean({
      summary: 'Keep the keys in the profile file (0600) instead of the OS keychain.',
      default: false,
    }),
  }

  public async run(): Promise<ProfileAddResult> {
    const {flags} = this
    const store = this.profileStore()
    const before = store.get(this.args.name)
    const {name, environment, changes} = toProfileAddOptions(flags, this.args, {existing: before, interactive: this.interactive()})
    const env = environment ?? (await this.askEnvironment(name))
    await this.confirmLabelAgainstAddresses(name, applyProfileChanges(before, env, changes))

    const keys = await this.keys(before)
    this.addSecrets(...Object.values(keys))
    const {placeKeys} = await import('../../profiles/key-storage.js')
    // Applied to the profile as stored when the lock is held, so a concurrent change is kept and
    // two writers never split the profile's keychain entries.
    let wasStored = false
    let placement!: KeyPlacement
    const data = await store.update(async (next) => {
      wasStored = Object.hasOwn(next.profiles, name)
      const profile = applyProfileChanges(store.get(name, next), env, changes)
      placement = await placeKeys(profile, keys, {profileName: name, insecure: flags['insecure-storage'], keychain: this.ctx.keychain})
      next.profiles[name] = profile
      if (flags.use) next.active = name
    })
    const profile = data.profiles[name]
    const active = store.activeName(data) === name
    this.note(`${wasStored ? 'Updated' : 'Added'} profile "${name}" in ${store.path}.`)
    await this.reportKeyPlacement(name, placement, store.path)
    if (!hasStoredKey(profile, 'api_key')) this.warnUser(`profile "${name}" has no API key; add it with --api-key-stdin (or set PAYTX_API_KEY).`)
    if (!active) this.note(`Use it with --profile ${name}, or make it the default with \`${this.commandLine(`profile use ${name}`)}\`.`)

    // Shown with the keys given now; keys stored earlier in the keychain are not read back for this.
    const givenKeys = Object.fromEntries(Object.entries(keys).filter(([, value]) => value))
    const view = profileView(name, {...profile, ...givenKeys}, {active, builtin: false, envOverrides: envOverrides(this.ctx.env), stored: profile})
    this.print(renderProfile(view, {width: lineWidth(this.ctx.io.stdout)}))
    return {...view, path: store.path}
  }

  /**
   * Production is decided by address (profiles/production.ts): a profile labelled sandbox or local
   * whose service or card proxy address is a production host would be treated as production by
   * every command. Said before anything is asked or stored; asked on a terminal, refused otherwise.
   */
  private async confirmLabelAgainstAddresses(name: string, profile: Profile): Promise<void> {
    const reason = productionReason(profile)
    if (reason?.by !== 'address') return
    const shown = productionAddressShown({name, profile, production: reason})
    const why = describeProductionAddress(reason, shown)
    await this.confirmOrRefuse({
      yes: false,
      refusal: `Profile "${name}" would be labelled ${reason.label}, but ${productionAddressPhrase(reason, shown)}: every command would treat it as production.`,
      question: `Profile "${name}": ${why}. Every command will treat it as production (PRODUCTION line, confirmation before writes). Save it anyway?`,
      cancelled: `Cancelled; profile "${name}" was not changed.`,
      hint: `Label it production (--env production), or give the ${reason.label === 'local' ? 'emulator' : 'sandbox'} addresses (--base-url, --h2h-url).`,
    })
  }

  private async askEnvironment(name: string): Promise<Environment> {
    return this.prompter().choose(`Environment of profile "${name}"`, ENVIRONMENTS)
  }

  /**
   * One line each for what a user must know: keys that changed place, and keys that went to the
   * file because the keychain could not take them. Entries left behind are deleted now that the
   * profile file no longer points at them.
   */
  private async reportKeyPlacement(name: string, placement: KeyPlacement, path: string): Promise<void> {
    const names = (keys: KeyPlacement['placed']) => keys.map(({field}) => KEY_NAMES[field]).join(' and ')
    const toKeychain = placement.placed.filter((key) => key.moved && key.location === 'keychain')
    const toFile = placement.placed.filter((key) => key.moved && key.location === 'file')
    const fellBack = placement.placed.filter((key) => key.fallback)
    if (toKeychain.length > 0) this.note(`Moved the ${names(toKeychain)} of profile "${name}" from the profile file to the keychain.`)
    if (toFile.length > 0) this.note(`Moved the ${names(toFile)} of profile "${name}" from the keychain to ${path} (--insecure-storage).`)
    if (fellBack.length > 0) {
      this.note(
        `The keychain is not available (${placement.keychainProblem}); the ${names(fellBack)} of profile "${name}" ${fellBack.length > 1 ? 'are' : 'is'} kept in ${path}, readable by you alone. Pass --insecure-storage to choose the file on purpose.`,
      )
    }
    if (placement.staleAccounts.length === 0) return
    const {deleteKeychainEntries, describeLeftoverEntry} = await import('../../profiles/key-storage.js')
    for (const failure of await deleteKeychainEntries(placement.staleAccounts, this.ctx.keychain)) this.note(describeLeftoverEntry(failure))
  }

  /** Keys from stdin, or hidden prompts in a terminal; never from the command line. */
  private async keys(existing: Profile | undefined): Promise<Pick<Profile, 'api_key' | 'proxy_key'>> {
    const {flags} = this
    const wanted = [
      ...(flags['api-key-stdin'] ? (['--api-key-stdin'] as const) : []),
      ...(flags['proxy-key-stdin'] ? (['--proxy-key-stdin'] as const) : []),
    ]
    const keys: Pick<Profile, 'api_key' | 'proxy_key'> = {}
    if (this.interactive()) {
      const {askSecret} = this.prompter()
      const askApi = flags['api-key-stdin'] || !hasStoredKey(existing, 'api_key')
      const askProxy = flags['proxy-key-stdin'] || !hasStoredKey(existing, 'proxy_key')
      if (askApi) keys.api_key = (await askSecret(`API key${flags['api-key-stdin'] ? '' : ' (empty to skip)'}`)).trim() || undefined
      if (askProxy) keys.proxy_key = (await askSecret(`Card proxy key (TX-Proxy-Key)${flags['proxy-key-stdin'] ? '' : ' (empty to skip)'}`)).trim() || undefined
      return keys
    }
    if (wanted.length === 0) return keys
    if (this.ctx.io.stdin.isTTY) {
      throw new InputError(`${wanted.join(' and ')} read from stdin, but stdin is a terminal and prompting is off (--no-input).`, {flag: wanted[0]})
    }
    const {readStdinValues} = await import('../../input/stdin.js')
    const values = await readStdinValues(wanted, this.ctx.io.stdin)
    wanted.forEach((flag, index) => {
      if (flag === '--api-key-stdin') keys.api_key = values[index]
      else keys.proxy_key = values[index]
    })
    this.addSecrets(...values)
    return keys
  }
}

export type ProfileAddFlags = Interfaces.InferredFlags<typeof ProfileAdd.flags>

export interface ProfileAddOptions {
  name: string
  /** Undefined only when a person at the terminal is to be asked. */
  environment: Environment | undefined
  /** The values given; only these change in a stored profile. */
  changes: Partial<Profile>
}

/**
 * The flags of `profile add` as the change to make: the name and addresses checked, the
 * environment from --env, the stored profile or the name; an InputError (exit 2) names the flag.
 */
export function toProfileAddOptions(
  flags: ProfileAddFlags,
  args: {name: string},
  env: {existing: Profile | undefined; interactive: boolean},
): ProfileAddOptions {
  checkProfileName(args.name)
  const changes: Partial<Profile> = {
    base_url: flags['base-url'],
    h2h_url: flags['h2h-url'],
    proxy_id: flags['proxy-id'],
    organisation: flags.organisation,
    payment_profile: flags['payment-profile'],
    api_key_header: flags['api-key-header'],
    emulator_readings: readingsPath(flags['emulator-readings']),
  }
  checkProfileUrls(changes)
  const environment = (flags.env as Environment | undefined) ?? env.existing?.env ?? environmentFromName(args.name)
  if (!environment && !env.interactive) {
    throw new InputError(`--env is required for a new profile (${ENVIRONMENTS.join(', ')}).`, {flag: '--env'})
  }
  return {name: args.name, environment, changes}
}

/** --emulator-readings as an absolute path, once the file is known to be a readings file (InputError otherwise). */
function readingsPath(file: string | undefined): string | undefined {
  if (file === undefined) return undefined
  loadReadingsFile(file, '--emulator-readings')
  return resolvePath(file)
}
