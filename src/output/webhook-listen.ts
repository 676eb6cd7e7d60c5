/**
 * `webhook listen`'s events (webhooks/listen-events.ts) drawn for people (a line per webhook on
 * stdout, the rest on stderr) or as NDJSON on stdout under --json: `ready`, one object per
 * webhook, `stopped`.
 */
import type {ListenEvent} from '../webhooks/listen-events.js'
import {scrubSecrets} from '../secrets/redact.js'
import {visibleText} from '../terminal/visible-text.js'
import {type ReadyLine, renderWebhookLine, stoppedLine, webhookLine} from './webhook.js'
import {wrapHanging} from './wrap.js'

export interface ListenRendererOptions {
  json: boolean
  /** stdout, one line at a time, batched per turn of the event loop. */
  stdout: {add(line: string): void; flush(): void}
  /** A line on stderr. */
  note: (text: string) => void
  warn: (text: string) => void
  /** Values to scrub from what the service said (a fetch error). */
  secrets: readonly string[]
  /** stdout's width on a terminal (wrap.ts lineWidth): webhook lines wrap between words, times are short; undefined in a pipe. */
  width?: number
}

function readyLine(event: Extract<ListenEvent, {kind: 'ready'}>): ReadyLine {
  return {
    event: 'ready',
    url: event.url,
    host: event.host,
    port: event.port,
    token_required: event.tokenRequired,
    fetch: event.fetchProfile !== undefined,
    ...(event.save === undefined ? {} : {save: event.save}),
    ...(event.forwardTo === undefined ? {} : {forward_to: event.forwardTo}),
    ...(event.publicUrl === undefined ? {} : {public_url: event.publicUrl, tunnel: event.tunnel}),
  }
}

/** The lines for people once listening: the address, what happens to each webhook, and how to reach it. */
export function renderListening(event: Extract<ListenEvent, {kind: 'ready'}>): string[] {
  const doing = [
    event.save === undefined ? undefined : `saving each to ${event.save}`,
    event.fetchProfile === undefined ? undefined : `reading each transaction from the service (profile "${event.fetchProfile}")`,
    event.forwardTo === undefined ? undefined : `forwarding each to ${event.forwardTo}`,
  ].filter(Boolean)
  if (event.publicUrl) {
    return [
      `Listening for webhooks at ${event.url}`,
      ...(doing.length > 0 ? [`  ${doing.join('; ')}`] : []),
      // The tunnel printed this address: shown whole (it is what to give the service), made visible.
      `Public address (through ${event.tunnel}): ${visibleText(event.publicUrl)}`,
      'Give the public address to the service as webhook_transaction_update; the tunnel stops with this command.',
      'Ready. Press Ctrl-C to stop.',
    ]
  }
  return [
    `Listening for webhooks at ${event.url}`,
    ...(doing.length > 0 ? [`  ${doing.join('; ')}`] : []),
    `Give this URL to the service as webhook_transaction_update. The real service cannot reach ${event.host}: ` +
      `add --tunnel cloudflared (or ngrok) for a public address, or run a tunnel of your own to port ${event.port} and give it the tunnel's address with ${event.tokenRequired ? `the path and key of the address above (${event.path}?key=<token>)` : event.path}.`,
    'Ready. Press Ctrl-C to stop.',
  ]
}

/** The summary on stderr when listening ends. */
export function renderStopped(event: Extract<ListenEvent, {kind: 'stopped'}>): string {
  const {counts} = event
  const rejectedDetail = Object.entries(counts.rejectedByStatus).map(([status, count]) => `${status}: ${count}`)
  return (
    `Stopped. ${counts.received} webhook${counts.received === 1 ? '' : 's'} received (${counts.duplicates} duplicate${counts.duplicates === 1 ? '' : 's'}), ` +
    `${counts.malformed} malformed, ${counts.rejected} rejected${rejectedDetail.length > 0 ? ` (${rejectedDetail.join(', ')})` : ''}.` +
    (event.save === undefined ? '' : ` Saved to ${event.save}.`)
  )
}

/** One function that draws every event of a run. */
export function webhookListenRenderer(options: ListenRendererOptions): (event: ListenEvent) => void {
  const {json, stdout, note, warn} = options
  const write = (object: object) => stdout.add(JSON.stringify(object))
  return (event) => {
    switch (event.kind) {
      case 'webhook': {
        const line = webhookLine(event.report)
        if (line.event === 'webhook' && line.fetch_error) line.fetch_error = scrubSecrets(line.fetch_error, options.secrets)
        if (json) write(line)
        else stdout.add(wrapHanging(renderWebhookLine(line, {short: options.width !== undefined}), options.width).join('\n'))
        return
      }
      case 'status-missing':
        return note('This webhook names no status (the service\'s clients re-fetch the transaction): add --fetch to read it from the service.')
      case 'rejected':
        return note(`Rejected ${visibleText(event.rejection.method)} ${visibleText(event.rejection.path)} with ${event.rejection.status}: ${event.rejection.reason}`)
      case 'record-failed':
        return warn(
          event.diskFull
            ? `could not write to ${event.file}: the disk is full; answered 503 (Retry-After) so the sender sends it again. Free some space: recording resumes by itself.`
            : `could not write to ${event.file} (${event.message}); answered ${event.status} so the sender can retry.`,
        )
      case 'exposed':
        return warn(`listening on ${event.host}: anyone who can reach port ${event.port} from the network can post to it${event.tokenRequired ? ' if they know the URL' : ''}.`)
      case 'tokenless':
        return warn(`--no-token: webhooks are accepted on any path, from anyone who can reach port ${event.port}.`)
      case 'weak-token':
        return warn(
          `--token is ${event.length} character${event.length === 1 ? '' : 's'} long: a token shorter than ${event.minimum} can be guessed. ` +
            'Leave --token out for a random one each run, or give a random one of your own (openssl rand -hex 16 makes one).',
        )
      case 'ready':
        if (!json) return renderListening(event).forEach((line) => note(line))
        write(readyLine(event))
        return stdout.flush()
      case 'stopped':
        if (json && event.reason !== 'stdout closed') write(stoppedLine(event.counts))
        stdout.flush()
        return note(renderStopped(event))
    }
  }
}
