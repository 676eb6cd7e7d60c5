/**
 * The tunnel flags `flow` and `webhook listen` share, and the one reading of them: which program
 * (or template) to run and how long it has to report its address. Wrong values are an
 * InputError (exit 2) before anything starts.
 */
import * as Flags from '@oclif/core/flags'

import {parseDuration} from '../duration.js'
import {InputError} from '../errors.js'
import {TUNNEL_PROGRAMS, type TunnelProgramName, type TunnelRequest, templateProblem} from '../tunnel/tunnel-program.js'

export type {TunnelRequest} from '../tunnel/tunnel-program.js'

export const DEFAULT_TUNNEL_TIMEOUT = '30s'

export const tunnelFlags = {
  tunnel: Flags.string({
    summary: 'Start this tunnel program (installed by you) to a public https address, and stop it at the end.',
    options: [...TUNNEL_PROGRAMS],
    exclusive: ['tunnel-command'],
  }),
  'tunnel-command': Flags.string({
    summary: 'Start any other tunnel: a command with {port} for the local port; its first https:// output line is the address.',
  }),
  'tunnel-timeout': Flags.string({
    summary: 'How long the tunnel program has to report its address.',
    default: DEFAULT_TUNNEL_TIMEOUT,
  }),
}

export interface TunnelFlagValues {
  tunnel?: string
  'tunnel-command'?: string
  'tunnel-timeout': string
}

/** The tunnel asked for, or undefined when none is. */
export function toTunnelRequest(flags: TunnelFlagValues): TunnelRequest | undefined {
  const template = flags['tunnel-command']
  if (flags.tunnel === undefined && template === undefined) return undefined
  const timeoutMs = parseDuration(flags['tunnel-timeout'], '--tunnel-timeout')
  if (template !== undefined) {
    const problem = templateProblem(template)
    if (problem) throw new InputError(`--tunnel-command ${problem} (got "${template}").`, {flag: '--tunnel-command', hint: "For example (localtunnel): --tunnel-command 'lt --port {port}'."})
    return {choice: {template}, timeoutMs}
  }
  return {choice: {program: flags.tunnel as TunnelProgramName}, timeoutMs}
}
