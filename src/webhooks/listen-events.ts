/**
 * What `webhook listen` reports while it runs, as data: the core (listen.ts) emits these and
 * never formats text; output/webhook-listen.ts draws them as lines for people or NDJSON.
 */
import type {Rejection, WebhookCounts, WebhookReport} from './listener.js'

/** Ctrl-C or SIGTERM, or the reader of stdout went away (a closed pipe). */
export type StopReason = 'signal' | 'stdout closed'

export type ListenEvent =
  /** Listening: the address to give the service, and what each webhook goes through. */
  | {
      kind: 'ready'
      url: string
      host: string
      port: number
      /** The path a tunnel's address must end with. */
      path: string
      tokenRequired: boolean
      save?: string
      /** --fetch: the profile each transaction is read from. */
      fetchProfile?: string
      forwardTo?: string
      /** With a tunnel: the public address (path and key included) and the program serving it. */
      publicUrl?: string
      tunnel?: string
    }
  /** Listening on an address other machines can reach. */
  | {kind: 'exposed'; host: string; port: number; tokenRequired: boolean}
  /** --no-token: any path is accepted. */
  | {kind: 'tokenless'; port: number}
  /** --token shorter than `minimum` characters: guessable. */
  | {kind: 'weak-token'; length: number; minimum: number}
  | {kind: 'webhook'; report: WebhookReport}
  /** The first webhook that names no status, without --fetch to read it. */
  | {kind: 'status-missing'}
  | {kind: 'rejected'; rejection: Rejection}
  /** The save file could not be written; the sender was answered `status` (503 with Retry-After on a full disk, else 500) so it retries. */
  | {kind: 'record-failed'; file: string; message: string; status: number; diskFull: boolean}
  | {kind: 'stopped'; counts: WebhookCounts; reason: StopReason; save?: string}
