import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {emulatorUrlFlag, parseEmulatorUrl} from '../../cli/emulator-url-flag.js'
import {parseDuration} from '../../duration.js'
import {EXIT, InputError} from '../../errors.js'
import type {WebhookDelivery} from '../../emulator/store/index.js'
import {isAbsoluteHttpUrl} from '../../http/url.js'

export interface ResendCommandResult {
  transaction: string
  webhooks: WebhookDelivery[]
}

export default class EmulatorResend extends BaseCommand<typeof EmulatorResend, ResendCommandResult> {
  static override summary = "Send a transaction's last webhook (or every one) again, to its address or another."

  static override description = `Queues the transaction's last webhook again (--all: every webhook it was sent, in order), with the body it was sent with, to the address it went to or --to <url>, and shows how the first attempt went. A transaction that was never sent one gets the webhook of its current status. Receivers must cope with the same status twice: this is how to check that they do.

Runs against a running emulator: the one at --url, else at the local profile's address (never one of its own, which would read the shared store instead).

EXIT CODES
  0    every webhook was delivered
  1    a receiver did not accept its webhook (the emulator retries it), or the emulator could not be reached
  2    not a local profile, an unknown transaction, a bad --to, or nowhere to send it; nothing was sent`

  static override examples = [
    '<%= config.bin %> emulator resend 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c',
    '<%= config.bin %> emulator resend 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c --all --to http://127.0.0.1:3000/webhooks',
  ]

  static override args = {
    id: Args.string({description: 'Transaction id', required: true}),
  }

  static override flags = {
    url: emulatorUrlFlag,
    all: Flags.boolean({summary: 'Every webhook the transaction was sent, in order, not only the last.', default: false}),
    to: Flags.string({summary: 'Send to this address instead of the one each went to.'}),
    wait: Flags.string({summary: "How long to wait for each webhook's first attempt, e.g. 10s.", default: '10s'}),
  }

  public async run(): Promise<ResendCommandResult> {
    const options = toResendOptions(this.flags, this.args)
    const {requireLocalProfile, EmulatorAdminClient} = await import('../../emulator/admin/index.js')
    this.useEmulatorAt(options.url)
    requireLocalProfile(this.profile(), 'resend')
    const admin = new EmulatorAdminClient(await this.service({}, {embeddedEmulator: false}))
    const queued = await admin.resend(options.id, options.resend)
    const webhooks = await admin.firstAttempts(options.id, queued.deliveries.map((delivery) => delivery.id), options.waitMs)
    const {isUndelivered, renderDeliveryLine} = await import('../../output/webhook-delivery.js')
    this.print(webhooks.map((delivery) => renderDeliveryLine(delivery)).join('\n'))
    if (webhooks.some((delivery) => isUndelivered(delivery))) {
      this.note('Some webhook was not accepted; the emulator keeps retrying it while it runs.')
      this.setOutcomeExitCode(EXIT.service)
    }
    return {transaction: options.id, webhooks}
  }
}

export type ResendFlags = Interfaces.InferredFlags<typeof EmulatorResend.flags>

export interface ResendOptions {
  id: string
  resend: {all: boolean; to?: string}
  /** How long to wait for each webhook's first attempt; 0 does not wait. */
  waitMs: number
  /** The emulator's address (--url), when not the local profile's. */
  url?: string
}

/** `emulator resend`'s argument and flags, checked: --to an absolute http(s) URL, --wait a duration. */
export function toResendOptions(flags: ResendFlags, args: {id: string}): ResendOptions {
  if (flags.to !== undefined && !isAbsoluteHttpUrl(flags.to)) {
    throw new InputError(`--to must be an absolute http(s) URL such as http://127.0.0.1:3000/webhooks (got "${flags.to}").`, {flag: '--to'})
  }
  return {id: args.id, resend: {all: flags.all, ...(flags.to ? {to: flags.to} : {})}, waitMs: parseDuration(flags.wait, '--wait', {allowZero: true}), url: parseEmulatorUrl(flags.url)}
}
