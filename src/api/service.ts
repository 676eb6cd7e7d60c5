/**
 * The service's operations over the HTTP client: the five calls of the spec, with the right
 * address, credentials and headers for each. Knows nothing of oclif; the flow and smoke runner
 * use it as the commands do.
 */
import {API_PATHS, CARD_ID_KEYS, PROXY_KEY_HEADER, readId} from './contract.js'
import {type AnswerKind, answerIssues} from './answers.js'
import type {Card, CardRequest, CheckoutSuccess, Customer, CustomerRequest, Transaction, TransactionStartRequest} from './schemas.js'
import {InputError, ResponseError} from '../errors.js'
import {HttpClient, type HttpClientOptions, type HttpResponse, type HttpRequest, joinUrl} from './http-client.js'
import type {Profile} from './profile.js'
import {idShapeProblem, shownId} from './transaction-id.js'

/**
 * The last guard before an id becomes a path segment, for callers that did not check it (an id
 * taken from an answer or a scenario file): `..` would send the key to another path.
 */
function usableId(id: string): string {
  const problem = idShapeProblem(id)
  if (problem) throw new InputError(`"${shownId(id)}" is not a transaction id: ${problem}; nothing was sent.`, {flag: 'id'})
  return id
}

export interface ServiceTarget {
  /** Profile name, for messages. */
  profileName: string
  profile: Profile
}

/**
 * The answer's body when it has the fields paytx relies on (extra fields kept); otherwise a
 * ResponseError naming the first field that does not fit, so that a 200 of the wrong shape is
 * never shown as a success.
 */
function understood<T>(kind: AnswerKind, response: HttpResponse, request: {method: string; url: string}): T {
  const issues = answerIssues(kind, response.body)
  if (issues.length === 0) return response.body as T
  const [first] = issues
  const path = first.path === '(body)' ? `the body (a ${kind} object)` : first.path
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more: ${issues.slice(1, 4).map((issue) => issue.path).join(', ')})` : ''
  throw new ResponseError(
    `The service answered ${response.status} with a body paytx does not understand (${request.method} ${new URL(request.url).pathname}): ${path} ${first.message}${more}.`,
    request.method === 'POST' ? `The request did reach the service, so the ${kind} may have been created: check before sending it again.` : undefined,
    {kind: 'check-profile', concern: 'not-another-server'},
  )
}

/**
 * The service echoes the request's details in a transaction, and a CVV must never be shown or
 * stored: it is masked before any caller sees the object.
 */
function withoutCardCvv(transaction: Transaction): Transaction {
  const details = transaction.details
  if (!details || typeof details !== 'object' || details.card_cvv === undefined || details.card_cvv === '') return transaction
  return {...transaction, details: {...details, card_cvv: '***'}}
}

export class PaymentService {
  readonly http: HttpClient
  readonly target: ServiceTarget

  constructor(target: ServiceTarget, options: HttpClientOptions = {}) {
    this.target = target
    const {profile} = target
    this.http = new HttpClient({
      ...options,
      secretHeaderNames: [profile.api_key_header, ...(options.secretHeaderNames ?? [])],
      secrets: [profile.api_key, profile.proxy_key, ...(options.secrets ?? [])],
    })
  }

  /** Secrets learnt after construction (PAN, CVV), scrubbed from logs and errors from now on. */
  addSecrets(...values: (string | undefined)[]): void {
    this.http.addSecrets(...values)
  }

  close(): Promise<void> {
    return this.http.close()
  }

  /** Abandons requests still running, for a prompt exit on Ctrl-C. */
  destroy(): Promise<void> {
    return this.http.destroy()
  }

  private apiHeaders(): Record<string, string> {
    const {profile, profileName} = this.target
    if (!profile.api_key) {
      throw new InputError(`Profile "${profileName}" has no API key.`, {
        remedy: {kind: 'set-api-key', profile: profileName},
      })
    }
    return {[profile.api_key_header]: profile.api_key}
  }

  /** Sends the request and checks that the answer has what paytx relies on. */
  private async ask<T>(kind: AnswerKind, request: HttpRequest): Promise<T> {
    return understood<T>(kind, await this.http.request(request), request)
  }

  private apiUrl(path: string): string {
    return joinUrl(this.target.profile.base_url, path)
  }

  async createCustomer(body: CustomerRequest): Promise<Customer> {
    return this.ask<Customer>('customer', {method: 'POST', url: this.apiUrl(API_PATHS.customer), headers: this.apiHeaders(), body})
  }

  /** The card proxy needs its own address, id and key; an input error names what the profile lacks. */
  assertCardProxyConfigured(): void {
    const {profile, profileName} = this.target
    const missing = [
      profile.h2h_url ? undefined : ['h2h URL', '--h2h-url'],
      profile.proxy_id ? undefined : ['proxy id', '--proxy-id'],
      profile.proxy_key ? undefined : ['proxy key', '--proxy-key-stdin'],
    ].filter((entry): entry is string[] => entry !== undefined)
    if (missing.length > 0) {
      throw new InputError(`Profile "${profileName}" has no ${missing.map(([what]) => what).join(', ')} for the card proxy.`, {
        remedy: {kind: 'set-profile-values', profile: profileName, flags: missing.map(([, flag]) => flag), variable: profile.proxy_key ? undefined : 'PAYTX_PROXY_KEY'},
      })
    }
  }

  /**
   * Where a request of any shape (`paytx api`) goes and the credentials it carries: the API with
   * the profile's key, or the card proxy (h2h) with `TX-Proxy-Key` and never the API key.
   */
  endpointFor(target: 'api' | 'h2h'): {baseUrl: string; headers: Record<string, string>} {
    if (target === 'api') return {baseUrl: this.target.profile.base_url, headers: this.apiHeaders()}
    this.assertCardProxyConfigured()
    const {profile} = this.target
    return {baseUrl: profile.h2h_url!, headers: {[PROXY_KEY_HEADER]: profile.proxy_key!}}
  }

  /**
   * Sends a card to the tokenization proxy: `TX-Proxy-Key` only, never the API key. The proxy's
   * answer is not specified, so it is returned as it came; `cardId` finds its id.
   */
  async tokenizeCard(body: CardRequest): Promise<Card> {
    this.assertCardProxyConfigured()
    const {profile} = this.target
    const url = joinUrl(profile.h2h_url!, API_PATHS.tokenize(profile.proxy_id!))
    return this.ask<Card>('card', {method: 'POST', url, headers: {[PROXY_KEY_HEADER]: profile.proxy_key!}, body})
  }

  async startTransaction(body: TransactionStartRequest): Promise<Transaction> {
    return withoutCardCvv(await this.ask<Transaction>('transaction', {method: 'POST', url: this.apiUrl(API_PATHS.transactionStart), headers: this.apiHeaders(), body}))
  }

  async getTransaction(id: string): Promise<Transaction> {
    const url = this.apiUrl(API_PATHS.transaction(usableId(id)))
    return withoutCardCvv(await this.ask<Transaction>('transaction', {method: 'GET', url, headers: this.apiHeaders()}))
  }

  async checkoutSuccess(id: string): Promise<CheckoutSuccess> {
    return this.ask<CheckoutSuccess>('checkoutsuccess', {method: 'GET', url: this.apiUrl(API_PATHS.checkoutSuccess(usableId(id))), headers: this.apiHeaders()})
  }
}

export function cardId(card: Card): string | undefined {
  return readId(card, CARD_ID_KEYS)
}
