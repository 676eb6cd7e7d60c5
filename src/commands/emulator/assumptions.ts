import {BaseCommand} from '../../cli/base-command.js'
import {ASSUMPTIONS, ASSUMPTION_RULE, type Assumption} from '../../emulator/index.js'
import {hideFlags} from './start.js'

export interface AssumptionsResult {
  rule: string
  assumptions: readonly Assumption[]
}

export default class EmulatorAssumptions extends BaseCommand<typeof EmulatorAssumptions, AssumptionsResult> {
  static override summary = 'List what the emulator assumes where the spec is silent: the choice, why, and the switch for another reading.'

  static override description = `${ASSUMPTION_RULE}

Each row names what the spec leaves open (or states), its id (the one \`paytx emulator verify\` reports, also in --json), the emulator's choice, the spec line or source it rests on, and the \`paytx emulator start\` flag that picks another reading where one is plausible. The section "What the emulator assumes" of docs/emulator.md holds the same table.`

  static override examples = ['<%= config.bin %> emulator assumptions', '<%= config.bin %> emulator assumptions --json']

  static override baseFlags = hideFlags(BaseCommand.baseFlags)

  public async run(): Promise<AssumptionsResult> {
    toEmulatorAssumptionsOptions()
    const {renderAssumptions} = await import('../../output/emulator-assumptions.js')
    const {lineWidth} = await import('../../output/wrap.js')
    this.print(renderAssumptions(ASSUMPTION_RULE, ASSUMPTIONS, lineWidth(this.ctx.io.stdout)))
    return {rule: ASSUMPTION_RULE, assumptions: ASSUMPTIONS}
  }
}

/** The table is fixed: the command takes no flag or argument of its own, so there is nothing to check. */
export function toEmulatorAssumptionsOptions(): Record<string, never> {
  return {}
}
