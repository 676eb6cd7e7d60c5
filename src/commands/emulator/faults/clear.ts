import * as Args from '@oclif/core/args'

import {BaseCommand} from '../../../cli/base-command.js'
import {emulatorUrlFlag, parseEmulatorUrl} from '../../../cli/emulator-url-flag.js'

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

  static override flags = {
    url: emulatorUrlFlag,
  }

  public async run(): Promise<FaultsClearResult> {
    const {FaultsClient} = await import('../../../emulator/faults/index.js')
    const {id, timeoutMs} = toFaultsClearOptions(this.args, this.globals)
    this.useEmulatorAt(parseEmulatorUrl(this.flags.url))
    const client = new FaultsClient(this.profile(), timeoutMs)
    try {
      const removed = await client.remove(id)
      this.print(id === undefined ? `Removed ${removed} fault rule${removed === 1 ? '' : 's'}.` : `Removed fault rule ${id}.`)
      return {removed, ...(id === undefined ? {} : {id})}
    } finally {
      await client.close()
    }
  }
}

export interface FaultsClearOptions {
  /** The one rule to remove; undefined: every rule. */
  id?: string
  timeoutMs: number
}

export function toFaultsClearOptions(args: {id?: string}, globals: {requestTimeoutMs: number}): FaultsClearOptions {
  return {...(args.id === undefined ? {} : {id: args.id}), timeoutMs: globals.requestTimeoutMs}
}
