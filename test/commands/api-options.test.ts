/** `api` exports the parser that src/input/api-request.ts holds (tested in full in test/input/api-request.test.ts). */
import {describe, expect, it} from 'vitest'

import Api, {toApiOptions} from '../../src/commands/api.js'
import {parseFlags} from '../helpers/parse-flags.js'

const noInput = {
  readStdin: () => Promise.reject(new Error('stdin is not read here')),
  readFile: () => Promise.reject(new Error('no file is read here')),
}

describe('toApiOptions, as the api command exports it', () => {
  it.each([
    [['/v1/transaction/1'], {method: 'GET', endpoint: '/v1/transaction/1', include: false, yes: false}],
    [['transaction/1/refund', '-F', 'amount=500', '--yes'], {method: 'POST', body: {amount: 500}, yes: true}],
    [['/v1/customer', '-X', 'put', '-f', 'first_name=Jane', '--include'], {method: 'PUT', body: {first_name: 'Jane'}, include: true}],
  ])('%j gives %j', async (argv, expected) => {
    const flags = await parseFlags(Api, argv)
    const path = argv[0]
    expect(await toApiOptions({...flags, path}, noInput)).toMatchObject(expected)
  })

  it('refuses an unknown method (exit 2)', async () => {
    await expect(toApiOptions({...(await parseFlags(Api, ['/v1/customer', '-X', 'BREW'])), path: '/v1/customer'}, noInput)).rejects.toMatchObject({exitCode: 2})
  })
})
