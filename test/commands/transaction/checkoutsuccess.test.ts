/** `checkoutsuccess` exports the lookup parser it shares with `status`, under its own name, in-process. */
import {describe, expect, it} from 'vitest'

import TransactionCheckoutSuccess, {toCheckoutSuccessOptions} from '../../../src/commands/transaction/checkoutsuccess.js'
import {toLookupOptions} from '../../../src/input/transaction-ids.js'
import {TX_ID} from '../../helpers/fixtures.js'
import {parseFlags} from '../../helpers/parse-flags.js'

const OTHER_ID = '0b1c2d3e-4f50-4617-8a9b-0c1d2e3f4a5b'

async function* linesOf(text: string): AsyncGenerator<Buffer> {
  yield Buffer.from(text)
}

/** The ids as the command's arguments, its flags parsed by oclif as when it runs. */
async function options(ids: string[], argv: string[] = [], stdin = '') {
  const flags = await parseFlags({flags: TransactionCheckoutSuccess.flags}, argv)
  return toCheckoutSuccessOptions({...flags, ids}, {stdin: linesOf(stdin)})
}

describe('toCheckoutSuccessOptions', () => {
  it('is the lookup parser of status', () => {
    expect(toCheckoutSuccessOptions).toBe(toLookupOptions)
  })

  it.each([
    [[TX_ID], [], '', {many: false, csv: false, concurrency: 4, total: 1}],
    [[TX_ID, OTHER_ID], ['--concurrency', '3'], '', {many: true, concurrency: 3, total: 2}],
    [[TX_ID], ['--csv'], '', {many: true, csv: true}],
    [['-'], [], `${TX_ID}\n${OTHER_ID}\n`, {many: true}],
  ])('ids %j, flags %j (stdin %j): %j', async (ids, argv, stdin, expected) => {
    const parsed = await options(ids, argv, stdin)
    expect(parsed).toMatchObject(expected)
    expect(parsed.first.id).toBe(TX_ID)
  })

  it.each([
    [['-'], ['--from-file', '-'], '--from-file'],
    [[TX_ID], ['--concurrency', '0'], '--concurrency'],
  ])('refuses ids %j with %j, naming %s (exit 2)', async (ids, argv, flag) => {
    await expect(options(ids, argv)).rejects.toMatchObject({exitCode: 2, flag})
  })
})
