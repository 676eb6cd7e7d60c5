import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../../base-command.js'

export interface FaultsClearResult {
  removed: number
  id?: string
}

export default class EmulatorFaultsClear extends BaseCommand<typeof EmulatorFaultsClear, FaultsClearResult> {
  static override summary = "Remove the running emulator's fault rules: all of them, or the one named."

  static override description = `Deletes fault rules of the emulator the profile points at (a local profile only); requests and webhooks behave normally again at once. Deliveries already delayed or held back by a rule go out when their time comes.

EXIT CODES
  0    removed
  1    no emulator answered, or it has no rule with that id
  2    the profile is not a local one`

  static override examples = ['<%= config.bin %> emulator faults clear', '<%= config.bin %> emulator faults clear f2']

  static override args = {
    id: Args.string({description: 'The id of one rule to remove (as `faults list` shows it); default: every rule.'}),
  }

  public async run(): Promise<FaultsClearResult> {
    const {FaultsClient} = await import('../../../emulator/faults/index.js')
    const client = new FaultsClient(this.profile(), this.globals.requestTimeoutMs)
    try {
      const removed = await client.remove(this.args.id)
      this.print(this.args.id === undefined ? `Removed ${removed} fault rule${removed === 1 ? '' : 's'}.` : `Removed fault rule ${this.args.id}.`)
      return {removed, ...(this.args.id === undefined ? {} : {id: this.args.id})}
    } finally {
      await client.close()
    }
  }
}
