/**
 * oclif's help, naming paytx as the user ran it: `./bin/run.js` in a clone, where `paytx` is not
 * on the PATH, as every hint does (terminal/invoked-name.ts). oclif's `config.bin` stays `paytx`
 * for everything else (its environment variables are PAYTX_*).
 */
import type {Config} from '@oclif/core/config'
import {CommandHelp, Help} from '@oclif/core/help'
import type {Command, Interfaces} from '@oclif/core'

import * as Errors from '@oclif/core/errors'

import {wrapFailureText} from '../output/failure-text.js'
import {lineWidth, visibleLength, wrapHanging} from '../output/wrap.js'
import {commandLine, invokedName} from '../terminal/invoked-name.js'
import {unknownCommandLines} from './unknown-command.js'

/** The config as help sees it: the same, but `bin` is the name the user typed. */
function namedAsInvoked(config: Interfaces.Config): Interfaces.Config {
  const invokedAs = invokedName()
  if (invokedAs === config.bin) return config
  return new Proxy(config, {get: (target, key) => (key === 'bin' ? invokedAs : Reflect.get(target, key, target))}) as Config
}

/**
 * The width help is fitted to: `OCLIF_COLUMNS`, else the terminal stdout is on, else 80 (a pipe,
 * a file), as oclif decides it; but read when help is shown, not once when oclif is loaded.
 */
export function helpWidth(stream: {isTTY?: boolean; columns?: number}, env: NodeJS.ProcessEnv): number {
  const forced = Number.parseInt(env.OCLIF_COLUMNS ?? '', 10)
  if (forced > 0) return forced
  return lineWidth(stream) ?? 80
}

/**
 * `text`'s lines broken at spaces to at most `room` visible characters each: never inside a word
 * (oclif's own wrap cuts words, `--pan-st` / `din`); a word longer than the room keeps its line.
 */
export function wrapHelpText(text: string, room: number): string {
  return text
    .split('\n')
    .flatMap((line) => wrapHanging(line, room + 1, 0))
    .join('\n')
}

/** Each line of `text` longer than `room` broken between words, continued under its own indent. */
export function fitHelpLines(text: string, room: number): string {
  return text
    .split('\n')
    .flatMap((line) => (visibleLength(line) <= room ? [line] : wrapHanging(line, room + 1, /^ */.exec(line)?.[0] ?? '')))
    .join('\n')
}

/**
 * An example command line as lines of at most `room` characters that still paste: broken between
 * words (never inside quotes), each line but the last ending with ` \\`, the next indented by 4.
 * A word too long for a line keeps it whole.
 */
export function wrapExample(line: string, room: number): string[] {
  if (visibleLength(line) <= room) return [line]
  const lead = /^ */.exec(line)?.[0] ?? ''
  const words = line.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g) ?? [line]
  const lines: string[] = []
  let current = ''
  for (const word of words) {
    const indent = lines.length === 0 ? lead : `${lead}    `
    if (current && visibleLength(`${indent}${current} ${word} \\`) > room) {
      lines.push(`${indent}${current} \\`)
      current = word
    } else current = current ? `${current} ${word}` : word
  }
  lines.push(`${lines.length === 0 ? lead : `${lead}    `}${current}`)
  return lines
}

/** A command's help fitted to the width: text wrapped between words, long examples continued with ` \\`. */
class PaytxCommandHelp extends CommandHelp {
  override wrap(body: string, spacing: number = this.indentSpacing): string {
    return wrapHelpText(this.render(body), this.opts.maxWidth - spacing)
  }

  /**
   * The usage line(s) as oclif builds them, then broken again between words at the width: oclif
   * measures the line before it fills in the command's name, so its first break can come early.
   */
  protected override usage(): string {
    const room = this.opts.maxWidth - this.indentSpacing
    const entries = super.usage().split(/\n(?=\S*\$ )/)
    return entries.map((entry) => wrapHanging(entry.replaceAll(/\n\s+/g, ' '), room + 1, 2).join('\n')).join('\n')
  }

  protected override examples(examples: Command.Example[] | string | undefined): string | undefined {
    const body = super.examples(examples)
    if (body === undefined) return body
    // The section indents its body by indentSpacing.
    const room = this.opts.maxWidth - this.indentSpacing
    return body
      .split('\n')
      .flatMap((line) => (line.trimEnd().endsWith('\\') ? [line] : wrapExample(line, room)))
      .join('\n')
  }
}

export default class PaytxHelp extends Help {
  override CommandHelpClass = PaytxCommandHelp

  constructor(config: Interfaces.Config, options?: Partial<Interfaces.HelpOptions>) {
    // The last column is left free, as every paytx line leaves it (a full line wraps on some terminals).
    super(namedAsInvoked(config), {maxWidth: helpWidth(process.stdout, process.env) - 1, ...options})
  }

  override wrap(body: string, spacing: number = this.indentSpacing): string {
    return wrapHelpText(this.render(body), this.opts.maxWidth - spacing)
  }

  /**
   * Every line help writes, fitted last: oclif writes a command's summary unwrapped and indents a
   * flag's long description past the width it wrapped it to; such a line is broken between words,
   * its continuations under its own indent.
   */
  protected override log(...args: string[]): void {
    this.output(args.map((text) => fitHelpLines(text, this.opts.maxWidth)))
  }

  /** Writes help's fitted text (oclif's way: console.log on stdout); a test captures it here. */
  protected output(texts: string[]): void {
    super.log(...texts)
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
