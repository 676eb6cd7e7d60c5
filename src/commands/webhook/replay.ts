import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {EXIT, InputError} from '../../errors.js'
import {BaseCommand} from '../../cli/base-command.js'
import {parseHttpUrl} from '../../http/url.js'
import {redactUrl} from '../../secrets/redact-url.js'
import {DURATION_HELP, parseDuration} from '../../duration.js'
import type {ReplaySelection} from '../../webhooks/replay.js'

export default class WebhookReplay extends BaseCommand<typeof WebhookReplay, undefined> {
  protected override jsonLines = true

  static override summary = 'Send webhooks saved by `webhook listen --save` again, in order, to an address.'
  static override description = `Reads the save file and POSTs each selected webhook to --to, one after the other (the next once the previous one is answered), with the headers it was received with (minus hop-by-hop ones: host, content-length, connection, ...) and its body. A body that was JSON is sent as JSON text (the same values; spacing may differ from what the service sent); one that was not JSON is sent as received. Each is sent once, never retried.

REDACTED VALUES ARE SENT REDACTED: the save file holds keys, card numbers and CVVs redacted (\`sk_l…XcR7\`, \`•••• 4242\`, \`***\`), and that is what the receiver gets (in headers, which carry Latin-1 only, the marks … and • are sent as ... and *). A note on stderr says so when a selected webhook carries such a value.

A line cut short by a listener killed while writing it (never acknowledged) is skipped, and a note on stderr names it.

Select with --seq (the "seq" of each line: 3,7-9), --transaction <id> and --since <duration> (received within that long before now); given together, a webhook must match all of them. Without any, every webhook in the file is sent.

The file is a regular file, or \`-\` for stdin, or a named pipe (FIFO, \`<(command)\`): those are read whole, until their writer closes, up to 64 MiB, before anything is sent. A folder or a device is refused.

One line per delivery: seq, status, transaction id and the receiver's answer; with --json, one NDJSON object per delivery and a final {"event":"replayed"} with the counts. --timeout (seconds) bounds each delivery.

EXIT CODES
  0    every delivery was answered 2xx
  1    a delivery failed: not 2xx, refused, timed out
  2    the file or a flag is not valid (the file's line is named), or nothing was selected; nothing was sent
  130  interrupted (Ctrl-C or SIGTERM), while reading the file too`

  static override examples = [
    '<%= config.bin %> webhook replay webhooks.ndjson --to http://localhost:3000/webhooks/payments',
    '<%= config.bin %> webhook replay webhooks.ndjson --to http://localhost:3000/webhooks --seq 3,7-9',
    '<%= config.bin %> webhook replay webhooks.ndjson --to http://localhost:3000/webhooks --transaction 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c --since 10m --json',
  ]

  static override args = {
    file: Args.string({description: 'A file written by `paytx webhook listen --save`; `-` reads it from stdin.', required: true}),
  }

  static override flags = {
    to: Flags.string({summary: 'The address to send the webhooks to (absolute http(s) URL).', required: true}),
    seq: Flags.string({summary: 'Only these seq numbers: a list of numbers and ranges, e.g. 3,7-9.'}),
    transaction: Flags.string({summary: 'Only webhooks of this transaction id.'}),
    since: Flags.string({summary: `Only webhooks received within this long before now: ${DURATION_HELP}.`}),
  }

