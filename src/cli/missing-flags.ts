/**
 * Flags a command cannot run without, missing: one input error (exit 2, nothing sent) that lists
 * each flag with what it is for (its summary and allowed values, as --help says) and names the
 * command's help. oclif's own "Missing required flag" message becomes this one (cli/failure.ts),
 * and so does a command's own check of flags it asks for on a terminal (flow's --product and
 * --amount).
 */
import {InputError} from '../errors.js'

/** What --help knows of a flag: enough to say what it is for. */
export interface FlagHelp {
  summary?: string
  description?: string
  options?: readonly string[]
}

/** A command's flags for oclif's parser, those it asks a person for when missing (`askedFlags`) not required. */
export function withAskedFlagsOptional<F extends Record<string, {required?: boolean}>>(flags: F | undefined, asked: readonly string[]): F {
  return Object.fromEntries(Object.entries(flags ?? {}).map(([name, flag]) => [name, asked.includes(name) ? {...flag, required: false} : flag])) as F
}

/** One missing flag and what it is for. */
export interface MissingFlag {
  flag: string
  purpose: string
}

/** What a flag is for, in one sentence: its summary, with its allowed values when it has a fixed set. */
export function flagPurpose(help: FlagHelp | undefined): string {
  const summary = (help?.summary ?? help?.description?.split('\n')[0] ?? '').trim().replace(/\.$/, '')
  const options = help?.options && help.options.length > 0 ? `one of ${help.options.join(', ')}` : ''
  const parts = [summary, options].filter(Boolean)
  return parts.length > 0 ? `${parts.join('; ')}.` : ''
}

export class MissingFlagsError extends InputError {
  readonly missing: MissingFlag[]

  /** `names`: the flags' names without dashes; `flags`: the command's flags; `command`: its id with spaces (`flow`). */
  constructor(names: readonly string[], flags: Record<string, FlagHelp | undefined>, command: string) {
    const missing = names.map((name) => ({flag: `--${name}`, purpose: flagPurpose(flags[name])}))
    const width = Math.max(...missing.map((entry) => entry.flag.length))
    const lines = missing.map((entry) => `  ${entry.flag.padEnd(width)}  ${entry.purpose}`.trimEnd())
    super(`Missing required flag${missing.length > 1 ? 's' : ''}:\n${lines.join('\n')}`, {
      flag: missing[0]?.flag,
      remedy: {kind: 'see-help', command},
    })
    this.name = 'MissingFlagsError'
    this.missing = missing
  }

  override toJSON(): ReturnType<InputError['toJSON']> {
    return {...super.toJSON(), missing: this.missing}
  }
}

/** An argument as oclif describes it. */
export interface ArgHelp {
  name: string
  description?: string
  options?: readonly string[]
}

/** Arguments a command cannot run without, missing: each with what it is for (its description and allowed values), and the command's help. */
export function missingArgsError(args: readonly ArgHelp[], command: string): InputError {
  const names = args.map((arg) => arg.name.toUpperCase())
  const width = Math.max(...names.map((name) => name.length))
  const lines = args.map((arg, index) => `  ${names[index].padEnd(width)}  ${flagPurpose(arg)}`.trimEnd())
  return new InputError(`Missing required argument${args.length > 1 ? 's' : ''}:\n${lines.join('\n')}`, {remedy: {kind: 'see-help', command, arguments: true}})
}

/** The flag names in oclif's parse error for missing required flags (`Missing required flag amount`), in order; empty when it is another error. */
export function missingFlagNames(message: string): string[] {
  return [...message.matchAll(/Missing required flag ([\w-]+)/g)].map((match) => match[1])
}
