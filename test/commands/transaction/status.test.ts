/** How `status --wait` waits, from its flags, in-process. */
import {describe, expect, it} from 'vitest'

import TransactionStatus, {toStatusWaitOptions} from '../../../src/commands/transaction/status.js'
import {TX_ID} from '../../helpers/fixtures.js'
import {parseFlags} from '../../helpers/parse-flags.js'

async function options(argv: string[]) {
  return toStatusWaitOptions(await parseFlags(TransactionStatus, [TX_ID, '--wait', ...argv]))
}

describe('toStatusWaitOptions', () => {
  it.each([
    [[], {timeoutMs: 600_000, until: 'final'}],
    [['--wait-timeout', '90s'], {timeoutMs: 90_000, until: 'final'}],
    [['--wait-timeout', '1500ms', '--until', 'settled'], {timeoutMs: 1500, until: 'settled'}],
  ])('%j waits %j', async (argv, expected) => {
    expect(await options(argv)).toEqual(expected)
  })

  it.each([['soon'], ['0'], ['-5s']])('refuses --wait-timeout %j naming the flag', async (value) => {
    await expect(options(['--wait-timeout', value])).rejects.toMatchObject({
      flag: '--wait-timeout',
      exitCode: 2,
      message: expect.stringContaining('--wait-timeout must be a duration greater than 0'),
    })
  })

  it('leaves --until without --wait to oclif’s parser', async () => {
    await expect(parseFlags(TransactionStatus, [TX_ID, '--until', 'settled'])).rejects.toThrow(/--wait/)
  })
})
