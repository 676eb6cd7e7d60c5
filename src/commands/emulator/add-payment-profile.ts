import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {InputError} from '../../errors.js'
import {redactUrl} from '../../secrets/redact-url.js'
import {EMULATOR_DEFAULTS} from '../../test-mode/emulator-defaults.js'
import {hideFlags} from './start.js'

export interface AddPaymentProfileResult {
  store: string
  payment_profile: string
  organisation: string
  webhook_transaction_update: string
}

export default class EmulatorAddPaymentProfile extends BaseCommand<typeof EmulatorAddPaymentProfile, AddPaymentProfileResult> {
  static override summary = "Accept a payment profile id in the emulator's store (transactions may name it)."

  static override description = `Adds the payment profile (and its organisation) to the store; every emulator over that store accepts it at once. For a profile that is there already, --webhook-url sets its webhook address.

EXIT CODES
  0    added or updated
  2    not a UUID, a bad URL, or the file is not an emulator store`

  static override examples = [
    '<%= config.bin %> emulator add-payment-profile 3f1c2a9e-0000-4000-8000-000000000002 --organisation 3f1c2a9e-0000-4000-8000-000000000001',
    '<%= config.bin %> emulator add-payment-profile 3f1c2a9e-0000-4000-8000-000000000002 --webhook-url http://127.0.0.1:4242/webhooks',
  ]

  static override baseFlags = hideFlags(BaseCommand.baseFlags)

  static override args = {
    id: Args.string({description: 'The payment profile UUID.', required: true}),
  }

  static override flags = {
    organisation: Flags.string({summary: "Its organisation's UUID (added too).", default: EMULATOR_DEFAULTS.organisation}),
    'webhook-url': Flags.string({summary: 'Its webhook_transaction_update: where the emulator posts status changes.'}),
    store: Flags.string({summary: 'The store to add it to. Default: emulator.db in the data folder.'}),
  }

  public async run(): Promise<AddPaymentProfileResult> {
    const {setting, organisation: requestedOrganisation, store: storeFlag} = await toAddPaymentProfileOptions(this.flags, this.args)
    const {resolveStoreLocation} = await import('../../emulator/store/index.js')
    const location = resolveStoreLocation(storeFlag, this.ctx.env)
    const {EmulatorStore} = await import('../../emulator/store/index.js')
    const store = EmulatorStore.open(location)
    let stored
    try {
      const createdAt = new Date().toISOString()
      store.write(() => {
        store.addOrganisation(requestedOrganisation, createdAt)
        store.putPaymentProfile(
          {id: setting.id, organisation: requestedOrganisation, name: setting.id, webhook_transaction_update: setting.webhookUrl ?? '', created_at: createdAt},
          {replaceWebhook: setting.webhookUrl !== undefined},
        )
      })
      stored = store.paymentProfile(setting.id)!
    } finally {
      store.close()
    }
    const {organisation, webhook_transaction_update: webhook} = stored
    this.print(`The emulator store ${location} accepts payment profile ${setting.id} (organisation ${organisation}; webhooks to ${webhook ? redactUrl(webhook, {asWritten: true}) : 'none set'}).`)
    return {store: location, payment_profile: setting.id, organisation, webhook_transaction_update: webhook}
  }
}

export type AddPaymentProfileFlags = Interfaces.InferredFlags<typeof EmulatorAddPaymentProfile.flags>

export interface AddPaymentProfileOptions {
  /** The payment profile's UUID and, with --webhook-url, where its webhooks go. */
  setting: {id: string; webhookUrl?: string}
  /** Its organisation's UUID, lower case. */
  organisation: string
  /** --store as given; undefined for the default store. */
  store?: string
}

/** `emulator add-payment-profile`'s argument and flags, checked: UUIDs, an absolute http(s) --webhook-url. */
export async function toAddPaymentProfileOptions(flags: AddPaymentProfileFlags, args: {id: string}): Promise<AddPaymentProfileOptions> {
  const {isUuid, parsePaymentProfileSetting} = await import('../../emulator/store/index.js')
  const setting = parsePaymentProfileSetting(flags['webhook-url'] === undefined ? args.id : `${args.id}=${flags['webhook-url']}`)
  if (typeof setting === 'string') {
    throw new InputError(`${isUuid(args.id) ? '--webhook-url must be an absolute http(s) URL' : 'The payment profile id must be a UUID'}: ${setting}.`, {
      ...(isUuid(args.id) ? {flag: '--webhook-url'} : {}),
    })
  }
  if (!isUuid(flags.organisation)) throw new InputError(`--organisation must be a UUID (got "${flags.organisation}").`, {flag: '--organisation'})
  return {setting, organisation: flags.organisation.toLowerCase(), store: flags.store}
}
