/**
 * Every command exports its options parser (`toXOptions`), so that what it accepts is tested
 * in-process, without spawning the CLI. help and autocomplete/* are oclif's plugin commands,
 * re-exported as they are: they are left out.
 */
import {readdirSync} from 'node:fs'
import {join, relative} from 'node:path'
import {pathToFileURL} from 'node:url'
import {describe, expect, it} from 'vitest'

import {ROOT} from '../helpers/cli.js'

const COMMANDS = join(ROOT, 'src', 'commands')
const PLUGIN_COMMANDS = /^(help\.ts|autocomplete\/)/

function commandFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? commandFiles(path) : entry.name.endsWith('.ts') ? [relative(COMMANDS, path)] : []
  })
}

const ours = commandFiles(COMMANDS)
  .filter((file) => !PLUGIN_COMMANDS.test(file))
  .sort()

describe('command option parsers', () => {
  it('finds the commands (and leaves out only the plugin ones)', () => {
    expect(ours.length).toBeGreaterThan(25)
    expect(commandFiles(COMMANDS).filter((file) => PLUGIN_COMMANDS.test(file)).sort()).toEqual(['autocomplete/create.ts', 'autocomplete/index.ts', 'autocomplete/script.ts', 'help.ts'])
  })

  it.each(ours)('src/commands/%s exports a to…Options function', async (file) => {
    const module = (await import(pathToFileURL(join(COMMANDS, file)).href)) as Record<string, unknown>
    const parsers = Object.entries(module).filter(([name, value]) => /^to[A-Z]\w*Options$/.test(name) && typeof value === 'function')
    expect(parsers.map(([name]) => name)).not.toEqual([])
  })
})
