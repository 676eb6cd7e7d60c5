import * as Flags from '@oclif/core/flags'

import {BaseCommand} from '../../cli/base-command.js'
import {hideFlags} from './start.js'

export interface EmulatorResetResult {
  store: string
  reset: true
}

export default class EmulatorReset extends BaseCommand<typeof EmulatorReset, EmulatorResetResult> {
  static override summary = "Empty the emulator's store: every customer, card, transaction, webhook delivery and added id."

  static override description = `Empties the store in place, so that an emulator running over it sees an empty store at once (the default organisation and payment profile come back when an emulator starts). Asks first; without a terminal, pass --yes.

EXIT CODES
  0    emptied
  2    not confirmed, or the file is not an emulator store`

  static override examples = ['<%= config.bin %> emulator reset', '<%= config.bin %> emulator reset --store ./emulator.db --yes']

  static override baseFlags = hideFlags(BaseCommand.baseFlags)

  static override flags = {
    store: Flags.string({summary: 'The store to empty. Default: emulator.db in the data folder.'}),
    yes: Flags.boolean({summary: 'Empty it without asking.', default: false}),
  }

  public async run(): Promise<EmulatorResetResult> {
    const {resolveStoreLocation} = await import('../../emulator/store/index.js')
    const {store: storeFlag, confirmed} = toEmulatorResetOptions(this.flags)
    const location = resolveStoreLocation(storeFlag)
    await this.confirmOrRefuse({
      yes: confirmed,
      refusal: `Refusing to empty the emulator store ${location} without confirmation.`,
      question: `Empty the emulator store ${location}? Every customer, card, transaction and webhook delivery in it is deleted.`,
      cancelled: 'Cancelled; the store was left as it was.',
    })
    const {EmulatorStore} = await import('../../emulator/store/index.js')
    const store = EmulatorStore.open(location)
    try {
      store.reset()
    } finally {
      store.close()
    }
    this.print(`Emptied the emulator store ${location}.`)
    return {store: location, reset: true}
  }
}

export interface EmulatorResetOptions {
  /** --store as given; undefined: the default store in the data folder (resolved, and its folder made, only when run). */
  store: string | undefined
  /** --yes: emptied without asking. */
  confirmed: boolean
}

export function toEmulatorResetOptions(flags: {store?: string; yes: boolean}): EmulatorResetOptions {
  return {store: flags.store, confirmed: flags.yes}
}
