/**
 * A command's flags as oclif parses them from argv, in this process: what its `toXOptions`
 * receives when the CLI runs, without spawning it (defaults, options and types included).
 */
import {Parser, type Interfaces} from '@oclif/core'

export async function parseFlags<F extends Interfaces.FlagInput>(command: {flags: F; args?: Interfaces.ArgInput}, argv: string[]): Promise<Interfaces.InferredFlags<F>> {
  const {flags} = await Parser.parse(argv, {flags: command.flags, args: command.args ?? {}, strict: true})
  return flags as Interfaces.InferredFlags<F>
}
