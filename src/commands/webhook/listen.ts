import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {EXIT, InputError} from '../../errors.js'
import {BaseCommand, EXIT_CODES_HELP} from '../../cli/base-command.js'
import {parseHttpUrl} from '../../http/url.js'
import {redactUrl} from '../../secrets/redact-url.js'
import {lineWidth} from '../../output/wrap.js'
import type {StopReason} from '../../webhooks/listen-events.js'
import type {WebhookListenOptions} from '../../webhooks/listen.js'
import {toTunnelRequest, tunnelFlags} from '../../cli/tunnel-flags.js'

export type {WebhookListenOptions} from '../../webhooks/listen.js'

const DEFAULT_PORT = 4020
const DEFAULT_MAX_BODY = '1mb'
/** The largest --max-body: a saved line of a body this size stays within what `webhook replay` reads. */
const MAX_MAX_BODY_BYTES = 32 * 1024 * 1024

const SIZE_UNITS: Record<string, number> = {'': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2}

/** `1048576`, `512kb`, `1mb` (binary units) into bytes. */
function parseByteSize(text: string): number | undefined {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(text.trim())
  const unit = match ? SIZE_UNITS[match[2].toLowerCase()] : undefined
  if (!match || unit === undefined) return undefined
  const bytes = Number(match[1]) * unit
  return bytes > 0 && Number.isSafeInteger(bytes) ? bytes : undefined
}

export default class WebhookListen extends BaseCommand<typeof WebhookListen, void> {
  protected override jsonLines = true

  static override summary = 'Receive transaction webhooks locally: print, save, re-fetch from the service, forward.'
  static override description = `Starts a receiver on 127.0.0.1 (port ${DEFAULT_PORT} unless --port; --port 0 picks a free one) at /webhooks?key=<token>. The token is generated for each run unless --token gives one, so that only whoever you gave the URL to can post; requests without it are answered 404 and counted; a --token shorter than 16 characters is warned about (it can be guessed). A request that a web page sent (an Origin of another site, Sec-Fetch-Site cross-site or same-site; with --no-token, also a Host that is not the listener's address) is answered 403: webhooks come from servers, which send neither. Give the printed URL to the service as webhook_transaction_update, on the payment profile (for the emulator: \`emulator start --webhook-url <url>\`) or in a transaction's start request. The emulator reaches 127.0.0.1 directly; the real service needs a public HTTPS address, so run a tunnel of your own to this port and give the service the tunnel's address with the same path and key (pass --token so that it stays the same between runs).

Each webhook is answered 200 at once and printed as one line: time, type, transaction id and status; with --json, one NDJSON object per webhook on stdout, after a "ready" object that says when to start sending and before a "stopped" object with the counts. Webhooks repeating a (transaction id, status) already seen are marked as duplicates. A body that is not JSON is answered 400 and still recorded and printed; a body over --max-body is answered 413; any method but POST 405.

--save appends every webhook (headers, with credentials redacted, and body) to a file as NDJSON before answering it, so a webhook acknowledged with 200 is in the file even after Ctrl-C. --fetch reads each transaction from the service with the profile's key and shows the status the service reports, the one to trust, beside the webhook's own when they differ. --forward-to passes each webhook on to your own endpoint (body and headers as received, once, never retried) and shows its answer.

Ctrl-C (or SIGTERM) stops it: the file is closed, the counts are shown on stderr, exit 130.

${EXIT_CODES_HELP}`

  static override examples = [
    '<%= config.bin %> webhook listen',
    '<%= config.bin %> webhook listen --port 0 --json --save webhooks.ndjson',
    '<%= config.bin %> webhook listen --fetch --forward-to http://localhost:3000/webhooks/payments',
    '<%= config.bin %> webhook listen --token my-long-random-token --host 0.0.0.0',
    '<%= config.bin %> webhook listen --tunnel cloudflared --fetch --profile sandbox',
  ]

  static override flags = {
    port: Flags.integer({
      summary: `Port to listen on (0: a free port).`,
      default: DEFAULT_PORT,
      min: 0,
      max: 65_535,
    }),
    host: Flags.string({
      summary: 'Address to listen on; anything but loopback exposes the listener to the network.',
      default: '127.0.0.1',
    }),
    token: Flags.string({
      summary: 'The secret the URL must carry as ?key= (default: a random one for this run); 16 characters or more.',
      exclusive: ['no-token'],
    }),
    'no-token': Flags.boolean({
      summary: 'Accept webhooks on any path, without a token.',
      default: false,
    }),
    save: Flags.string({
      summary: 'Append every webhook (headers and body) to this file as NDJSON.',
    }),
    fetch: Flags.boolean({
      summary: 'Read each transaction from the service and show the status it reports.',
      default: false,
    }),
    'forward-to': Flags.string({
      summary: 'Forward each webhook (raw body and headers) to this URL and show its answer.',
    }),
    'max-body': Flags.string({
      summary: 'Largest body accepted, e.g. 65536, 512kb, 1mb; larger ones get 413.',
      default: DEFAULT_MAX_BODY,
    }),
    ...tunnelFlags,
  }

