import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {EXIT, InputError} from '../../errors.js'
import {BaseCommand, EXIT_CODES_HELP} from '../../base-command.js'
import {parseHttpUrl} from '../../http/url.js'
import {scrubSecrets} from '../../secrets/redact.js'
import type {ReadyLine} from '../../output/webhook.js'
import type {WebhookListener} from '../../webhooks/listener.js'
import {commandLine} from '../../terminal/invoked-name.js'
import {type TunnelRequest, toTunnelRequest, tunnelFlags} from '../../tunnel-flags.js'
import type {RunningTunnel, TunnelExit} from '../../tunnel/run-tunnel.js'

const DEFAULT_PORT = 4020
const DEFAULT_MAX_BODY = '1mb'
/** How long running re-fetches and forwards may finish after Ctrl-C. */
const STOP_GRACE_MS = 2000

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
  static override summary = 'Receive transaction webhooks locally: print, save, re-fetch from the service, forward.'
  static override description = `Starts a receiver on 127.0.0.1 (port ${DEFAULT_PORT} unless --port; --port 0 picks a free one) at /webhooks?key=<token>. The token is generated for each run unless --token gives one, so that only whoever you gave the URL to can post; requests without it are answered 404 and counted. Give the printed URL to the service as webhook_transaction_update, on the payment profile (for the emulator: \`emulator start --webhook-url <url>\`) or in a transaction's start request. The emulator reaches 127.0.0.1 directly; the real service needs a public HTTPS address: --tunnel cloudflared (a quick tunnel, no account needed) or --tunnel ngrok (your own authtoken) starts that program to this port, prints the public address with the path and key, and stops it when listening ends; --tunnel-command '<command with {port}>' runs any other tool and takes the first https:// address it prints.

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
      summary: 'The secret the URL must carry as ?key= (default: a random one for this run).',
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
    const json = this.jsonEnabled()
    const {WEBHOOK_PATH, generateWebhookToken, isLoopbackHost, startWebhookListener} = await import('../../webhooks/listener.js')
    const options = toWebhookListenOptions(this.flags, {newToken: generateWebhookToken})
    const {forwardUrl, maxBodyBytes, token} = options
    const service = options.fetch ? await this.fetchingService() : undefined

    const {WebhookRecorder} = await import('../../webhooks/recorder.js')
    const {renderWebhookLine, stoppedLine, webhookLine} = await import('../../output/webhook.js')
    const {WebhookForwarder} = await import('../../webhooks/forwarder.js')

    let recorder: InstanceType<typeof WebhookRecorder> | undefined
    if (options.save !== undefined) {
      try {
        recorder = new WebhookRecorder(options.save)
      } catch (error) {
        throw new InputError(`--save: cannot open ${options.save} for appending (${(error as Error).message}).`, {flag: '--save'})
      }
    }
    const forwarder = forwardUrl ? new WebhookForwarder(forwardUrl.href, this.globals.requestTimeoutMs) : undefined
    const {BatchedLineWriter} = await import('../../terminal/turn-batch.js')
    const stdout = new BatchedLineWriter(process.stdout)
    const write = (object: object) => stdout.add(JSON.stringify(object))

    let toldAboutFetch = false
    let listener: WebhookListener
    try {
      listener = await startWebhookListener({
        host: options.host,
        port: options.port,
        token,
        maxBodyBytes,
        recorder,
        fetchTransaction: service ? (id) => service.getTransaction(id) : undefined,
        forward: forwarder ? (body, headers) => forwarder.forward(body, headers) : undefined,
        secretHeaderNames: service ? [service.target.profile.api_key_header] : [],
        onWebhook: (report) => {
          const line = webhookLine(report)
          if (line.event === 'webhook' && line.fetch_error) line.fetch_error = scrubSecrets(line.fetch_error, this.secrets)
          if (json) write(line)
          else stdout.add(renderWebhookLine(line))
          if (line.event === 'webhook' && line.status === null && !service && !toldAboutFetch) {
            toldAboutFetch = true
            this.note('This webhook names no status (the service\'s clients re-fetch the transaction): add --fetch to read it from the service.')
          }
        },
        onRejected: (rejection) => this.note(`Rejected ${rejection.method} ${rejection.path} with ${rejection.status}: ${rejection.reason}`),
        onRecordFailure: (error) => this.warnUser(`could not write to ${options.save} (${error.message}); answered 500 so the sender can retry.`),
      })
    } catch (error) {
      recorder?.close()
      throw error
    }

    if (forwardUrl && isLoopbackHost(forwardUrl.hostname) && Number(forwardUrl.port || 80) === listener.port) {
      await listener.close(0)
      throw new InputError(`--forward-to ${forwardUrl.href} points at this listener itself; each webhook would be forwarded forever.`, {flag: '--forward-to'})
    }
    if (!isLoopbackHost(options.host)) {
      this.warnUser(`listening on ${options.host}: anyone who can reach port ${listener.port} from the network can post to it${token ? ' if they know the URL' : ''}.`)
    }
    if (!token) this.warnUser(`--no-token: webhooks are accepted on any path, from anyone who can reach port ${listener.port}.`)
    const tunnel = options.tunnel ? await this.startTunnel(options.tunnel, listener.port, async () => {
      await listener.close(0)
      recorder?.close()
    }) : undefined

    const ready: ReadyLine = {
      event: 'ready',
      url: listener.url,
      host: listener.host,
      port: listener.port,
      token_required: token !== undefined,
      fetch: Boolean(service),
      ...(options.save === undefined ? {} : {save: options.save}),
      ...(forwarder ? {forward_to: forwarder.url} : {}),
      ...(tunnel ? {public_url: `${tunnel.publicUrl}${new URL(listener.url).pathname}${new URL(listener.url).search}`, tunnel: tunnel.name} : {}),
    }
    if (json) {
      write(ready)
      stdout.flush()
    } else this.announce(ready, WEBHOOK_PATH, service ? this.profile().name : undefined)

    const reason = await this.untilStoppedOrTunnelLost(tunnel)
    const counts = await listener.close(reason === 'signal' ? STOP_GRACE_MS : 0)
    await Promise.allSettled([forwarder?.destroy(), service?.destroy(), tunnel?.stop()])
    if (typeof reason === 'object') {
      recorder?.close()
      const {tunnelLostError} = await import('../../tunnel/run-tunnel.js')
      throw tunnelLostError(tunnel!.name, reason.exit, `webhooks were awaited (${counts.received} received)`)
    }
    if (json && reason !== 'stdout closed') write(stoppedLine(counts))
    stdout.flush()
    const rejectedDetail = Object.entries(counts.rejectedByStatus).map(([status, count]) => `${status}: ${count}`)
    this.note(
      `Stopped. ${counts.received} webhook${counts.received === 1 ? '' : 's'} received (${counts.duplicates} duplicate${counts.duplicates === 1 ? '' : 's'}), ` +
        `${counts.malformed} malformed, ${counts.rejected} rejected${rejectedDetail.length > 0 ? ` (${rejectedDetail.join(', ')})` : ''}.` +
        (options.save === undefined ? '' : ` Saved to ${options.save}.`),
    )
    if (reason === 'signal') this.setOutcomeExitCode(EXIT.interrupted)
  }

  /** The service to re-fetch from, checked before anything listens: --fetch needs the profile's key. */
  private async fetchingService() {
    const {name, profile} = await this.profileWithKeys()
    if (!profile.api_key) {
      throw new InputError(`--fetch reads transactions from the service, but profile "${name}" has no API key.`, {
        flag: '--fetch',
        hint: `Set it with \`${commandLine(`profile add ${name} --api-key-stdin`)}\` (or PAYTX_API_KEY for one run).`,
      })
    }
    return this.service()
  }

  /** Starts the tunnel to the listener's port (stopped by the caller on every way out); `undo` closes what was opened when it fails. */
  private async startTunnel(request: TunnelRequest, port: number, undo: () => Promise<void>): Promise<RunningTunnel> {
    const [{startTunnel}, {tunnelProgram}] = await Promise.all([import('../../tunnel/run-tunnel.js'), import('../../tunnel/tunnel-program.js')])
    const program = tunnelProgram(request.choice, port)
    this.note(`Starting ${program.name} to port ${port}…`)
    try {
      return await startTunnel(program, {timeoutMs: request.timeoutMs, signal: this.interruptSignal()})
    } catch (error) {
      await undo()
      throw error
    }
  }

  /** As untilStopped, or the tunnel's exit when it stops first. */
  private untilStoppedOrTunnelLost(tunnel: RunningTunnel | undefined): Promise<'signal' | 'stdout closed' | {exit: TunnelExit}> {
    const lost = tunnel ? tunnel.died.then((exit) => ({exit})) : new Promise<never>(() => undefined)
    return Promise.race([this.untilStopped(), lost])
  }

  private announce(ready: ReadyLine, path: string, fetchProfile: string | undefined): void {
    this.note(`Listening for webhooks at ${ready.url}`)
    if (ready.public_url) {
      this.note(`Public address (through ${ready.tunnel}): ${ready.public_url}`)
      this.note('Give the public address to the service as webhook_transaction_update; the tunnel stops with this command.')
      this.note('Ready. Press Ctrl-C to stop.')
      return
    }
    const doing = [
      ready.save === undefined ? undefined : `saving each to ${ready.save}`,
      fetchProfile === undefined ? undefined : `reading each transaction from the service (profile "${fetchProfile}")`,
      ready.forward_to === undefined ? undefined : `forwarding each to ${ready.forward_to}`,
    ].filter(Boolean)
    if (doing.length > 0) this.note(`  ${doing.join('; ')}`)
    this.note(
      `Give this URL to the service as webhook_transaction_update. The real service cannot reach ${ready.host}: ` +
        `add --tunnel cloudflared (or ngrok) for a public address, or run a tunnel of your own to port ${ready.port} and give it the tunnel's address with ${path}${ready.token_required ? '?key=…' : ''}.`,
    )
    this.note('Ready. Press Ctrl-C to stop.')
  }

  /** Resolves on Ctrl-C or SIGTERM (a second one exits at once) or when stdout's reader goes away. */
  private untilStopped(): Promise<'signal' | 'stdout closed'> {
    const interrupt = this.interruptSignal()
    return new Promise((resolve) => {
      interrupt.addEventListener('abort', () => resolve('signal'), {once: true})
      process.stdout.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE') throw error
        resolve('stdout closed')
      })
    })
  }
}

