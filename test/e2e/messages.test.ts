/**
 * oclif's own messages in paytx's voice (issue 37, item 3), as the spawned CLI shows them: the
 * not-found hook, the help class and bare `paytx` run outside any command, so they are spawned;
 * the escape codes of a missing flag are seen through a real pseudo-terminal.
 */
import {describe, expect, it} from 'vitest'

import {runCli} from '../helpers/cli.js'
import {ptyAvailable, runInPty} from '../helpers/pty.js'
import {startScreen} from '../../src/cli/start-screen.js'

describe('did you mean, for commands', () => {
  it('a mistyped command with an argument (paytx stauts <id>) names the command with the argument kept, exit 2', async () => {
    const result = await runCli(['stauts', '9a2e0000'])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe('Error: unknown command "stauts".\nHint: did you mean `./bin/run.js status 9a2e0000`? See `./bin/run.js help` for all commands.\n')
  })

  it('help of a mistyped command (paytx help statsu) names the closest command’s help in paytx’s style, exit 2', async () => {
    const result = await runCli(['help', 'statsu'])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe('Error: unknown command "statsu".\nHint: did you mean `./bin/run.js help status`? See `./bin/run.js help` for all commands.\n')
    const far = await runCli(['help', 'frobnicate'])
    expect(far.code).toBe(2)
    expect(far.stderr).toBe('Error: unknown command "frobnicate".\nHint: see `./bin/run.js help` for all commands.\n')
  })

  it('help of a known command, a topic and a command with flags is still help', async () => {
    for (const args of [['help', 'status'], ['help', 'transaction'], ['flow', '--product', 'dummy', '-h']]) {
      const result = await runCli(args)
      expect(result.code, args.join(' ')).toBe(0)
      expect(result.stdout).toContain('USAGE')
    }
  })
})

describe('bare paytx', () => {
  it('names the two commands to start with and where help is, exit 0', async () => {
    const result = await runCli([])
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('')
    expect(result.stdout).toBe(`${startScreen('./bin/run.js', undefined)}\n`)
    expect(result.stdout).toContain('\n  ./bin/run.js flow --product dummy --amount 1499 --approve SETTLEMENT_COMPLETED\n')
    expect(result.stdout).toContain('\n  ./bin/run.js status <id>\n')
    expect(result.stdout).toContain('`./bin/run.js help`')
    expect(result.stdout).toContain('`./bin/run.js help <command>`')
    // --help still lists every command.
    const help = await runCli(['--help'])
    expect(help.stdout).toContain('COMMANDS')
  })

  it.each([40, 60, 80, 120, 200])('fits %i columns, words whole', (width) => {
    const screen = startScreen('paytx', width)
    for (const line of screen.split('\n')) expect(line.length).toBeLessThan(width)
    expect(screen.split(/\s+/)).toEqual(startScreen('paytx', undefined).split(/\s+/))
  })
})

describe.skipIf(!ptyAvailable)('a missing required flag at a real terminal', () => {
  it.each([
    [['flow', '--no-input'], ['--product', 'Payment product; one of card, sofort, dummy.', '--amount', 'Amount in minor units: 1499 for 14.99 EUR.', 'flow --help']],
    [['webhook', 'replay', 'saved.ndjson'], ['--to', 'The address to send the webhooks to', 'webhook replay --help']],
  ])('%j shows no escape codes, raw or spelled out, and each flag with what it is for, exit 2', async (args, expected) => {
    // Colour allowed: oclif dims its own message then, which paytx showed as a literal \x1b[2m.
    const session = runInPty(args, {env: {NO_COLOR: undefined, FORCE_COLOR: undefined}})
    expect(await session.exited).toBe(2)
    const output = session.output()
    expect(output).toContain('Missing required flag')
    expect(output).not.toContain('\\x1b')
    expect(output).not.toMatch(/\x1b\[\d*m/)
    for (const text of expected) expect(output).toContain(text)
  })
})

describe.skipIf(!ptyAvailable)('flow at a real terminal without --product and --amount', () => {
  it('asks for the product (a list) and the amount, checking it as it is typed, then goes on with the answers', async () => {
    // A wrong --wait-timeout stops the flow right after the answers are taken, before anything is sent.
    const session = runInPty(['flow', '--wait-timeout', 'soon'])
    await session.waitFor(/Payment product/)
    session.type('\x1b[B\r')
    await session.waitFor(/Amount in minor units/)
    session.type('14.99\r')
    await session.waitFor(/Amount is in minor units, a whole number without a decimal point/)
    session.type(`${'\x7f'.repeat(5)}1499\r`)
    expect(await session.exited).toBe(2)
    expect(session.output()).toMatch(/Payment product.*sofort/)
    expect(session.output()).toContain('Error: --wait-timeout')
    expect(session.output()).not.toContain('Missing required flag')
  })
})

