import {mkdtempSync, readFileSync} from 'node:fs'
import {spawnSync} from 'node:child_process'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {buildSync} from 'esbuild'
import {describe, expect, it} from 'vitest'

import {InputError} from '../../src/errors.js'
import {toSmokeRunOptions} from '../../src/smoke/run-options.js'
import {parseScenarioText} from '../../src/input/scenario-source.js'
import {type Scenario, checkScenario} from '../../src/smoke/scenario.js'
import {casesOfShard, parseShard, referenceGroups, shardFromEnvironment, splitIntoShards} from '../../src/smoke/shards.js'
import {ROOT} from '../helpers/cli.js'

function scenario(text: string, file = 'smoke.yaml'): Scenario {
  return checkScenario(parseScenarioText(file, text))
}

const EXAMPLE = join(ROOT, 'examples', 'smoke.yaml')
const example = () => scenario(readFileSync(EXAMPLE, 'utf8'), EXAMPLE)

/** Twelve cases: a chain a→b→c, a pair d←e, one referring to two (f, g ← h), and singles. */
const LINKED = scenario(`
defaults: {product: dummy, amount: 1, outcome: SETTLEMENT_REQUESTED, expect: {success: true}}
cases:
  - {name: a}
  - {name: b, customer: "\${cases.a.customerId}"}
  - {name: c, merchant_reference: "x-\${cases.b.transactionId}"}
  - {name: d}
  - {name: single-1}
  - {name: e, customer: "\${cases.d.customerId}"}
  - {name: f}
  - {name: g}
  - {name: h, customer: "\${cases.f.customerId}", merchant_reference: "\${cases.g.transactionId}"}
  - {name: single-2}
  - {name: single-3}
  - {name: single-4}
`)

const names = (cases: {name: string}[]) => cases.map((smokeCase) => smokeCase.name)

