/**
 * The one place where an error becomes what the user reads and the exit code: paytx's own errors
 * (their message, the service's details by flag, the hint with its remedies in words), oclif's
 * parse errors in paytx's voice (no colour codes, missing flags with what each is for, the
 * closest flag or value for a mistyped one), and anything else as a bug to report.
 * base-command.ts's catch() writes the result; output/failure-text.ts fits it to the terminal.
 */
import {stripVTControlCharacters} from 'node:util'
import * as Errors from '@oclif/core/errors'

import {closestName} from '../closest-name.js'
import {EXIT, PaytxError, ServiceError, detailField} from '../errors.js'
import {secretFlagHint} from '../input/secret-flags.js'
import {wrapFailureText} from '../output/failure-text.js'
import {hintText} from '../output/remedy.js'
import {lineWidth} from '../output/wrap.js'
import {maskCardNumbers, scrubSecrets} from '../secrets/redact.js'
import {visibleLines, visibleText} from '../terminal/visible-text.js'
import {type ArgHelp, type FlagHelp, MissingFlagsError, missingArgsError, missingFlagNames} from './missing-flags.js'

/** What a failure shows: its exit code, its text for stderr (empty: nothing to say) and its --json object. */
export interface Failure {
  exitCode: number
  text: string
  json: Record<string, unknown>
}

/** What the failing command knows that its failure's words need. */
export interface FailureScope {
  /** Values scrubbed from every message (keys, a PAN or CVV read by the command). */
  secrets: readonly string[]
  /** Request field (as in the service's error details) → the flag that set it. */
  fieldFlags: Record<string, string>
  /** How the user ran paytx, for commands named in hints. */
  invokedAs: string
  /** The command's id with spaces (`transaction start`). */
  command: string
  /** The command's flags (its own, the global ones, --json when enabled), by name. */
  flags: Record<string, FlagHelp | undefined>
}

/** The scope of a failure of the command of class `ctor` (id `id`, `transaction:start`): its flags, global ones and --json included. */
export function failureScopeOf(
  ctor: {baseFlags?: object; flags?: object; enableJsonFlag?: boolean},
  id: string | undefined,
  known: Pick<FailureScope, 'secrets' | 'fieldFlags' | 'invokedAs'>,
): FailureScope {
  const flags = {...ctor.baseFlags, ...ctor.flags, ...(ctor.enableJsonFlag ? {json: {summary: 'Format output as json.'}} : {})} as FailureScope['flags']
  return {...known, command: id?.split(':').join(' ') ?? '', flags}
}

/** Where a failure is written, and how. */
export interface FailureOutput {
  io: {stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream & {isTTY?: boolean; columns?: number}}
  /** --json: one document on stdout, or one more line of a JSON-lines stream; undefined: words only. */
  json?: 'document' | 'lines'
  /** --verbose or DEBUG: the stack of an unexpected error follows its words. */
  verbose: boolean
  setExitCode(code: number): void
}

/**
 * Sets the exit code `err` leads to and says it: under --json as the one document's `error`
 * (or, for a stream of JSON lines, one more line, with the words on stderr too); else its words on
 * stderr, each line fitted to the terminal's width.
 */
export function reportFailure(err: Error & {exitCode?: number}, scope: FailureScope, out: FailureOutput): void {
  const failure = describeFailure(err, scope)
  out.setExitCode(failure.exitCode)
  if (out.json === 'document') {
    out.io.stdout.write(`${JSON.stringify({error: failure.json}, null, 2)}\n`)
    return
  }
  // A stream of JSON lines ends with its error as one more line, which a line reader can parse.
  if (out.json === 'lines') out.io.stdout.write(`${JSON.stringify({error: failure.json})}\n`)
  if (failure.exitCode === EXIT.interrupted && !failure.text) return
  out.io.stderr.write(`${wrapFailureText(visibleLines(failure.text), lineWidth(out.io.stderr))}\n`)
  if (out.verbose && err.stack && !(err instanceof PaytxError)) out.io.stderr.write(`${visibleLines(scrubSecrets(err.stack, scope.secrets))}\n`)
}

/** `err` as the user sees it, and the exit code it leads to. */
export function describeFailure(err: Error & {exitCode?: number}, scope: FailureScope): Failure {
  if (err instanceof PaytxError) return describePaytxError(err, scope)
  if (err instanceof Errors.CLIError) return describeParseError(err, scope)
  const message = scrubSecrets(err.message || String(err), scope.secrets)
  return {
    exitCode: EXIT.service,
    text: `Error: ${message}\nHint: this looks like a bug in paytx; run again with --verbose and report it.`,
    json: {kind: 'internal', exitCode: EXIT.service, message},
  }
}

