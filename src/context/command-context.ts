/**
 * What a command touches of the world, in one object (gh's cmdutil.Factory): its streams, the
 * environment, time, the name it was run by, the profile store, the service client factory, the
 * browser, the local emulator and the keychain. The base command builds the real one lazily
 * (context/process-context.ts); tests pass one with fakes (test/helpers/run-command.ts), so a
 * command runs in-process exactly as it would when spawned.
 */
import type {HttpClientOptions} from '../api/http-client.js'
import type {PaymentService} from '../api/service.js'
import type {EmbeddedEmulator} from '../flow/embedded-emulator.js'
import type {Timer} from '../flow/timer.js'
import type {KeyStorage} from '../profiles/key-storage.js'
import type {ResolvedProfile} from '../profiles/resolve.js'
import type {ProfileStore, ProfileStoreOptions} from '../profiles/store.js'
import type {BrowserOpenResult} from '../terminal/browser.js'
import type {Prompter} from '../terminal/prompts.js'

export type {KeyStorage} from '../profiles/key-storage.js'

/** A stream that may be a terminal: only then does a command prompt, spin or size a table to it. */
export interface TerminalInput extends NodeJS.ReadableStream {
  isTTY?: boolean
}

export interface TerminalOutput extends NodeJS.WritableStream {
  isTTY?: boolean
  columns?: number
}

export interface CommandIO {
  stdin: TerminalInput
  /** Data: the result, and nothing else. */
  stdout: TerminalOutput
  /** Everything else: notes, hints, progress, errors. */
  stderr: TerminalOutput
}

/** Opens an address in the person's browser; a failure is reported, never thrown. */
export type BrowserOpener = (url: string) => Promise<BrowserOpenResult>

/** Starts an emulator in this process for a `local` profile that has none to rely on. */
/** How a command wants the emulator it may start: `store` is its store file, or `:memory:` (default: the shared store of the data folder). */
export interface EmulatorLaunchOptions {
  store?: string
}

export type EmulatorLauncher = (profile: ResolvedProfile, options?: EmulatorLaunchOptions) => Promise<EmbeddedEmulator>

/** How the service client of one run talks: timeouts, size caps, logging, shared request gates. */
export type ServiceSettings = Omit<HttpClientOptions, 'maxTries'>

export interface CommandContext {
  io: CommandIO
  env: NodeJS.ProcessEnv
  /** Now, and pauses that an abort cuts short. */
  clock: Timer
  /** How the user ran paytx (`paytx`, `npx paytx`, `./bin/run.js`), for hints that name a command. */
  invokedAs: string
  /** The folder of profiles.json (PAYTX_CONFIG_DIR moves it). */
  configDir: string
  /** The exit code of the run; the last one set wins. */
  setExitCode(code: number): void
  profiles(options?: ProfileStoreOptions): ProfileStore
  /** A client of the payment service for a profile (its keys already read). */
  service(profile: ResolvedProfile, settings: ServiceSettings): Promise<PaymentService>
  browser: BrowserOpener
  emulator: EmulatorLauncher
  /** The OS keychain, where profiles keep their keys. */
  keychain: KeyStorage
  /** How a person is asked (terminal/prompts.ts); unset: inquirer's prompts on io's stdin and stderr. */
  prompter?: Prompter
}