describe('splitting a scenario into shards', () => {
  it('groups cases that refer to each other, directly or through others', () => {
    expect(referenceGroups(LINKED.cases).map(names)).toEqual([['a', 'b', 'c'], ['d', 'e'], ['single-1'], ['f', 'g', 'h'], ['single-2'], ['single-3'], ['single-4']])
  })

  it.each([1, 2, 3, 4, 5, 7, 12, 20])('into %i shards: every case exactly once, referring cases together, balanced', (total) => {
    const shards = splitIntoShards(LINKED.cases, total)
    expect(shards).toHaveLength(total)
    const all = shards.flatMap(names)
    expect(all.toSorted()).toEqual(names(LINKED.cases).toSorted())
    expect(new Set(all).size).toBe(LINKED.cases.length)
    for (const group of [['a', 'b', 'c'], ['d', 'e'], ['f', 'g', 'h']]) {
      expect(shards.filter((shard) => group.some((name) => names(shard).includes(name)))).toHaveLength(1)
      const holder = shards.find((shard) => names(shard).includes(group[0]))!
      expect(names(holder)).toEqual(expect.arrayContaining(group))
    }
    // Within a shard, cases keep the file's order (a case still runs after those it refers to).
    for (const shard of shards) expect(names(shard)).toEqual(names(LINKED.cases).filter((name) => names(shard).includes(name)))
    // Balanced: no shard holds more than the largest group beyond the lightest one.
    const sizes = shards.map((shard) => shard.length)
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(3)
  })

  it('splits the shipped example the same way every time, with its referring cases together', () => {
    const first = [1, 2, 3, 4].map((index) => names(casesOfShard(example().cases, {index, total: 4})))
    const again = [1, 2, 3, 4].map((index) => names(casesOfShard(example().cases, {index, total: 4})))
    expect(again).toEqual(first)
    expect(first.flat().toSorted()).toEqual(names(example().cases).toSorted())
    const holder = (name: string) => first.findIndex((shard) => shard.includes(name))
    expect(holder('dummy-settlement-requested')).toBe(holder('dummy-settled'))
    expect(holder('card-reused')).toBe(holder('card-approved'))
  })

  it('gives the same shards in another Node process, with another time zone and locale', () => {
    // The CLI ships bundled, so the other process runs the same source bundled by esbuild.
    const script = join(mkdtempSync(join(tmpdir(), 'paytx-shards-')), 'split.cjs')
    buildSync({
      stdin: {
        contents: `
          import {readFileSync} from 'node:fs'
          import {parseScenarioText} from './src/input/scenario-source.ts'
          import {checkScenario} from './src/smoke/scenario.ts'
          import {splitIntoShards} from './src/smoke/shards.ts'
          const s = checkScenario(parseScenarioText('x.yaml', readFileSync(${JSON.stringify(EXAMPLE)}, 'utf8')))
          process.stdout.write(JSON.stringify(splitIntoShards(s.cases, 3).map((shard) => shard.map((c) => c.name))))`,
        resolveDir: ROOT,
        loader: 'ts',
      },
      bundle: true,
      format: 'cjs',
      platform: 'node',
      outfile: script,
    })
    const child = spawnSync(process.execPath, [script], {cwd: ROOT, env: {...process.env, TZ: 'Pacific/Chatham', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8'}, encoding: 'utf8', timeout: 25_000})
    expect(child.stderr).toBe('')
    expect(JSON.parse(child.stdout)).toEqual(splitIntoShards(example().cases, 3).map(names))
  })
})

describe('which shard', () => {
  it.each([
    ['1/1', {index: 1, total: 1}],
    ['2/4', {index: 2, total: 4}],
    [' 3 / 3 ', {index: 3, total: 3}],
  ])('parses %j', (text, shard) => {
    expect(parseShard(text)).toEqual(shard)
  })

  it.each(['0/4', '5/4', '2', '2/0', 'a/b', '-1/4', '1.5/4', '1/1001'])('refuses %j', (text) => {
    expect(() => parseShard(text)).toThrow(/--shard must be <index>\/<total>/)
  })

  it.each([
    [{CI_NODE_INDEX: '2', CI_NODE_TOTAL: '4'}, {index: 2, total: 4}, 'GitLab CI'],
    [{CIRCLE_NODE_INDEX: '0', CIRCLE_NODE_TOTAL: '3'}, {index: 1, total: 3}, 'CircleCI'],
    [{BUILDKITE_PARALLEL_JOB: '4', BUILDKITE_PARALLEL_JOB_COUNT: '5'}, {index: 5, total: 5}, 'Buildkite'],
  ])('reads %j', (env, shard, ci) => {
    expect(shardFromEnvironment(env)).toEqual({...shard, source: expect.stringContaining(ci)})
  })

  it('reads nothing outside a parallel CI job, and refuses variables that make no sense', () => {
    expect(shardFromEnvironment({CI: 'true', CI_NODE_TOTAL: '4'})).toBeUndefined()
    expect(() => shardFromEnvironment({CI_NODE_INDEX: '5', CI_NODE_TOTAL: '4'})).toThrow(/CI_NODE_INDEX=5 and CI_NODE_TOTAL=4 \(GitLab CI\) must be/)
    expect(() => shardFromEnvironment({CI_NODE_INDEX: 'x', CI_NODE_TOTAL: '4'})).toThrow(InputError)
  })
})

describe('toSmokeRunOptions', () => {
  const flags = {concurrency: 4, bail: false, open: true, yes: false}

  it.each([
    {name: 'no shard', flags: {}, env: {}, shard: undefined},
    {name: '--shard', flags: {shard: '2/4'}, env: {}, shard: {index: 2, total: 4, source: '--shard 2/4'}},
    {name: 'GitLab variables', flags: {}, env: {CI_NODE_INDEX: '3', CI_NODE_TOTAL: '4'}, shard: {index: 3, total: 4, source: expect.stringContaining('CI_NODE_INDEX=3')}},
    {name: '--shard over the CI variables', flags: {shard: '1/2'}, env: {CI_NODE_INDEX: '3', CI_NODE_TOTAL: '4'}, shard: {index: 1, total: 2, source: '--shard 1/2'}},
    {name: '1/1 is the whole file', flags: {shard: '1/1', only: ['a']}, env: {CI_NODE_INDEX: '1', CI_NODE_TOTAL: '4'}, shard: undefined},
    {name: 'a CI total of 1', flags: {}, env: {CI_NODE_INDEX: '1', CI_NODE_TOTAL: '1'}, shard: undefined},
  ])('$name', ({flags: extra, env, shard}) => {
    expect(toSmokeRunOptions({...flags, ...extra}, env).shard).toEqual(shard)
  })

  it('refuses --only with a shard, naming where the shard came from', () => {
    expect(() => toSmokeRunOptions({...flags, only: ['a']}, {CI_NODE_INDEX: '1', CI_NODE_TOTAL: '2'})).toThrow(/--only and a shard \(CI_NODE_INDEX=1/)
  })
})
