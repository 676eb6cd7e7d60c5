/** `smoke merge`'s files and flags, in-process. */
import {describe, expect, it} from 'vitest'

import SmokeMerge, {toSmokeMergeOptions} from '../../../src/commands/smoke/merge.js'
import {parseFlags} from '../../helpers/parse-flags.js'

describe('toSmokeMergeOptions', () => {
  it.each([
    [[], ['a.xml'], false, {files: ['a.xml'], output: undefined}],
    [['--output', 'all.xml'], ['a.xml', 'b.xml'], true, {files: ['a.xml', 'b.xml'], output: 'all.xml'}],
  ])('%j %j (json %s)', async (argv, files, json, expected) => {
    expect(toSmokeMergeOptions(await parseFlags(SmokeMerge, argv), files, {json, invokedAs: 'paytx'})).toEqual(expected)
  })

  it.each([
    [[], [], false, 'files', /`npx paytx smoke merge smoke-\*\.xml`/],
    [[], ['a.xml'], true, '--output', /--json needs --output/],
  ])('refuses %j %j (json %s) naming %s', async (argv, files, json, flag, message) => {
    const flags = await parseFlags(SmokeMerge, argv)
    expect(() => toSmokeMergeOptions(flags, files, {json, invokedAs: 'npx paytx'})).toThrow(message)
    expect(() => toSmokeMergeOptions(flags, files, {json, invokedAs: 'npx paytx'})).toThrow(expect.objectContaining({flag}))
  })
})