export type WebhookListenFlags = Interfaces.InferredFlags<typeof WebhookListen.flags>

export interface WebhookListenOptions {
  host: string
  port: number
  /** The secret the URL must carry; undefined with --no-token. */
  token: string | undefined
  maxBodyBytes: number
  forwardUrl: URL | undefined
  save: string | undefined
  fetch: boolean
  /** The tunnel to start to the listener's port. */
  tunnel: TunnelRequest | undefined
}

/**
 * The flags of `webhook listen` as what to listen with; an InputError (exit 2) names a wrong
 * flag before anything listens. `env.newToken` makes the token of a run without --token.
 */
export function toWebhookListenOptions(flags: WebhookListenFlags, env: {newToken: () => string}): WebhookListenOptions {
  const maxBodyBytes = parseByteSize(flags['max-body'])
  if (maxBodyBytes === undefined) {
    throw new InputError(`--max-body must be a size in bytes such as 65536, 512kb or 1mb (got "${flags['max-body']}").`, {flag: '--max-body'})
  }
  const forwardUrl = flags['forward-to'] === undefined ? undefined : parseHttpUrl(flags['forward-to'])
  if (flags['forward-to'] !== undefined && !forwardUrl) {
    throw new InputError(`--forward-to must be an absolute http(s) URL (got "${flags['forward-to']}").`, {flag: '--forward-to'})
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
