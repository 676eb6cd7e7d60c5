import {describe, expect, it} from 'vitest'

import {runCli} from '../helpers/cli.js'

describe('paytx help, -h and mistyped names', () => {
  // Run from a clone (bin/run.js), help names paytx as the user ran it, as the hints do.
  it('prints help for a command through `help` and through -h', async () => {
    const viaHelp = await runCli(['help', 'flow'])
    expect(viaHelp.code).toBe(0)
    expect(viaHelp.stdout).toContain('$ ./bin/run.js flow --product card|sofort|dummy --amount <value>')
    expect(viaHelp.stdout).not.toMatch(/\$ paytx /)
    expect(viaHelp.stdout).toContain('EXIT CODES')
    const viaFlag = await runCli(['flow', '-h'])
    expect(viaFlag.code).toBe(0)
    expect(viaFlag.stdout).toBe(viaHelp.stdout)
  })

  it('prints help for a topic through `help` and through -h', async () => {
    const viaHelp = await runCli(['help', 'transaction'])
    expect(viaHelp.code).toBe(0)
    expect(viaHelp.stdout).toContain('$ ./bin/run.js transaction COMMAND')
    expect(viaHelp.stdout).toContain('transaction start')
    const viaFlag = await runCli(['transaction', '-h'])
    expect(viaFlag.code).toBe(0)
    expect(viaFlag.stdout).toContain('$ ./bin/run.js transaction COMMAND')
  })

  it('names the closest command, space-separated, in paytx error style, exit 2', async () => {
    const result = await runCli(['transaction', 'strat'])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(
      'Error: unknown command "transaction strat".\nHint: did you mean `./bin/run.js transaction start`? See `./bin/run.js help` for all commands.\n',
    )
    const top = await runCli(['statsu'])
    expect(top.code).toBe(2)
    expect(top.stderr).toContain('Hint: did you mean `./bin/run.js status`?')
  })

  it('points to help alone when nothing is close, exit 2', async () => {
    const result = await runCli(['frobnicate'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe('Error: unknown command "frobnicate".\nHint: see `./bin/run.js help` for all commands.\n')
  })

  it.each([
    [['flow', '--product', 'dummy', '--amout', '5'], '--amout', '--amount'],
    [['status', '--jsno', 'tx_1'], '--jsno', '--json'],
    [['status', '--profle', 'tx_1'], '--profle', '--profile'],
    [['status', '--VERBOSE', 'tx_1'], '--VERBOSE', '--verbose'],
  ])('names the closest flag for a mistyped one (the json and shared flags too; two swapped letters are one mistake), exit 2, nothing sent: %j', async (args, typed, meant) => {
    const result = await runCli(args)
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(`Error: Nonexistent flag: ${typed}\nHint: did you mean \`${meant}\`? Or see --help for the flags and their allowed values.\n`)
  })

  it('names the closest allowed value for a mistyped one, exit 2, nothing sent', async () => {
    const result = await runCli(['flow', '--product', 'crad', '--amount', '5'])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(
      'Error: Expected --product=crad to be one of: card, sofort, dummy\nHint: did you mean `--product card`? Or see --help for the flags and their allowed values.\n',
    )
    const json = await runCli(['flow', '--product', 'crad', '--amount', '5', '--json'])
    expect(json.code).toBe(2)
    expect(json.stderr).toBe('')
    expect(JSON.parse(json.stdout)).toEqual({
      error: {
        kind: 'input',
        exitCode: 2,
        message: 'Expected --product=crad to be one of: card, sofort, dummy',
        hint: 'did you mean `--product card`? Or see --help for the flags and their allowed values.',
      },
    })
    const far = await runCli(['flow', '--product', 'paypal', '--amount', '5'])
    expect(far.code).toBe(2)
    expect(far.stderr).toBe('Error: Expected --product=paypal to be one of: card, sofort, dummy\nHint: see --help for the flags and their allowed values.\n')
  })

  it('names the closest allowed value of an argument too, exit 2', async () => {
    const result = await runCli(['emulator', 'trigger', '00000000-0000-4000-8000-000000000000', 'DECLIEND'])
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toMatch(/^Error: Expected DECLIEND to be one of: INITIATED, .*DECLINED.*\nHint: did you mean `DECLINED`\? Or see --help/)
  })
})
