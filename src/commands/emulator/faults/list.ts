import {BaseCommand} from '../../../cli/base-command.js'
import {emulatorUrlFlag, parseEmulatorUrl} from '../../../cli/emulator-url-flag.js'
import type {FaultList} from '../../../emulator/faults/index.js'

export default class EmulatorFaultsList extends BaseCommand<typeof EmulatorFaultsList, FaultList> {
  static override summary = "List the running emulator's fault rules, with how often each matched and applied."

  static override description = `Asks the emulator the profile points at (a local profile only) for its fault rules: id, name, fault, what it matches, how often it applies, hits (times applied) and matched (requests or webhooks it matched), and the seed of the probabilities.

On a terminal, a table fitted to its width (the counts are left out first when it is narrow), then the seed; in a pipe, tab-separated rows under a header line, the seed on stderr.

EXIT CODES
  0    listed
  1    no emulator answered at the profile's address
  2    the profile is not a local one`

  static override examples = ['<%= config.bin %> emulator faults list', '<%= config.bin %> emulator faults list --json']

  static override flags = {
    url: emulatorUrlFlag,
  }

  public async run(): Promise<FaultList> {
    const {FaultsClient} = await import('../../../emulator/faults/index.js')
    const {timeoutMs} = toFaultsListOptions(this.globals)
    this.useEmulatorAt(parseEmulatorUrl(this.flags.url))
    const client = new FaultsClient(this.profile(), timeoutMs)
    try {
      const list = await client.list()
      const [{faultSeedNote, renderFaultList}, {tableFormatFor, terminalWidth}] = await Promise.all([import('../../../output/faults.js'), import('../../../output/table.js')])
      const format = tableFormatFor(this.ctx.io.stdout)
      this.print(renderFaultList(list.seed, list.rules, {format, width: terminalWidth(this.ctx.io.stdout)}))
      // In a pipe stdout holds only the tab-separated rows.
      if (format !== 'aligned' && !this.jsonEnabled()) this.note(faultSeedNote(list.seed, list.rules.length))
      return list
    } finally {
      await client.close()
    }
  }
}

/** The list takes no input of its own: only how long the emulator may take to answer (--timeout). */
export function toFaultsListOptions(globals: {requestTimeoutMs: number}): {timeoutMs: number} {
  return {timeoutMs: globals.requestTimeoutMs}
}
