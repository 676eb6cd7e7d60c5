/**
 * Which program makes the tunnel, how it is started for a local port, and where in its output
 * it says its public address: cloudflared's quick tunnel (no account needed) prints a
 * https://<words>.trycloudflare.com address in its log on stderr; ngrok, asked for a JSON log on
 * stdout, prints a `"msg":"started tunnel"` line with the `url`; any other tool (a template with
 * `{port}`) is taken at its first https:// address.
 */

export const TUNNEL_PROGRAMS = ['cloudflared', 'ngrok'] as const
export type TunnelProgramName = (typeof TUNNEL_PROGRAMS)[number]

export type TunnelChoice = {program: TunnelProgramName} | {template: string}

/** A tunnel to start: the program, and how long it has to report its address. */
export interface TunnelRequest {
  choice: TunnelChoice
  timeoutMs: number
  /** Told once as the program starts (set by the command, not a flag): what paytx waits for, how long at most, how to stop. */
  announce?: (line: string) => void
}

export interface TunnelProgram {
  /** What messages call it: the program's name, or the template's first word. */
  name: string
  command: string
  args: string[]
  /** The public address in one line of its output, if this line has it. */
  readAddress(line: string): string | undefined
  /** What to do when the program is not installed. */
  install: string
}

const QUICK_TUNNEL_ADDRESS = /https:\/\/[a-z0-9-]+\.trycloudflare\.com\b/i
const ANY_HTTPS_ADDRESS = /https:\/\/[^\s"'|<>]+/i

function ngrokAddress(line: string): string | undefined {
  if (!line.trimStart().startsWith('{')) return undefined
  try {
    const entry = JSON.parse(line) as {msg?: unknown; url?: unknown}
    return entry.msg === 'started tunnel' && typeof entry.url === 'string' && entry.url.startsWith('https://') ? entry.url : undefined
  } catch {
    return undefined
  }
}

/**
 * A template's words, split as a shell would split simple words: spaces separate, single and
 * double quotes group (no expansion, no escapes inside single quotes). Undefined when a quote is
 * left open.
 */
export function splitTemplate(template: string): string[] | undefined {
  const words: string[] = []
  let word: string | undefined
  let quote: '"' | "'" | undefined
  for (let index = 0; index < template.length; index++) {
    const char = template[index]
    if (quote) {
      if (char === quote) quote = undefined
      else if (char === '\\' && quote === '"' && index + 1 < template.length) word = (word ?? '') + template[++index]
      else word = (word ?? '') + char
    } else if (char === '"' || char === "'") {
      quote = char
      word ??= ''
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word)
      word = undefined
    } else if (char === '\\' && index + 1 < template.length) word = (word ?? '') + template[++index]
    else word = (word ?? '') + char
  }
  if (quote) return undefined
  if (word !== undefined) words.push(word)
  return words
}

/** What is wrong with a --tunnel-command template, or undefined when it can be used. */
export function templateProblem(template: string): string | undefined {
  const words = splitTemplate(template)
  if (!words) return 'has a quote that is never closed'
  if (words.length === 0) return 'is empty'
  if (!template.includes('{port}')) return 'must contain {port}, where the local port goes'
  return undefined
}

export function tunnelProgram(choice: TunnelChoice, port: number): TunnelProgram {
  if ('template' in choice) {
    const [command, ...args] = (splitTemplate(choice.template) ?? []).map((word) => word.replaceAll('{port}', String(port)))
    return {
      name: command,
      command,
      args,
      readAddress: (line) => ANY_HTTPS_ADDRESS.exec(line)?.[0].replace(/[.,;)]+$/, ''),
      install: `Check that ${command} is installed and on PATH, or fix --tunnel-command.`,
    }
  }
  if (choice.program === 'cloudflared') {
    return {
      name: 'cloudflared',
      command: 'cloudflared',
      args: ['tunnel', '--url', `http://localhost:${port}`],
      readAddress: (line) => QUICK_TUNNEL_ADDRESS.exec(line)?.[0],
      install:
        'Install cloudflared (https://developers.cloudflare.com/cloudflare-one/connections/connect-apps/install-and-setup/installation/); a quick tunnel needs no Cloudflare account. Or use --tunnel ngrok, or --tunnel-command for another tool.',
    }
  }
  return {
    name: 'ngrok',
    command: 'ngrok',
    args: ['http', String(port), '--log', 'stdout', '--log-format', 'json'],
    readAddress: ngrokAddress,
    install: 'Install ngrok (https://ngrok.com/download) and add your authtoken once with `ngrok config add-authtoken <token>`. Or use --tunnel cloudflared, which needs no account.',
  }
}
