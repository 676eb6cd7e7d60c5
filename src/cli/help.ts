/**
 * oclif's help, naming paytx as the user ran it: `./bin/run.js` in a clone, where `paytx` is not
 * on the PATH, as every hint does (terminal/invoked-name.ts). oclif's `config.bin` stays `paytx`
 * for everything else (its environment variables are PAYTX_*).
 */
import type {Config} from '@oclif/core/config'
import {Help} from '@oclif/core/help'
import type {Interfaces} from '@oclif/core'

import * as Errors from '@oclif/core/errors'

import {wrapFailureText} from '../output/failure-text.js'
import {lineWidth} from '../output/wrap.js'
import {commandLine, invokedName} from '../terminal/invoked-name.js'
import {unknownCommandLines} from './unknown-command.js'

/** The config as help sees it: the same, but `bin` is the name the user typed. */
function namedAsInvoked(config: Interfaces.Config): Interfaces.Config {
  const invokedAs = invokedName()
  if (invokedAs === config.bin) return config
  return new Proxy(config, {get: (target, key) => (key === 'bin' ? invokedAs : Reflect.get(target, key, target))}) as Config
}

export default class PaytxHelp extends Help {
  constructor(config: Interfaces.Config, options?: Partial<Interfaces.HelpOptions>) {
    super(namedAsInvoked(config), options)
  }

  /**
   * Help for a command or topic; for a name that is neither (`paytx help statsu`), paytx's own
   * error with the closest command, exit 2, instead of oclif's `Command statsu not found`.
   */
  override async showHelp(argv: string[]): Promise<void> {
    const firstFlag = argv.findIndex((arg) => arg.startsWith('-'))
    const subject = firstFlag === -1 ? argv : argv.slice(0, firstFlag)
    if (subject.length > 0 && !this.knows(subject)) {
      const known = this.config.commandIDs.map((id) => id.split(':').join(' '))
      const lines = unknownCommandLines(subject, known, commandLine, true)
      process.stderr.write(`${wrapFailureText(lines.join('\n'), lineWidth(process.stderr))}\n`)
      Errors.exit(2)
    }
    return super.showHelp(argv)
  }

  /** Whether the first words of `subject` name a command or a topic. */
  private knows(subject: readonly string[]): boolean {
    for (let count = subject.length; count > 0; count--) {
      const id = subject.slice(0, count).join(':')
      if (this.config.findCommand(id) || this.config.findTopic(id)) return true
    }
    return false
  }
}