function describePaytxError(err: PaytxError, scope: FailureScope): Failure {
  const scrub = (text: string) => scrubSecrets(text, scope.secrets)
  const lines = [`Error: ${scrub(err.message)}`]
  const json: Record<string, unknown> = JSON.parse(scrub(JSON.stringify(err.toJSON())))
  if (err instanceof ServiceError && err.details) {
    const fields: Record<string, string> = {}
    for (const [key, value] of Object.entries(err.details)) {
      const field = detailField(key)
      const flag = scope.fieldFlags[field]
      const text = Array.isArray(value) ? value.join('; ') : String(value)
      lines.push(`  ${visibleText(field)}${flag ? ` (${flag})` : ''}: ${visibleText(scrub(text))}`)
      if (flag) fields[field] = flag
    }
    if (Object.keys(fields).length > 0) json.flags = fields
  }
  const hint = hintText(err, scope.invokedAs)
  if (hint) {
    lines.push(`Hint: ${scrub(hint)}`)
    json.hint = scrub(hint)
  }
  return {exitCode: err.exitCode, text: lines.join('\n'), json}
}

/**
 * oclif's flag and argument parsing errors are input errors. Its messages carry colour codes
 * (shown as literal `\x1b[2m` once made visible), so they are stripped; they quote flag values and
 * are raised before the command knows its secrets, so card numbers are masked by their shape.
 */
function describeParseError(err: Errors.CLIError, scope: FailureScope): Failure {
  const exit = err.oclif?.exit
  if (exit === 0 || (err as {code?: string}).code === 'EEXIT') return {exitCode: exit ?? 0, text: '', json: {exitCode: exit ?? 0}}
  const plain = stripVTControlCharacters(err.message).replace(/\n\s*See more help with --help$/, '')
  const missing = missingFlagNames(plain)
  if (missing.length > 0) return describePaytxError(new MissingFlagsError(missing, scope.flags, scope.command), scope)
  const args = (err as {args?: unknown}).args
  if (/^Missing \d+ required args?/.test(plain) && Array.isArray(args) && args.length > 0) return describePaytxError(missingArgsError(args as ArgHelp[], scope.command), scope)
  // One problem of oclif's flag checks (exclusive flags, say) is said as itself, not as a list of one.
  const message = maskCardNumbers(scrubSecrets(plain.replace(/^The following error occurred:\n\s*/, ''), scope.secrets))
  const code = exit === undefined || exit === 2 ? EXIT.input : exit
  if (code !== EXIT.input) return {exitCode: code, text: `Error: ${message}`, json: {kind: 'internal', exitCode: code, message}}
  const hint = flagErrorHint(err, scope)
  return {exitCode: code, text: `Error: ${message}\nHint: ${hint}`, json: {kind: 'input', exitCode: code, message, hint}}
}

/** The hint for a flag error, naming the closest known flag or allowed value when one was mistyped. */
function flagErrorHint(err: Errors.CLIError, scope: FailureScope): string {
  const typed = (err as {flags?: unknown}).flags
  const seeHelp = 'see --help for the flags and their allowed values.'
  // oclif's message for a value outside the allowed ones, of a flag (`Expected --product=crad to be
  // one of: card, sofort, dummy`) or of an argument (`Expected DECLIEND to be one of: ...`).
  const option = /^Expected (?:--([\w-]+)=)?(.*) to be one of: (.+)$/m.exec(err.message)
  if (option) {
    const [, flag, value, allowed] = option
    const closest = closestName(value, allowed.split(', '))
    if (!closest) return seeHelp
    return `did you mean \`${flag ? `--${flag} ${closest}` : closest}\`? Or ${seeHelp}`
  }
  if (!Array.isArray(typed) || typeof typed[0] !== 'string') return seeHelp
  const known = Object.keys(scope.flags).map((name) => `--${name}`)
  const secret = secretFlagHint(typed[0], known, `${scope.invokedAs} ${scope.command}`)
  if (secret) return secret
  const closest = closestName(typed[0].split('=')[0], known)
  return closest ? `did you mean \`${closest}\`? Or ${seeHelp}` : seeHelp
}
