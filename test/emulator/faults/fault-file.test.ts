import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {faultFileJsonSchema, loadFaultFile, parseFaultFile} from '../../../src/emulator/faults/index.js'
import {ScenarioError} from '../../../src/input/scenario-error.js'
import {checkScenario} from '../../../src/smoke/scenario.js'
import {parseScenarioText} from '../../../src/input/scenario-source.js'
import {ROOT} from '../../helpers/cli.js'

function problemsOf(run: () => unknown): string[] {
  try {
    run()
  } catch (error) {
    if (error instanceof ScenarioError) return error.problems.map((problem) => `${problem.line}:${problem.column} ${problem.path}: ${problem.message}`)
    throw error
  }
  throw new Error('no problem was reported')
}

describe('fault files', () => {
  it('schemas/emulator-faults.schema.json is the schema the loader checks against (regenerate with `npm run build && npm run schema`)', () => {
    const shipped = JSON.parse(readFileSync(join(ROOT, 'schemas', 'emulator-faults.schema.json'), 'utf8'))
    expect(shipped).toEqual(faultFileJsonSchema())
  })

  it('examples/faults.yaml loads without a problem', async () => {
    const file = await loadFaultFile(join(ROOT, 'examples', 'faults.yaml'))
    expect(file.seed).toBe(42)
    expect(file.rules.map((rule) => rule.fault)).toEqual(['status', 'latency', 'drop', 'out_of_order'])
  })

  it.each([
    ['rules:\n  - fault: latency\n    latency: fast\n', ['3:14 rules[0].latency: must be a duration greater than 0: a number of seconds, or a number with a unit: 500ms, 20s, 2m, 1h']],
    ['rules:\n  - fault: latency\n    latency: 1e21\n', ['3:14 rules[0].latency: can be at most 596h (2147483647ms, about 24.8 days), the longest paytx can wait']],
    ['rules:\n  - fault: delay\n', ['2:5 rules[0].delay: is required']],
    ['rules:\n  - fault: reset\n    request: {methd: GET}\n', ['3:15 rules[0].request.methd: unknown field "methd" (did you mean "method"?); allowed: method, path, transaction, product, amount, merchant_reference']],
    ['rules:\n  - fault: drop\n    webhook: {status: PAID}\n', [expect.stringMatching(/^3:23 rules\[0\]\.webhook\.status: must be a transaction status \(.*\); got "PAID"$/)]],
    ['rules:\n  - fault: duplicate\n    probability: 0\n    times: 0\n', ['3:18 rules[0].probability: must be greater than 0', '4:12 rules[0].times: must be a whole number greater than 0']],
    ['seed: -1\nrules: []\nextra: 1\n', ['1:7 seed: must be 0 or more', '3:1 extra: unknown field "extra"; allowed: $schema, version, seed, rules']],
    ['- fault: drop\n', ['1:1 : a fault file must be a mapping with a `rules:` list']],
  ])('names every problem with its line and column: %j', (text, expected) => {
    expect(problemsOf(() => parseFaultFile('faults.yaml', text))).toEqual(expected)
  })

  it('checks a smoke case\'s faults: the same way, at their place in the scenario', () => {
    const text = 'cases:\n  - name: a\n    product: dummy\n    amount: 1\n    outcome: DECLINED\n    faults:\n      - {fault: status, status: 99}\n'
    expect(problemsOf(() => checkScenario(parseScenarioText('s.yaml', text)))).toEqual(['7:33 cases[0].faults[0].status: must be an HTTP status from 400 to 599'])
    const fine = checkScenario(parseScenarioText('s.yaml', text.replace('99', '503')))
    expect(fine.cases[0].faults).toEqual([{fault: 'status', status: 503}])
  })
})
