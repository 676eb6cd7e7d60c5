/**
 * The emulator's programmatic entry point: start it, read its addresses and keys, close it.
 * Kept light (types and a lazy import) so that importing it costs nothing until it starts.
 */
import type {Clock} from './clock.js'
import type {EmulatorEvent} from './events.js'

export type {Clock} from './clock.js'
export type {EmulatorEvent} from './events.js'

export interface EmulatorOptions {
  /** Address to listen on; default 127.0.0.1. */
  host?: string
  /** Default 4010; 0 picks a free port. */
  port?: number
  apiKey?: string
  proxyKey?: string
  proxyId?: string
  /** Header that carries the API key; default X-APIKEY. */
  apiKeyHeader?: string
  paymentProfileId?: string
  organisation?: string
  /** The default payment profile's webhook_transaction_update. */
  webhookUrl?: string
  settleAfterMs?: number
  pendingForMs?: number
  abandonAfterMs?: number
  /** Delivery attempts per webhook, the first included; default 5. */
  webhookAttempts?: number
  /** Wait before the first retry, doubled for each further one; default 500 ms. */
  webhookBackoffMs?: number
  /** Time allowed for one webhook delivery attempt; default 10 s. */
  webhookTimeoutMs?: number
  /** Keep the state in this file, so that it survives restarts. */
  stateFile?: string
  /** Largest request body accepted; default 64 KiB. */
  maxBodyBytes?: number
  /** One line per request and per webhook delivery attempt; never a key, PAN or CVV. */
  log?: (line: string) => void
  /** The same events as structured values (for NDJSON output). */
  onEvent?: (event: EmulatorEvent) => void
  /** Injected time for tests: now and timers. */
  clock?: Clock
}

export interface RunningEmulator {
  /** API base, e.g. http://127.0.0.1:4010 (paths carry /v1). */
  url: string
  /** Card proxy base: url + /h2h. */
  proxyUrl: string
  host: string
  port: number
  apiKey: string
  apiKeyHeader: string
  proxyKey: string
  proxyId: string
  paymentProfileId: string
  organisation: string
  /** Stops timers, webhook retries and the server; saves the state when there is a state file. */
  close(): Promise<void>
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const {startEmulatorServer} = await import('./server.js')
  return startEmulatorServer(options)
}
