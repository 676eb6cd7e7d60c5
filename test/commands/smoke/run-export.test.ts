/** `smoke run` exports the parser of src/smoke/run-options.ts (its it.each tables: run.test.ts), called with the command's own flags. */
import {describe, expect, it} from 'vitest'

import SmokeRun, {toSmokeRunOptions} from '../../../src/commands/smoke/run.js'
import {toSmokeRunOptions as fromSmokeFolder} from '../../../src/smoke/run-options.js'
import {parseFlags} from '../../helpers/parse-flags.js'

describe('toSmokeRunOptions, as smoke run exports it', () => {
  it('is the parser of src/smoke/run-options.ts', () => {
    expect(toSmokeRunOptions).toBe(fromSmokeFolder)
  })

  it.each([
    [[], {}, {concurrency: 4, shard: undefined}],
    [['--concurrency', '2'], {}, {concurrency: 2}],
    [[], {CI_NODE_INDEX: '2', CI_NODE_TOTAL: '3'}, {shard: {index: 2, total: 3}}],
  ])('%j with environment %j: %j', async (argv, env, expected) => {
    expect(toSmokeRunOptions(await parseFlags(SmokeRun, ['scenario.yaml', ...argv]), env)).toMatchObject(expected)
  })
})
