/**
 * The examples in README.md and docs/**\/*.md: every `paytx` (or `./bin/run.js`) command in a shell
 * block names a command and flags that exist (oclif.manifest.json, written by the build), and
 * blocks marked `<!-- example: offline -->` run, command by command, against the emulator each
 * command embeds, and exit 0. Blocks that need the real service, a tunnel, CI variables or the
 * user's shell files are marked `<!-- example: not-offline -->` and only checked.
 */
import {existsSync, readFileSync, readdirSync} from 'node:fs'
import {join, relative} from 'node:path'

import {describe, expect, it} from 'vitest'

import {ROOT, runCli} from './helpers/cli.js'
import {freePort} from './helpers/ports.js'

interface Example {
  file: string
  line: number
  mark: string | undefined
  commands: string[][]
}

interface ManifestCommand {
  aliases?: string[]
  flags: Record<string, {char?: string; allowNo?: boolean; type: string}>
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, ManifestCommand>}
/** Commands of the plugins (not in the manifest) and oclif's own flags. */
const PLUGIN_COMMANDS = new Set(['help', 'autocomplete', 'autocomplete:script'])
const OCLIF_FLAGS = new Set(['help', 'version'])

function docFiles(): string[] {
  const docs = join(ROOT, 'docs')
  const underDocs = existsSync(docs) ? readdirSync(docs, {recursive: true, encoding: 'utf8'}).filter((name) => name.endsWith('.md')).map((name) => join(docs, name)) : []
  return [join(ROOT, 'README.md'), ...underDocs.sort()]
}

/** Shell words of a line, quotes removed (enough for examples: no escapes inside quotes). */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3])
}

/** The paytx commands of a shell block: lines joined at `\`, comments dropped, split at pipes and `&&`. */
function commandsIn(code: string): string[][] {
  const lines = code.replace(/\\\n\s*/g, ' ').split('\n')
  const commands: string[][] = []
  for (const line of lines) {
    // A `$ ` prompt (console blocks) and comments are not part of the command.
    const withoutComment = line.replace(/^\s*\$ /, '').replace(/(^|\s)#.*$/, '')
    for (const part of withoutComment.split(/\|\||&&|\||;|\$\(/)) {
      const tokens = words(part.trim())
      const start = tokens.findIndex((token) => token === 'paytx' || token === './bin/run.js')
      if (start === -1 || (start > 0 && !/^[A-Z_]+=/.test(tokens[start - 1]) && tokens[start - 1] !== 'npx')) continue
      commands.push(tokens.slice(start + 1).map((token) => token.replace(/\)$/, '')))
    }
  }
  return commands
}

function examples(file: string): Example[] {
  const text = readFileSync(file, 'utf8')
  const found: Example[] = []
  for (const match of text.matchAll(/(?:<!-- example: ([\w-]+) -->\n)?```(sh|bash|console)\n([\s\S]*?)```/g)) {
    const line = text.slice(0, match.index).split('\n').length
    found.push({file: relative(ROOT, file), line, mark: match[1], commands: commandsIn(match[3])})
  }
  return found
}

/** The command an argument list names (the longest run of leading words that is one), with its flags. */
function resolveCommand(args: string[]): {id: string; command?: ManifestCommand} | undefined {
  const topics = args.slice(0, args.findIndex((arg) => arg.startsWith('-') || /[^a-z-]/.test(arg)) >>> 0)
  for (let length = Math.min(topics.length, 3); length > 0; length--) {
    const id = topics.slice(0, length).join(':')
    if (manifest.commands[id]) return {id, command: manifest.commands[id]}
    const aliased = Object.values(manifest.commands).find((command) => command.aliases?.includes(id))
    if (aliased) return {id, command: aliased}
    if (PLUGIN_COMMANDS.has(id)) return {id}
  }
  return undefined
}

/** What is wrong with one example command: an unknown command or flag. */
function problems(args: string[]): string[] {
  if (args.length === 0 || args[0].startsWith('-')) return args.filter((arg) => arg.startsWith('--') && !OCLIF_FLAGS.has(arg.slice(2).split('=')[0])).map((arg) => `unknown flag ${arg}`)
  const resolved = resolveCommand(args)
  if (!resolved) return [`unknown command "${args.slice(0, 3).join(' ')}"`]
  if (!resolved.command) return []
  const flags = resolved.command.flags
  const chars = new Set(Object.values(flags).map((flag) => flag.char).filter(Boolean))
  return args
    .filter((arg) => arg.startsWith('-') && arg !== '-' && arg !== '--' && !/^-\d/.test(arg))
    .flatMap((arg) => {
      if (!arg.startsWith('--')) return [...arg.slice(1)].every((char) => chars.has(char) || char === 'h') ? [] : [`unknown flag ${arg} of ${resolved.id}`]
      const name = arg.slice(2).split('=')[0]
      if (flags[name] || OCLIF_FLAGS.has(name)) return []
      if (name.startsWith('no-') && flags[name.slice(3)]?.allowNo) return []
      return [`unknown flag --${name} of ${resolved.id}`]
    })
}

const all = docFiles().flatMap(examples)

describe('examples in the README and docs', () => {
  it('are found (the extractor still reads the files)', () => {
    expect(all.filter((example) => example.commands.length > 0).length).toBeGreaterThan(10)
  })

  it('each say whether they run offline (a mark before every shell block with a paytx command)', () => {
    const unmarked = all.filter((example) => example.commands.length > 0 && !['offline', 'not-offline'].includes(example.mark ?? ''))
    expect(unmarked.map((example) => `${example.file}:${example.line}: add <!-- example: offline --> or <!-- example: not-offline --> before the block`)).toEqual([])
  })

  it('name only commands and flags that exist', () => {
    const wrong = all.flatMap((example) =>
      example.commands.flatMap((args) => problems(args).map((problem) => `${example.file}:${example.line}: paytx ${args.join(' ')}: ${problem}`)),
    )
    expect(wrong).toEqual([])
  })

  const offline = all.filter((example) => example.mark === 'offline')
  it.each(offline.map((example) => [`${example.file}:${example.line}`, example] as const))(
    'the offline example at %s runs on the embedded emulator, exit 0',
    {timeout: 90_000},
    async (_where, example) => {
      for (const args of example.commands) {
        const base = `http://127.0.0.1:${await freePort()}`
        const result = await runCli(args, {env: {PAYTX_BASE_URL: base, PAYTX_H2H_URL: `${base}/h2h`}, timeoutMs: 60_000})
        expect(result.code, `paytx ${args.join(' ')}\n${result.stderr}`).toBe(0)
      }
    },
  )
})
