/**
 * `paytx smoke run --shard` and `paytx smoke merge` in-process against a real emulator on a free
 * port; Ctrl-C on a pseudo-terminal is in test/e2e/smoke-shards.test.ts.
 */
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import type {RunningEmulator} from '../../../src/emulator/index.js'
import {startEmulator} from '../../../src/emulator/index.js'
import {parseJsonOutput} from '../../helpers/cli.js'
import {runCommand} from '../../helpers/run-command.js'
import {parseJUnit} from '../../helpers/junit.js'

const SCENARIO = `
defaults: {product: dummy, amount: 100, outcome: SETTLEMENT_REQUESTED, webhook: none, expect: {success: true}}
cases:
  - {name: first}
  - {name: returning, customer: "\${cases.first.customerId}"}
  - {name: alone-1}
  - {name: declined, outcome: DECLINED, expect: {success: false, status: DECLINED}}
  - {name: after-declined, merchant_reference: "after-\${cases.declined.transactionId}"}
  - {name: alone-2}
  - {name: alone-3}
`
const ALL = ['first', 'returning', 'alone-1', 'declined', 'after-declined', 'alone-2', 'alone-3']

describe('smoke run across CI machines', () => {
  let emulator: RunningEmulator
  let dir: string
  let file: string
  const env = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl})

  beforeAll(async () => {
    emulator = await startEmulator({port: 0, settleAfterMs: 0, pendingForMs: 0})
    dir = mkdtempSync(join(tmpdir(), 'paytx-shards-'))
    file = join(dir, 'smoke.yaml')
    writeFileSync(file, SCENARIO)
  })
  afterAll(() => emulator.close())

  it('runs each shard once, referring cases together, names the shard in JSON and JUnit, and merges the reports', async () => {
    const runs = await Promise.all([
      runCommand(['smoke', 'run', file, '--shard', '1/3', '--json', '--junit', join(dir, 'smoke-1.xml')], {env: env()}),
      runCommand(['smoke', 'run', file, '--shard', '2/3', '--json', '--junit', join(dir, 'smoke-2.xml')], {env: env()}),
      // The third machine has no --shard: GitLab's parallel-job variables say which part it runs.
      runCommand(['smoke', 'run', file, '--json', '--junit', join(dir, 'smoke-3.xml')], {env: {...env(), CI_NODE_INDEX: '3', CI_NODE_TOTAL: '3'}}),
    ])
    const reports = runs.map((run) => {
      expect(run.exitCode, run.stderr).toBe(0)
      return parseJsonOutput<{shard: {index: number; total: number}; cases: {name: string; verdict: string}[]}>(run)
    })
    expect(reports.map((report) => report.shard)).toEqual([1, 2, 3].map((index) => ({index, total: 3})))
    expect(runs[2].stderr).toContain('shard 3/3 from CI_NODE_INDEX=3 and CI_NODE_TOTAL=3 (GitLab CI)')
    const shards = reports.map((report) => report.cases.map((result) => result.name))
    expect(shards.flat().toSorted()).toEqual(ALL.toSorted())
    for (const shard of shards) expect(shard.length).toBeGreaterThan(0)
    const holder = (name: string) => shards.findIndex((shard) => shard.includes(name))
    expect(holder('returning')).toBe(holder('first'))
    expect(holder('after-declined')).toBe(holder('declined'))
    for (const report of reports) for (const result of report.cases) expect(result.verdict, result.name).toBe('passed')

    // The same file gives the same shards on another run.
    const again = await runCommand(['smoke', 'run', file, '--shard', '2/3', '--json'], {env: env()})
    expect(parseJsonOutput(again).cases.map((result: {name: string}) => result.name)).toEqual(shards[1])

    const junits = [1, 2, 3].map((index) => parseJUnit(readFileSync(join(dir, `smoke-${index}.xml`), 'utf8')))
    junits.forEach((junit, index) => {
      expect(junit.rootAttributes.name).toBe(`paytx smoke (shard ${index + 1}/3)`)
      expect(junit.suites[0].properties.shard).toBe(`${index + 1}/3`)
    })

    const merged = await runCommand(['smoke', 'merge', ...[3, 1, 2].map((index) => join(dir, `smoke-${index}.xml`))])
    expect(merged.exitCode, merged.stderr).toBe(0)
    expect(merged.stderr).toBe('')
    const doc = parseJUnit(merged.stdout)
    expect(doc.rootAttributes).toMatchObject({name: 'paytx smoke', tests: '7', failures: '0', errors: '0', skipped: '0'})
    expect(doc.suites).toHaveLength(1)
    expect(doc.suites[0].attributes).toMatchObject({name: 'smoke', tests: '7', file})
    // Back in the file's order, whatever the order of the files.
    expect(doc.suites[0].testcases.map((testcase) => testcase.attributes.name)).toEqual(ALL)
    expect(doc.suites[0].properties).toMatchObject({profile: 'local', shards: '1/3, 2/3, 3/3'})
    expect(doc.suites[0].properties.shard).toBeUndefined()
  })

  it('merges into --output, warns about a missing shard, and refuses a shard given twice or a file that is not JUnit', async () => {
    const one = join(dir, 'only-1.xml')
    const run = await runCommand(['smoke', 'run', file, '--shard', '1/2', '--junit', one], {env: env()})
    expect(run.exitCode, run.stderr).toBe(0)

    const output = join(dir, 'merged.xml')
    const merged = await runCommand(['smoke', 'merge', one, '--output', output, '--json'])
    expect(merged.exitCode).toBe(0)
    expect(parseJsonOutput(merged)).toMatchObject({files: 1, shards: ['1/2'], missingShards: ['2/2'], output})
    expect(merged.stderr).toContain('Warning: no report for shard 2/2; the merged report lacks their cases.')
    expect(parseJUnit(readFileSync(output, 'utf8')).suites[0].properties.shards).toBe('1/2')

    const twice = await runCommand(['smoke', 'merge', one, one])
    expect(twice.exitCode).toBe(2)
    expect(twice.stdout).toBe('')
    expect(twice.stderr).toMatch(/is in both .*only-1\.xml and .*only-1\.xml; is one shard's report given twice\?/)

    writeFileSync(join(dir, 'not.xml'), '<html><body>no</body></html>')
    const notJUnit = await runCommand(['smoke', 'merge', one, join(dir, 'not.xml')])
    expect(notJUnit.exitCode).toBe(2)
    expect(notJUnit.stderr).toMatch(/not\.xml is not a JUnit report: its root element is <html>/)
    const missing = await runCommand(['smoke', 'merge', join(dir, 'nope.xml')])
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toMatch(/nope\.xml cannot be read: it does not exist/)
  })

  it('refuses a shard that makes no sense before running anything', async () => {
    const result = await runCommand(['smoke', 'run', file, '--shard', '4/3'], {env: env()})
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toMatch(/--shard must be <index>\/<total> with 1 ≤ index ≤ total/)
    expect(result.stdout).toBe('')
  })
})
