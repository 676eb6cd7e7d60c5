import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {scenarioJsonSchema} from '../../src/smoke/scenario-schema.js'
import {loadScenario} from '../../src/smoke/scenario.js'
import {ROOT} from '../helpers/cli.js'

describe('shipped files', () => {
  it('schemas/smoke-scenario.schema.json is the schema the loader checks against (regenerate with `npm run schema`)', () => {
    const shipped = JSON.parse(readFileSync(join(ROOT, 'schemas', 'smoke-scenario.schema.json'), 'utf8'))
    expect(shipped).toEqual(scenarioJsonSchema())
  })

  it.each(['smoke.yaml', 'smoke-sandbox.yaml', 'smoke-faults.yaml'])('examples/%s loads without a problem', async (name) => {
    const scenario = await loadScenario(join(ROOT, 'examples', name))
    expect(scenario.cases.length).toBeGreaterThan(0)
  })

  it('examples/smoke.yaml covers every product and every outcome of its approval page', async () => {
    const {APPROVAL_OUTCOMES} = await import('../../src/test-mode/outcomes.js')
    const scenario = await loadScenario(join(ROOT, 'examples', 'smoke.yaml'))
    for (const [product, outcomes] of Object.entries(APPROVAL_OUTCOMES)) {
      const covered = new Set(scenario.cases.filter((c) => c.product === product).map((c) => c.outcome))
      expect([...covered].sort(), product).toEqual([...outcomes].sort())
    }
    expect(scenario.cases.some((c) => c.product === 'card' && c.cvv === undefined)).toBe(true)
  })
})