  public async run(): Promise<undefined> {
    const {url, selection} = await toWebhookReplayOptions(this.flags, {now: this.ctx.clock.now()})
    const [{openSaveFile, surveySaveFile, replayWebhooks}, {preferSmallHeap}] = await Promise.all([import('../../webhooks/replay.js'), import('../../process/small-heap.js')])
    // A save file may hold millions of lines, read twice: memory, not speed, is what V8 must save (see small-heap.ts).
    preferSmallHeap()
    const timeoutMs = this.globals.requestTimeoutMs

    // Ctrl-C and SIGTERM end the command from here on, a read waiting for a pipe's writer included.
    const file = await openSaveFile(this.args.file, {stdin: this.ctx.io.stdin as AsyncIterable<Buffer>, signal: this.interruptSignal()})
    // The file is read twice, a line at a time: once to check every line and count the selection,
    // then to send, so a save file of any length is never held whole (one from a pipe is, capped).
    const survey = await surveySaveFile(file, selection)
    if (survey.selected === 0) {
      throw new InputError(
        survey.saved === 0 ? `The save file ${this.args.file} holds no webhook.` : `No webhook in ${this.args.file} matches the selection (${survey.saved} in the file).`,
        {hint: 'Check --seq, --transaction and --since against the file (each line has "seq" and "received_at").'},
      )
    }
    const {redacted} = survey
    if (redacted.count > 0) {
      const more = redacted.count > redacted.first.length ? ` and ${redacted.count - redacted.first.length} more` : ''
      this.note(`Note: redacted values are sent as recorded (redacted), in webhook${redacted.count === 1 ? '' : 's'} seq ${redacted.first.join(', ')}${more}.`)
    }

    if (survey.cutShort.count > 0) this.note(cutShortNote(this.args.file, survey.cutShort))

    const json = this.jsonEnabled()
    const {renderReplayedDelivery} = await import('../../output/webhook-replay.js')
    const {lineWidth} = await import('../../output/wrap.js')
    const width = lineWidth(this.ctx.io.stdout)
    const line = (text: string) => this.ctx.io.stdout.write(`${text}\n`)
    const {sent, failed} = await replayWebhooks(file, selection, url.href, {
      lastLine: survey.lastLine,
      timeoutMs,
      onDelivery: (delivery) => line(json ? JSON.stringify(delivery) : renderReplayedDelivery(delivery, width)),
    })
    const interrupted = sent < survey.selected
    if (json) line(JSON.stringify({event: 'replayed', sent, failed, selected: survey.selected}))
    this.note(
      `Replayed ${sent} of ${survey.selected} webhook${survey.selected === 1 ? '' : 's'} to ${redactUrl(url)}: ` +
        `${sent - failed} answered 2xx, ${failed} failed.${interrupted ? ' Interrupted.' : ''}`,
    )
    if (interrupted) this.ctx.setExitCode(EXIT.interrupted)
    else if (failed > 0) this.ctx.setExitCode(EXIT.service)
    return undefined
  }
}

/** Lines of the file a kill cut short: which, and that they are skipped. */
function cutShortNote(file: string, {first, count}: {first: number[]; count: number}): string {
  const more = count > first.length ? ` and ${count - first.length} more` : ''
  const lines = `line${count === 1 ? '' : 's'} ${first.join(', ')}${more}`
  return `Note: skipped ${lines} of ${file}: cut short when a listener was stopped while writing ${count === 1 ? 'it' : 'them'}, so never acknowledged.`
}

export type WebhookReplayFlags = Interfaces.InferredFlags<typeof WebhookReplay.flags>

export interface WebhookReplayOptions {
  url: URL
  selection: ReplaySelection
}

/** `webhook replay`'s flags, checked: --to an absolute http(s) URL, --seq numbers and ranges, --since a duration before `now`. */
export async function toWebhookReplayOptions(flags: WebhookReplayFlags, env: {now: number}): Promise<WebhookReplayOptions> {
  const url = parseHttpUrl(flags.to)
  if (!url) throw new InputError(`--to must be an absolute http(s) URL such as http://localhost:3000/webhooks (got "${redactUrl(flags.to)}").`, {flag: '--to'})
  const selection: ReplaySelection = {}
  if (flags.seq !== undefined) {
    const {parseSeqList} = await import('../../webhooks/replay.js')
    const ranges = parseSeqList(flags.seq)
    if (typeof ranges === 'string') throw new InputError(`--seq must list numbers and ranges such as 3,7-9: ${ranges}.`, {flag: '--seq'})
    selection.seq = ranges
  }
  if (flags.transaction !== undefined) {
    if (flags.transaction.trim() === '') throw new InputError('--transaction must not be empty.', {flag: '--transaction'})
    selection.transaction = flags.transaction.trim()
  }
  if (flags.since !== undefined) selection.since = env.now - parseDuration(flags.since, '--since', {max: Number.POSITIVE_INFINITY})
  return {url, selection}
}
