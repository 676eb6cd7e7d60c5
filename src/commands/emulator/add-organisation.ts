import * as Args from '@oclif/core/args'
import * as Flags from '@oclif/core/flags'
import type {Interfaces} from '@oclif/core'

import {BaseCommand} from '../../cli/base-command.js'
import {InputError} from '../../errors.js'
import {hideFlags} from './start.js'

export interface AddOrganisationResult {
  store: string
  organisation: string
}

export default class EmulatorAddOrganisation extends BaseCommand<typeof EmulatorAddOrganisation, AddOrganisationResult> {
  static override summary = "Accept an organisation id in the emulator's store (customers and cards may name it)."

  static override description = `Adds the organisation to the store; every emulator over that store accepts it at once, running or started later. Adding one that is there already changes nothing.

EXIT CODES
  0    added (or already there)
  2    not a UUID, or the file is not an emulator store`

  static override examples = ['<%= config.bin %> emulator add-organisation 3f1c2a9e-0000-4000-8000-000000000001']

  static override baseFlags = hideFlags(BaseCommand.baseFlags)

  static override args = {
    id: Args.string({description: 'The organisation UUID.', required: true}),
  }

  static override flags = {
    store: Flags.string({summary: 'The store to add it to. Default: emulator.db in the data folder.'}),
  }

  public async run(): Promise<AddOrganisationResult> {
    const {organisation, store: storeFlag} = await toAddOrganisationOptions(this.flags, this.args)
    const {resolveStoreLocation} = await import('../../emulator/store/index.js')
    const location = resolveStoreLocation(storeFlag, this.ctx.env)
    const {EmulatorStore} = await import('../../emulator/store/index.js')
    const store = EmulatorStore.open(location)
    try {
      store.write(() => store.addOrganisation(organisation, new Date().toISOString()))
    } finally {
      store.close()
    }
    this.print(`The emulator store ${location} accepts organisation ${organisation}.`)
    return {store: location, organisation}
  }
}

export type AddOrganisationFlags = Interfaces.InferredFlags<typeof EmulatorAddOrganisation.flags>

export interface AddOrganisationOptions {
  /** The UUID, lower case. */
  organisation: string
  /** --store as given; undefined for the default store. */
  store?: string
}

/** `emulator add-organisation`'s argument, checked to be a UUID. */
export async function toAddOrganisationOptions(flags: AddOrganisationFlags, args: {id: string}): Promise<AddOrganisationOptions> {
  const {isUuid} = await import('../../emulator/store/index.js')
  if (!isUuid(args.id)) throw new InputError(`The organisation id must be a UUID (got "${args.id}").`)
  return {organisation: args.id.toLowerCase(), store: flags.store}
}
