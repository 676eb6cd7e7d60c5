import type {Hook} from '@oclif/core'

import {wrapFailureText} from '../../output/failure-text.js'
import {lineWidth} from '../../output/wrap.js'
import {commandLine} from '../../terminal/invoked-name.js'
import {unknownCommandLines} from '../unknown-command.js'

/**
 * An unknown command: name the closest command in paytx's own error style, with space-separated
 * names, and exit 2. Never prompts: paytx runs in scripts as often as in terminals.
 */
const hook: Hook.CommandNotFound = async function (options) {
  const known = options.config.commandIDs.map((id) => id.split(':').join(' '))
  const lines = unknownCommandLines(options.id.split(':'), known, commandLine)
  process.stderr.write(`${wrapFailureText(lines.join('\n'), lineWidth(process.stderr))}\n`)
  this.exit(2)
}

export default hook
