import type {Hook} from '@oclif/core'

import {closestName} from '../../closest-name.js'
import {commandLine} from '../../terminal/invoked-name.js'

/**
 * An unknown command: name the closest command in paytx's own error style, with space-separated
 * names, and exit 2. Never prompts: paytx runs in scripts as often as in terminals.
 */
const hook: Hook.CommandNotFound = async function (options) {
  const typed = options.id.split(':').join(' ')
  const known = options.config.commandIDs.map((id) => id.split(':').join(' '))
  const closest = closestName(typed, known)
  const lines = [`Error: unknown command "${typed}".`]
  lines.push(
    closest
      ? `Hint: did you mean \`${commandLine(closest)}\`? See \`${commandLine('help')}\` for all commands.`
      : `Hint: see \`${commandLine('help')}\` for all commands.`,
  )
  process.stderr.write(lines.join('\n') + '\n')
  this.exit(2)
}

export default hook
