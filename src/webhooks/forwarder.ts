/**
 * `--forward-to`: passes a received webhook on to the merchant's own endpoint, raw body and
 * headers as they came (minus hop-by-hop headers), exactly once: a forward is a POST that may
 * have reached the endpoint, so it is never retried. Failures become a result, never a throw.
 */
import {Connections, OUTGOING_ERROR} from '../http/outgoing.js'
import {redactUrl} from '../secrets/redact-url.js'

export interface ForwardResult {
  /** The address as shown: its password, query values and token-like segments redacted. */
  url: string
  /** The endpoint's HTTP status, when it answered. */
  status?: number
  /** Why the forward failed (refused, timed out, ...), when it did. */
  error?: string
  duration_ms: number
}

/** Headers that describe one connection and must not travel to the next hop (RFC 9110 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  // Set by the client for the new connection and body.
  'host',
  'content-length',
  'expect',
])

/** The request's headers to pass on, in their original case and order, minus hop-by-hop ones. */
export function forwardableHeaders(rawHeaders: readonly string[]): string[] {
  const named = new Set(HOP_BY_HOP)
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() === 'connection') {
      for (const token of rawHeaders[i + 1].split(',')) named.add(token.trim().toLowerCase())
    }
  }
  const out: string[] = []
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (!named.has(rawHeaders[i].toLowerCase())) out.push(rawHeaders[i], rawHeaders[i + 1])
  }
  return out
}

function describeFailure(error: unknown): string {
  const code = (error as {code?: string}).code ?? (error as {cause?: {code?: string}}).cause?.code
  const message = error instanceof Error ? error.message : String(error)
  if (code === 'ECONNREFUSED') return 'connection refused (is the endpoint running?)'
  if (code === OUTGOING_ERROR.connectTimeout || code === 'ABORT_ERR' || (error as Error)?.name === 'TimeoutError') return 'timed out'
  if (code === OUTGOING_ERROR.destroyed) return 'interrupted'
  return code ? `${message} (${code})` : message
}

export class WebhookForwarder {
  private readonly connections: Connections
  private stopping = false
  /** The address as every message and result shows it. */
  readonly shownUrl: string

  constructor(
    readonly url: string,
    private readonly timeoutMs: number,
  ) {
    this.connections = new Connections({connectTimeoutMs: timeoutMs})
    this.shownUrl = redactUrl(url)
  }

  async forward(rawBody: Buffer, rawHeaders: readonly string[]): Promise<ForwardResult> {
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    try {
      // The whole exchange, answer included, within the timeout.
      const signal = AbortSignal.timeout(this.timeoutMs)
      const response = await this.connections.send({url: this.url, method: 'POST', headers: forwardableHeaders(rawHeaders), body: rawBody, signal})
      for await (const _chunk of response.body) {
        // The endpoint's answer is not kept, only its status.
      }
      return {url: this.shownUrl, status: response.status, duration_ms: elapsed()}
    } catch (error) {
      return {url: this.shownUrl, error: this.stopping ? 'interrupted' : describeFailure(error), duration_ms: elapsed()}
    }
  }

  /** Stops at once: forwards still running fail as interrupted. */
  async destroy(): Promise<void> {
    this.stopping = true
    this.connections.destroy()
  }
}
