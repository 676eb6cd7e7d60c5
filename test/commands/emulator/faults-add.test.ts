/** `emulator faults add`'s flags as the rule to add, in-process: one row per input. */
import {describe, expect, it} from 'vitest'

import EmulatorFaultsAdd, {toFaultsAddOptions} from '../../../src/commands/emulator/faults/add.js'
import {parseFlags} from '../../helpers/parse-flags.js'

describe('toFaultsAddOptions', () => {
  it.each([
    [['--file', 'examples/faults.yaml'], {file: 'examples/faults.yaml'}],
    [['--fault', 'status', '--http-status', '503', '--method', 'get', '--path', '/v1/transaction/*', '--times', '1'], {rule: {fault: 'status', status: 503, times: 1, request: {method: 'GET', path: '/v1/transaction/*'}}}],
    [['--fault', 'drop', '--webhook-status', 'SETTLEMENT_REQUESTED'], {rule: {fault: 'drop', webhook: {status: 'SETTLEMENT_REQUESTED'}}}],
  ])('%j', async (argv, expected) => {
    expect(toFaultsAddOptions(await parseFlags(EmulatorFaultsAdd, argv))).toMatchObject(expected)
  })

  it.each([
    [[], '--fault'],
    [['--fault', 'status', '--webhook-status', 'DECLINED'], '--webhook-status'],
    [['--fault', 'drop', '--method', 'GET'], '--method'],
    [['--fault', 'status', '--probability', 'often', '--http-status', '503'], '--probability'],
  ])('refuses %j naming %s', async (argv, flag) => {
    const flags = await parseFlags(EmulatorFaultsAdd, argv)
    expect(() => toFaultsAddOptions(flags)).toThrow(expect.objectContaining({exitCode: 2, flag}))
  })
})
