/** `smoke run`'s flags into how the scenario runs, in-process. */
import {describe, expect, it} from 'vitest'

import SmokeRun from '../../../src/commands/smoke/run.js'
import {toSmokeRunOptions} from '../../../src/smoke/run-options.js'
import {parseFlags} from '../../helpers/parse-flags.js'

async function options(argv: string[], env: Record<string, string> = {}) {
  return toSmokeRunOptions(await parseFlags(SmokeRun, ['scenario.yaml', ...argv]), env)
}

describe('toSmokeRunOptions', () => {
  it.each([
    [[], {only: [], concurrency: 4, bail: false, junit: undefined, openBrowser: true, yes: false}],
    [['--only', 'a,b', '--only', 'c'], {only: ['a', 'b', 'c']}],
    [['--concurrency', '20', '--bail'], {concurrency: 20, bail: true}],
    [['--junit', 'out/results.xml'], {junit: 'out/results.xml'}],
    [['--no-open', '--yes'], {openBrowser: false, yes: true}],
    [['--shard', '2/4'], {shard: {index: 2, total: 4}}],
    [['--shard', '1/1'], {shard: undefined}],
  ])('%j gives %j', async (argv, expected) => {
    expect(await options(argv)).toMatchObject(expected)
  })

  it.each([
    [['--concurrency', '0']],
    [['--concurrency', '201']],
    [['--concurrency', 'many']],
  ])('leaves %j to oclif’s parser (exit 2 through the base command)', async (argv) => {
    await expect(options(argv)).rejects.toThrow(/--concurrency|Expected an integer/)
  })
})
