/**
 * The client side of the emulator's admin routes (`paytx emulator trigger|resend`): over the
 * service client of a `local` profile, so it reaches whichever emulator that profile uses (one
 * already running, or the one the command runs over the shared store). Refused moves and unknown
 * transactions become input errors (exit 2): nothing was changed.
 */
import {joinUrl} from '../../api/http-client.js'
import type {PaymentService} from '../../api/service.js'
import {InputError, ResponseError, ServiceError} from '../../errors.js'
import {idShapeProblem, shownId} from '../../input/transaction-ids.js'
import type {ResolvedProfile} from '../../profiles/resolve.js'
import {redactUrl} from '../../secrets/redact-url.js'
import type {WebhookDelivery} from '../store/index.js'
import type {ResendRequest, TriggerRequest, TriggerResult} from './trigger.js'

/** Trigger and resend drive the emulator; a real service has no such thing. */
export function requireLocalProfile({name, profile}: ResolvedProfile, command: string): void {
  if (profile.env === 'local') return
  throw new InputError(`\`emulator ${command}\` drives the emulator, but profile "${name}" is a ${profile.env} profile; nothing was sent.`, {
    flag: '--profile',
    hint: 'Use a local profile (the built-in "local", or --profile <a profile with --env local>).',
  })
}

const NOT_AN_EMULATOR = "The profile's address does not look like a paytx emulator."

/** How often the delivery log is read while waiting for an attempt. */
const POLL_MS = 100

export class EmulatorAdminClient {
  constructor(
    private readonly service: PaymentService,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async trigger(id: string, request: TriggerRequest): Promise<Omit<TriggerResult, 'transaction'> & {transaction: Record<string, unknown>}> {
    return this.post(`/_emulator/transactions/${encodeURIComponent(id)}/trigger`, id, request)
  }

  async resend(id: string, request: ResendRequest): Promise<{deliveries: WebhookDelivery[]}> {
    return this.post(`/_emulator/transactions/${encodeURIComponent(id)}/resend`, id, request)
  }

  /**
   * The given deliveries once each has had its first attempt (or `timeoutMs` has passed), as the
   * emulator's delivery log shows them.
   */
  async firstAttempts(transactionId: string, deliveryIds: readonly string[], timeoutMs: number): Promise<WebhookDelivery[]> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const response = await this.service.http.request<{deliveries: WebhookDelivery[]}>({
        method: 'GET',
        url: this.url(`/_emulator/webhooks?transaction=${encodeURIComponent(transactionId)}`),
      })
      const wanted = response.body.deliveries.filter((delivery) => deliveryIds.includes(delivery.id))
      const attempted = wanted.length === deliveryIds.length && wanted.every((delivery) => delivery.attempts.length > 0)
      if (attempted || Date.now() >= deadline) return wanted
      await this.sleep(POLL_MS)
    }
  }

  private url(path: string): string {
    return joinUrl(new URL(this.service.target.profile.base_url).origin, path)
  }

  private async post<T>(path: string, id: string, body: TriggerRequest | ResendRequest): Promise<T> {
    // `..` would leave the transaction's path with the key: refused before anything is sent.
    const problem = idShapeProblem(id)
    if (problem) throw new InputError(`"${shownId(id)}" is not a transaction id: ${problem}; nothing was sent.`, {flag: 'id'})
    const {profile, profileName} = this.service.target
    if (!profile.api_key) throw new InputError(`Profile "${profileName}" has no API key.`, {remedy: {kind: 'set-api-key', profile: profileName}})
    try {
      const response = await this.service.http.request<T>({method: 'POST', url: this.url(path), headers: {[profile.api_key_header]: profile.api_key}, body})
      if (!response.body || typeof response.body !== 'object' || !Array.isArray((response.body as {deliveries?: unknown}).deliveries)) {
        throw new ResponseError(`${this.url(path)} answered ${response.status} without an emulator's result.`, NOT_AN_EMULATOR, {kind: 'start-emulator', situation: 'not-an-emulator'})
      }
      return response.body
    } catch (error) {
      // The emulator names the id it does not know; any other 404 is a server that is not one.
      if (error instanceof ServiceError && error.status === 404 && error.details?.['params.transaction_id'] !== undefined) {
        throw new InputError(`No transaction has the id ${JSON.stringify(id)} in the emulator at ${redactUrl(this.url(''), {asWritten: true})}; nothing was changed.`, {
          remedy: {kind: 'check-transaction-id'},
        })
      }
      if (error instanceof ServiceError && error.status === 409) {
        const problem = error.details?.['body.status'] ?? error.details?.['body.to']
        throw new InputError(`${typeof problem === 'string' ? problem : (error.serviceMessage ?? error.message)} Nothing was changed.`, {
          flag: 'force' in body ? '--force' : '--to',
          hint: 'force' in body ? 'Pass --force to make a move the state table does not allow.' : 'Pass --to <url> to send it to an address of your choice.',
        })
      }
      if (error instanceof ServiceError && error.status === 404) {
        error.hint = NOT_AN_EMULATOR
        error.remedies.splice(0, error.remedies.length, {kind: 'start-emulator', situation: 'not-an-emulator'})
      }
      throw error
    }
  }
}
