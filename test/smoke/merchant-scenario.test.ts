/**
 * The parts of a scenario that test the merchant's own service, as the file is read: the docs'
 * and the example's files load, and the steps' values come out as the runner needs them.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {describe, expect, it} from 'vitest'

import {parseScenarioText} from '../../src/input/scenario-source.js'
import {checkScenario, loadScenario} from '../../src/smoke/scenario.js'
import {parseJsonPath, readJsonPath} from '../../src/smoke/json-path.js'
import {ROOT} from '../helpers/cli.js'

const ENV = {SHOP_URL: 'http://127.0.0.1:3000', SHOP_TEST_TOKEN: 'shop-token'}

/** The ```yaml block of docs/smoke.md's "Testing your own service" that is a scenario. */
function docsScenario(): string {
  const page = readFileSync(join(ROOT, 'docs', 'smoke.md'), 'utf8')
  const section = page.slice(page.indexOf('## Testing your own service'), page.indexOf('## In CI, against the emulator'))
  const block = /```yaml\n([\s\S]*?)```/.exec(section)
  expect(block, 'a yaml block in the section').not.toBeNull()
  return block![1]
}

describe('scenarios that test the merchant’s service', () => {
  it('the docs’ full example loads, with its steps as the runner reads them', () => {
    const scenario = checkScenario(parseScenarioText('smoke.md', docsScenario()), ENV)
    const [paid, failed] = scenario.cases
    expect(paid.start).toEqual({
      method: 'POST',
      url: 'http://127.0.0.1:3000/checkout',
      headers: {authorization: 'Bearer shop-token'},
      body: {amount: 2500, product: 'dummy'},
      transactionId: {written: '$.payment.id', steps: ['payment', 'id']},
      timeoutMs: 10_000,
    })
    expect(paid.check).toEqual({
      url: 'http://127.0.0.1:3000/orders/${transaction.id}',
      headers: {authorization: 'Bearer shop-token'},
      status: 200,
      json: [{path: '$.order.state', steps: ['order', 'state'], value: 'paid'}],
      timeoutMs: 15_000,
    })
    expect(paid.expect.delivered).toEqual({to: 'http://127.0.0.1:3000/webhooks', min: 3})
    expect(paid).toMatchObject({product: 'dummy', amount: 2500, card: undefined, dependsOn: []})
    expect(failed).toMatchObject({product: undefined, amount: undefined, expect: {statuses: ['DECLINED'], delivered: {min: 1}}})
    expect(failed.check?.json).toEqual([{path: '$.order.state', steps: ['order', 'state'], value: 'failed'}])
  })

  it('examples/merchant-smoke.yaml loads', async () => {
    const scenario = await loadScenario(join(ROOT, 'examples', 'merchant-smoke.yaml'), ENV)
    expect(scenario.cases.map((smokeCase) => smokeCase.name)).toEqual(['shop-order-paid', 'shop-order-failed'])
    expect(scenario.cases.every((smokeCase) => smokeCase.start && smokeCase.check)).toBe(true)
  })

  it.each([
    ['$.payment.id', ['payment', 'id']],
    ["$.items[0]['order-id']", ['items', 0, 'order-id']],
    ['/payment/id', ['payment', 'id']],
    ['/a~1b/~0c', ['a/b', '~c']],
    ['$', []],
  ])('reads the JSON path %s', (written, steps) => {
    expect(parseJsonPath(written)).toEqual(steps)
  })

  it.each(['payment.id', '$.items[*]', '$..id', "$['open"])('refuses %s with a sentence', (written) => {
    expect(parseJsonPath(written)).toEqual(expect.any(String))
  })

  it('finds values by path, and says when one is not there', () => {
    const answer = {payment: {id: 'tx-1'}, items: [{id: 7}]}
    expect(readJsonPath(answer, ['payment', 'id'])).toEqual({found: true, value: 'tx-1'})
    expect(readJsonPath(answer, ['items', 0, 'id'])).toEqual({found: true, value: 7})
    expect(readJsonPath(answer, ['items', '0', 'id'])).toEqual({found: true, value: 7})
    expect(readJsonPath(answer, ['items', 1])).toEqual({found: false})
    expect(readJsonPath(answer, ['payment', 'toString'])).toEqual({found: false})
  })
})
