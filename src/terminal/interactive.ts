/**
 * The one notion of "a person is at this terminal", used by prompts, spinners and live views
 * alike (gh's rule): stdin and stdout are terminals (and stderr, where prompts and spinners are
 * drawn), the terminal can draw (TERM is not "dumb"), this is not a CI job (CI is set), and the
 * user did not ask for --no-input or --json. Otherwise a command never prompts (a missing value
 * is an input error) and prints plain lines.
 */

export interface TerminalStreams {
  stdin: {isTTY?: boolean}
  stdout: {isTTY?: boolean}
  stderr: {isTTY?: boolean}
}

export interface InteractiveOptions {
  noInput: boolean
  json: boolean
}

/** CI services set CI (to "true", "1", a name); "false" and "0" say it is not one. */
export function isContinuousIntegration(env: NodeJS.ProcessEnv): boolean {
  const value = env.CI?.trim().toLowerCase()
  return value !== undefined && value !== '' && value !== 'false' && value !== '0'
}

export function isInteractive(options: InteractiveOptions, env: NodeJS.ProcessEnv = process.env, streams: TerminalStreams = process): boolean {
  const terminals = Boolean(streams.stdin.isTTY && streams.stdout.isTTY && streams.stderr.isTTY)
  return terminals && env.TERM !== 'dumb' && !isContinuousIntegration(env) && !options.noInput && !options.json
}
