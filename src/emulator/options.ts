/**
 * What an emulator is started with, and what a running one offers. A module of types and
 * defaults only, shared by the entry point (`index.ts`) and the server's wiring: the top of the
 * house, so no room imports it (a type several rooms share lives in the lowest of them).
 */
import type {OwnerGone} from '../process/owner.js'
import type {AnswerExtra} from './api/index.js'
import type {AssumptionSettings} from './assumptions.js'
import type {Clock} from './time/index.js'
import type {EmulatorEvent} from './events.js'
import type {FaultRule} from './faults/index.js'
import type {PaymentProfileSetting} from './store/index.js'

/** Kept here too, where the emulator's other options are, for code that imported it from this file. */
export type {PaymentProfileSetting} from './store/index.js'

/** Largest request body the emulator reads (JSON or the approval form). */
export const MAX_REQUEST_BODY_BYTES = 64 * 1024
export const DEFAULT_WEBHOOK_ATTEMPTS = 5
export const DEFAULT_WEBHOOK_BACKOFF_MS = 500
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000

export interface EmulatorOptions {
  /** Address to listen on; default 127.0.0.1. */
  host?: string
  /**
   * The address it is reached at from elsewhere (a compose service name, a port mapping), e.g.
   * http://paytx:4010: approval_url and the pages use it, and a request naming its host is
   * answered as one naming the emulator's own.
   */
  publicUrl?: string
  /** Default 4010; 0 picks a free port. */
  port?: number
  apiKey?: string
  proxyKey?: string
  proxyId?: string
  /** Header that carries the API key; default X-APIKEY. */
  apiKeyHeader?: string
  /** The default payment profile: used when a transaction names none. */
  paymentProfileId?: string
  /** The default organisation, which owns the default payment profile. */
  organisation?: string
  /** The default payment profile's webhook_transaction_update. */
  webhookUrl?: string
  /** More organisations the store accepts (kept in the store). */
  organisations?: string[]
  /** More payment profiles, of the first organisation given (else the default one). */
  paymentProfiles?: PaymentProfileSetting[]
  settleAfterMs?: number
  pendingForMs?: number
  abandonAfterMs?: number
  /** Delivery attempts per webhook, the first included; default 5. */
  webhookAttempts?: number
  /** Wait before the first retry, doubled for each further one; default 500 ms. */
  webhookBackoffMs?: number
  /** Time allowed for one webhook delivery attempt; default 10 s. */
  webhookTimeoutMs?: number
  /** Readings of what the spec leaves open (assumptions.ts); each defaults to the narrowest. */
  assumptions?: Partial<AssumptionSettings>
  /**
   * Fields added to the answers of API requests beyond the emulator's own (the fields only the
   * real service sent, from readings of `emulator verify --save`); none by default.
   */
  answerExtras?: readonly AnswerExtra[]
  /** The SQLite store: a file shared with every emulator that opens it, or `:memory:` (the default here). */
  store?: string
  /**
   * `service` for `paytx emulator start`, `command` for one a command runs for its own lifetime
   * (reported by the health endpoint, so that other commands do not rely on it staying up).
   */
  lifetime?: 'service' | 'command'
  /** Largest request body accepted; default MAX_REQUEST_BODY_BYTES. */
  maxBodyBytes?: number
  /** Fault rules to start with, and the seed of their probabilities (random when not given). */
  faults?: {rules: FaultRule[]; seed?: number}
  /** One line per request and per webhook delivery attempt; never a key, PAN or CVV. */
  log?: (line: string) => void
  /** The same events as structured values (for NDJSON output). */
  onEvent?: (event: EmulatorEvent) => void
  /**
   * What goes wrong beside the requests (a full disk, due work that failed, an address a webhook
   * cannot reach): for people, on stderr, apart from the request log. Without it, such lines go to `log`.
   */
  onWarning?: (line: string) => void
  /** Injected time for tests: now and timers. */
  clock?: Clock
}

export interface RunningEmulator {
  /** API base, e.g. http://127.0.0.1:4010 (paths carry /v1). */
  url: string
  /** The address given as publicUrl, when one was: where approval_url points. */
  publicUrl?: string
  /** Card proxy base: url + /h2h. */
  proxyUrl: string
  /** The dashboard: recent transactions, timelines, webhook deliveries, trigger and resend. */
  dashboardUrl: string
  host: string
  port: number
  apiKey: string
  apiKeyHeader: string
  proxyKey: string
  proxyId: string
  paymentProfileId: string
  organisation: string
  /** The store's file, or `:memory:`. */
  store: string
  /** The readings of what the spec leaves open that this emulator runs with. */
  assumptions: AssumptionSettings
  /** The seed of the fault rules' probabilities. */
  faultSeed: number
  /** Stops the scheduler, lets webhook attempts under way finish briefly, stops the server, closes the store. */
  close(): Promise<void>
}

/** What `emulator start` reports from listening to stopped, as data; src/output/ draws it. */
export type EmulatorRunEvent =
  | {kind: 'listening'; emulator: RunningEmulator; options: EmulatorOptions}
  /** A request, a status change, a webhook attempt or a fault, as it happens. */
  | {kind: 'activity'; event: EmulatorEvent}
  | {kind: 'warning'; line: string}
  /** Stopped by a signal, or because the program that started it is gone (process/owner.ts). */
  | {kind: 'stopped'; signal?: string; ownerGone?: OwnerGone; store: string}