  public async run(): Promise<void> {
    const {generateWebhookToken} = await import('../../webhooks/listener.js')
    const options = toWebhookListenOptions(this.flags, {newToken: generateWebhookToken})
    if (options.tunnel) options.tunnel.announce = (line) => this.note(line)
    const fetching = options.fetch ? {service: await this.fetchingService(), profile: this.profile().name} : undefined
    const [{listenForWebhooks}, {webhookListenRenderer}, {BatchedLineWriter}, {holdYoungGenerationAt}] = await Promise.all([
      import('../../webhooks/listen.js'),
      import('../../output/webhook-listen.js'),
      import('../../terminal/turn-batch.js'),
      import('../../process/small-heap.js'),
    ])
    // A listener may take webhooks for hours under load: its memory must not creep up with them (see small-heap.ts).
    holdYoungGenerationAt(8)
    const render = webhookListenRenderer({
      json: this.jsonEnabled(),
      stdout: new BatchedLineWriter(this.ctx.io.stdout),
      // Lines for people on stderr: the base command fits them to a terminal, as the webhook lines are.
      note: (text) => this.note(text),
      warn: (text) => this.warnUser(text),
      secrets: this.secrets,
      width: lineWidth(this.ctx.io.stdout),
    })
    const {reason} = await listenForWebhooks(options, {fetching, requestTimeoutMs: this.globals.requestTimeoutMs, onEvent: render, stopped: () => this.untilStopped(), signal: this.interruptSignal()})
    if (reason === 'signal') this.setOutcomeExitCode(EXIT.interrupted)
  }

  /** The service to re-fetch from, checked before anything listens: --fetch needs the profile's key. */
  private async fetchingService() {
    const {name, profile} = await this.profileWithKeys()
    if (!profile.api_key) {
      throw new InputError(`--fetch reads transactions from the service, but profile "${name}" has no API key.`, {
        flag: '--fetch',
        remedy: {kind: 'set-api-key', profile: name},
      })
    }
    return this.service()
  }

  /** Resolves on Ctrl-C or SIGTERM (a second one exits at once) or when stdout's reader goes away. */
  private untilStopped(): Promise<StopReason> {
    const interrupt = this.interruptSignal()
    return new Promise((resolve) => {
      interrupt.addEventListener('abort', () => resolve('signal'), {once: true})
      this.ctx.io.stdout.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE') throw error
        resolve('stdout closed')
      })
    })
  }
}

export type WebhookListenFlags = Interfaces.InferredFlags<typeof WebhookListen.flags>


/**
 * The flags of `webhook listen` as what to listen with; an InputError (exit 2) names a wrong
 * flag before anything listens. `env.newToken` makes the token of a run without --token.
 */
export function toWebhookListenOptions(flags: WebhookListenFlags, env: {newToken: () => string}): WebhookListenOptions {
  const maxBodyBytes = parseByteSize(flags['max-body'])
  if (maxBodyBytes === undefined) {
    throw new InputError(`--max-body must be a size in bytes such as 65536, 512kb or 1mb (got "${flags['max-body']}").`, {flag: '--max-body'})
  }
  // A body is held whole while it is recorded; a webhook is a few kilobytes.
  if (maxBodyBytes > MAX_MAX_BODY_BYTES) {
    throw new InputError(`--max-body can be at most 32mb, the largest body the listener holds (got "${flags['max-body']}").`, {flag: '--max-body'})
  }
  const forwardUrl = flags['forward-to'] === undefined ? undefined : parseHttpUrl(flags['forward-to'])
  if (flags['forward-to'] !== undefined && !forwardUrl) {
    throw new InputError(`--forward-to must be an absolute http(s) URL (got "${redactUrl(flags['forward-to'])}").`, {flag: '--forward-to'})
  }
  if (flags.token !== undefined && flags.token.length === 0) {
    throw new InputError('--token must not be empty; use --no-token to accept webhooks without one.', {flag: '--token'})
  }
  const tunnel = toTunnelRequest(flags)
  if (tunnel && flags['no-token']) {
    throw new InputError('--no-token with a tunnel would accept whatever anyone on the internet posts to the public address.', {flag: '--no-token', hint: 'Leave --no-token out: the public address then carries the token.'})
  }
  return {
    tunnel,
    host: flags.host,
    port: flags.port,
    token: flags['no-token'] ? undefined : (flags.token ?? env.newToken()),
    maxBodyBytes,
    forwardUrl,
    save: flags.save,
    fetch: flags.fetch,
  }
}
