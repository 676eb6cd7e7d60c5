import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {STATUSES, type TransactionStatus} from '../../api/contract.js'
import {BaseCommand} from '../../cli/base-command.js'
import {emulatorUrlFlag, parseEmulatorUrl} from '../../cli/emulator-url-flag.js'
import {parseDuration} from '../../duration.js'
import type {WebhookDelivery} from '../../emulator/store/index.js'
import {visibleText} from '../../terminal/visible-text.js'

export interface TriggerCommandResult {
  transaction: string
  from: string
  to: TransactionStatus
  reason: string
  forced: boolean
  webhooks: WebhookDelivery[]
}

export default class EmulatorTrigger extends BaseCommand<typeof EmulatorTrigger, TriggerCommandResult> {
  static override summary = "Move a transaction to any status, as the emulated processor would, and send its webhook."

  static override description = `Moves an existing transaction of the emulator to STATUS: the change is recorded (status_reason, last_status_update, the timeline), its webhook is sent to the transaction's (or payment profile's) address, and what follows the new status over time follows (a settlement request settles after --settle-after, and so on).

Moves the state table does not allow (docs/emulator.md: "Trigger and resend") are refused with exit 2 unless --force. Runs against a running emulator: the one at --url, else at the local profile's address (never one of its own, which would read the shared store instead).

EXIT CODES
  0    moved (the webhook's first attempt is shown; the emulator retries a failed one)
  1    no emulator answered at the address
  2    not a local profile, an unknown status or transaction, or a move the state table refuses (without --force); nothing was changed`

  static override examples = [
    '<%= config.bin %> emulator trigger 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c DECLINED --reason "card reported stolen"',
    '<%= config.bin %> emulator trigger 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c SETTLEMENT_REQUESTED --json',
    '<%= config.bin %> emulator trigger 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c PENDING --force',
  ]

  static override args = {
    id: Args.string({description: 'Transaction id', required: true}),
    status: Args.string({description: 'The status to move to.', required: true, options: [...STATUSES]}),
  }

  static override flags = {
    url: emulatorUrlFlag,
    reason: Flags.string({summary: "The transaction's status_reason after the move (default: the status's usual one)."}),
    force: Flags.boolean({summary: 'Make a move the state table does not allow.', default: false}),
    wait: Flags.string({summary: "How long to wait for the webhook's first attempt, e.g. 10s.", default: '10s'}),
  }

  public async run(): Promise<TriggerCommandResult> {
    const options = toTriggerOptions(this.flags, this.args)
    const {requireLocalProfile, EmulatorAdminClient} = await import('../../emulator/admin/index.js')
    this.useEmulatorAt(options.url)
    requireLocalProfile(this.profile(), 'trigger')
    const admin = new EmulatorAdminClient(await this.service({}, {embeddedEmulator: false}))
    const moved = await admin.trigger(options.id, options.move)
    const webhooks = moved.deliveries.length > 0 ? await admin.firstAttempts(options.id, moved.deliveries.map((delivery) => delivery.id), options.waitMs) : []
    const reason = String(moved.transaction.status_reason ?? '')
    const {renderDeliveryLine} = await import('../../output/webhook-delivery.js')
    this.print(
      [
        `Moved ${options.id}  ${visibleText(moved.from)} → ${visibleText(moved.to)}${moved.forced ? '  (forced)' : ''}${reason ? `  (${visibleText(reason)})` : ''}`,
        ...(webhooks.length > 0 ? webhooks.map((delivery) => renderDeliveryLine(delivery)) : ['No webhook sent: the transaction and its payment profile have no webhook address.']),
      ].join('\n'),
    )
    return {transaction: options.id, from: moved.from, to: moved.to, reason, forced: moved.forced, webhooks}
  }
}

export type TriggerFlags = Interfaces.InferredFlags<typeof EmulatorTrigger.flags>

export interface TriggerOptions {
  id: string
  move: {status: TransactionStatus; reason?: string; force: boolean}
  /** How long to wait for each webhook's first attempt; 0 does not wait. */
  waitMs: number
  /** The emulator's address (--url), when not the local profile's. */
  url?: string
}

/** `emulator trigger`'s arguments and flags as the move to ask for; an input error names a bad --wait. */
export function toTriggerOptions(flags: TriggerFlags, args: {id: string; status: string}): TriggerOptions {
  return {
    id: args.id,
    move: {status: args.status as TransactionStatus, ...(flags.reason ? {reason: flags.reason} : {}), force: flags.force},
    waitMs: parseDuration(flags.wait, '--wait', {allowZero: true}),
    url: parseEmulatorUrl(flags.url),
  }
}
