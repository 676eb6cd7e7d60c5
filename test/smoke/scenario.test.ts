import {describe, expect, it} from 'vitest'

import {TEST_CARDS, TEST_CARD_CVV} from '../../src/test-mode/outcomes.js'
import {ScenarioError} from '../../src/input/scenario-error.js'
import {parseScenarioText} from '../../src/input/scenario-source.js'
import {type Scenario, checkScenario} from '../../src/smoke/scenario.js'

function load(text: string, file = 'smoke.yaml'): Scenario {
  return checkScenario(parseScenarioText(file, text))
}

function problems(text: string, file = 'smoke.yaml'): {path: string; line?: number; message: string}[] {
  try {
    load(text, file)
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError)
    return (error as ScenarioError).problems.map(({path, line, message}) => ({path, line, message}))
  }
  throw new Error('expected the scenario to be rejected')
}

describe('a valid scenario', () => {
  it('applies defaults, picks the test card for the outcome, sends the test CVV, and waits until settled when SETTLEMENT_COMPLETED is expected', () => {
    const scenario = load(`
version: 1
defaults:
  amount: 1499
  wait_timeout: 20s
  expect: {max_duration: 30s}
cases:
  - name: card-paid
    product: card
    outcome: SETTLEMENT_COMPLETED
    expect: {status: SETTLEMENT_COMPLETED, success: true}
  - name: card-declined
    product: card
    outcome: DECLINED
    cvv: none
    expect: {status: DECLINED}
  - name: dummy-requested
    product: dummy
    amount: 5
    outcome: SETTLEMENT_REQUESTED
    customer: \${cases.card-paid.customerId}
    expect: {status: [SETTLEMENT_REQUESTED, SETTLEMENT_COMPLETED], webhooks: {contains: [SETTLEMENT_REQUESTED]}}
`)
    expect(scenario.cases.map((c) => c.name)).toEqual(['card-paid', 'card-declined', 'dummy-requested'])
    const [paid, declined, requested] = scenario.cases
    expect(paid).toMatchObject({amount: 1499, waitTimeoutMs: 20_000, untilSettled: true, cvv: TEST_CARD_CVV, line: 8})
    expect(paid.card).toEqual({kind: 'test', alias: 'approve', pan: TEST_CARDS[0].pan})
    expect(paid.expect).toMatchObject({statuses: ['SETTLEMENT_COMPLETED'], success: true, maxDurationMs: 30_000})
    expect(declined.card).toMatchObject({kind: 'test', alias: 'decline'})
    expect(declined.cvv).toBeUndefined()
    expect(declined.untilSettled).toBe(false)
    expect(requested).toMatchObject({amount: 5, card: undefined, cvv: undefined, dependsOn: ['card-paid'], untilSettled: false})
    expect(requested.customer).toEqual({kind: 'id', id: '${cases.card-paid.customerId}'})
    expect(requested.expect.webhooks).toEqual({contains: ['SETTLEMENT_REQUESTED']})
  })

  it('expects success when a case states no expectation, and gives manual cases a long wait', () => {
    const [manual] = load('cases:\n  - {name: by-hand, product: sofort, amount: 100, outcome: manual}\n').cases
    expect(manual.expect).toEqual({success: true})
    expect(manual.waitTimeoutMs).toBe(10 * 60_000)
    expect(manual.webhook).toEqual({mode: 'local'})
  })

  it('reads JSON with the same rules', () => {
    const scenario = load(JSON.stringify({cases: [{name: 'a', product: 'dummy', amount: 1, outcome: 'FAILED', expect: {status: 'FAILED', status_reason: '/PROCESSING/i'}}]}), 'smoke.json')
    expect(scenario.cases[0].expect.statusReason?.regex.test('processing error')).toBe(true)
  })

  it('keeps a literal ${ written as $${ and accepts webhook URLs and extra fields with references', () => {
    const [, second] = load(`
cases:
  - {name: a, product: dummy, amount: 1, outcome: FAILED, expect: {status: FAILED}}
  - name: b
    product: dummy
    amount: 1
    outcome: CANCELLED
    merchant_reference: "price $\${5} for \${cases.a.transactionId}"
    extra_fields: {metadata: {origin: "\${cases.a.customerId}"}}
    webhook: https://hooks.example.com/paytx
    expect: {status: CANCELLED}
`).cases
    expect(second.dependsOn).toEqual(['a'])
    expect(second.webhook).toEqual({mode: 'url', url: 'https://hooks.example.com/paytx'})
  })
})

describe('problems, each with its line', () => {
  it('reports a YAML syntax error with its line and column', () => {
    const found = problems('cases:\n  - name: a\n    product: [dummy\n')
    expect(found).toHaveLength(1)
    expect(found[0].line).toBeGreaterThanOrEqual(3)
    expect(found[0].message).toMatch(/^not valid YAML/)
  })

  it('reports a JSON syntax error with its line', () => {
    const found = problems('{\n  "cases": [\n    {"name": "a",}\n  ]\n}\n', 'smoke.json')
    expect(found).toEqual([{path: '', line: 3, message: expect.stringMatching(/^not valid JSON/)}])
  })

  it('reports duplicate keys, an empty file and a document that is not a mapping', () => {
    expect(problems('cases:\n  - name: a\n    name: b\n')[0]).toMatchObject({line: 3, message: expect.stringMatching(/unique/)})
    expect(problems('')[0].message).toMatch(/empty/)
    expect(problems('- a\n- b\n')[0].message).toMatch(/must be a mapping with a `cases:` list/)
  })

  it('reports every problem of the file at once, in line order', () => {
    const found = problems(`version: 1
cases:
  - name: first
    product: dummy
    outcome: SETTLEMENT_COMPLETED
  - name: second
    product: paypal
    amount: 10
    outcome: DECLINED
  - name: third
    product: card
    amout: 12
    amount: 1.5
    outcome: DECLINED
    card: approve
  - name: fourth
    product: sofort
    amount: 100
    outcome: PENDING
    customer: \${cases.fifth.customerId}
    descriptor: "order_1!"
    expect: {status: DECLINED, success: true, statu_reason: x}
  - name: fifth
    product: dummy
    amount: 100
    outcome: UNKNOWN
    customer: {frist_name: Jane}
    card: {id: c1}
  - name: first
    product: card
    amount: 100
    outcome: SETTLEMENT_COMPLETED
    card: {pn: 1}
    cvv: 12
`)
    expect(found).toEqual([
      {path: 'cases[0]', line: 3, message: 'amount is required (minor units, e.g. 1499); set it in the case or in defaults'},
      {path: 'cases[1].product', line: 7, message: 'must be one of card, sofort, dummy; got "paypal"'},
      {path: 'cases[2].amout', line: 12, message: expect.stringContaining('unknown field "amout" (did you mean "amount"?)')},
      {path: 'cases[2].amount', line: 13, message: 'must be a whole number of minor units, e.g. 1499 for 14.99'},
      {path: 'cases[2].card', line: 15, message: expect.stringContaining('test card "approve" leads to SETTLEMENT_COMPLETED, but the outcome is DECLINED')},
      {path: 'cases[3].outcome', line: 19, message: expect.stringContaining('PENDING is not offered by the sofort approval page')},
      {path: 'cases[3].customer', line: 20, message: expect.stringContaining('refers to case "fifth", which comes later (cases[4], line 23)')},
      {path: 'cases[3].descriptor', line: 21, message: expect.stringContaining('"_", "!"')},
      {path: 'cases[3].expect.success', line: 22, message: 'success: true can never hold together with status DECLINED'},
      {path: 'cases[3].expect.statu_reason', line: 22, message: expect.stringContaining('did you mean "status_reason"?')},
      {path: 'cases[4].customer.frist_name', line: 27, message: expect.stringContaining('did you mean "first_name"?')},
      {path: 'cases[4].card', line: 28, message: 'card applies to the card product only; this is a dummy case'},
      {path: 'cases[5].name', line: 29, message: '"first" is already the name of cases[0] (line 3); names must be unique'},
      {path: 'cases[5].card', line: 33, message: expect.stringContaining('must be {id: <card id>} or {pan: <card number>')},
      {path: 'cases[5].cvv', line: 34, message: expect.stringContaining('must be 3 or 4 digits')},
    ])
  })

  it.each([
    ['an unknown case', '${cases.nope.customerId}', 'refers to case "nope", which does not exist'],
    ['a misspelt case', '${cases.frist.customerId}', 'which does not exist (did you mean "first"?)'],
    ['its own case', '${cases.second.customerId}', 'refers to its own case'],
    ['an unknown field', '${cases.first.customer}', 'refers to "customer", which a case does not offer'],
    ['a card of a dummy case', '${cases.first.cardId}', 'case "first" is a dummy case and creates no card'],
    ['an unclosed reference', '${cases.first.customerId', 'is not closed'],
    ['not a reference', '${first}', 'is not a reference'],
  ])('rejects a reference to %s', (_what, reference, message) => {
    const found = problems(`cases:
  - {name: first, product: dummy, amount: 1, outcome: FAILED}
  - name: second
    product: card
    amount: 1
    outcome: SETTLEMENT_COMPLETED
    merchant_reference: "ref \${cases.first.transactionId}"
    customer: "${reference}"
`)
    expect(found).toEqual([{path: 'cases[1].customer', line: 8, message: expect.stringContaining(message)}])
  })

  it('rejects references in defaults and in the webhook address', () => {
    const found = problems(`defaults:
  merchant_reference: \${cases.a.transactionId}
cases:
  - {name: a, product: dummy, amount: 1, outcome: FAILED, webhook: "http://x/\${cases.a.customerId}"}
`)
    expect(found.map((p) => [p.path, p.line])).toEqual([
      ['defaults.merchant_reference', 2],
      ['cases[0].webhook', 4],
    ])
  })

  it('places a problem of a default at the defaults line, naming the case', () => {
    const found = problems(`defaults:
  outcome: PENDING
  amount: 1
cases:
  - {name: ok, product: dummy}
  - {name: bank, product: sofort}
`)
    expect(found).toEqual([{path: 'defaults.outcome', line: 2, message: expect.stringContaining('PENDING is not offered by the sofort approval page (case "bank")')}])
  })

  it('rejects contradictions: impossible expectations, webhooks it cannot see, bad patterns, bad durations', () => {
    const found = problems(`cases:
  - name: a
    product: dummy
    amount: 1
    outcome: UNKNOWN
    webhook: none
    wait_timeout: soon
    expect:
      status: UNKNOWN
      final: true
      status_reason: "(unclosed"
      webhooks: {min: 3, max: 1}
      max_duration: -1
`)
    expect(found.map((p) => [p.path, p.line, p.message.slice(0, 40)])).toEqual([
      ['cases[0].wait_timeout', 7, 'must be a duration greater than 0: a num'],
      ['cases[0].expect.final', 10, 'final: true can never hold together with'],
      ['cases[0].expect.status_reason', 11, 'is not a valid regular expression: /(unc'],
      ['cases[0].expect.webhooks', 12, 'min (3) is greater than max (1); no numb'],
      ['cases[0].expect.webhooks', 12, 'needs webhook: local; paytx sees only th'],
      ['cases[0].expect.max_duration', 13, 'must be a duration greater than 0: a num'],
    ])
  })

  it('checks card numbers and test cards that disagree with the outcome without showing the number', () => {
    const found = problems(`cases:
  - {name: a, product: card, amount: 1, outcome: SETTLEMENT_COMPLETED, card: {pan: "4000000000000002"}}
  - {name: b, product: card, amount: 1, outcome: SETTLEMENT_COMPLETED, card: {pan: "4111111111111112", expiry_month: "13"}}
  - {name: c, product: card, amount: 1, outcome: DECLINED, card: aprove}
`)
    expect(found.map((p) => [p.path, p.message])).toEqual([
      ['cases[0].card', expect.stringContaining('this test card number leads to DECLINED')],
      ['cases[1].card.pan', 'is not a valid card number (12-19 digits passing the Luhn check)'],
      ['cases[1].card.expiry_month', 'must be a month from 01 to 12'],
      ['cases[2].card', expect.stringContaining('(did you mean "approve"?)')],
    ])
    expect(JSON.stringify(found)).not.toContain('4000000000000002')
  })

  it('requires a list of cases', () => {
    expect(problems('version: 1\n')).toEqual([{path: 'cases', line: 1, message: 'is required'}])
    expect(problems('cases: []\n')).toEqual([{path: 'cases', line: 1, message: 'must list at least one case'}])
    expect(problems('version: 2\ncases: [{name: a, product: dummy, amount: 1, outcome: FAILED}]\n')[0]).toMatchObject({path: 'version', line: 1})
  })

  it('formats the error with file:line:column for every problem and a hint to the documentation', () => {
    try {
      load('cases:\n  - {name: a, product: dummy, outcome: FAILED}\n  - {name: b, product: dummy, amount: 0, outcome: NOPE}\n')
      throw new Error('not rejected')
    } catch (error) {
      const message = (error as Error).message
      expect(message).toMatch(/^The scenario file smoke.yaml has 3 problems; no case was run:/)
      expect(message).toContain('smoke.yaml:2:5: cases[0]: amount is required')
      expect(message).toContain('smoke.yaml:3:39: cases[1].amount: must be greater than 0 (minor units)')
      expect(message).toContain('smoke.yaml:3:51: cases[1].outcome: must be an outcome of the approval page')
      expect((error as ScenarioError).exitCode).toBe(2)
      expect((error as ScenarioError).hint).toMatch(/docs\/smoke\.md/)
    }
  })
})

describe('hostile documents', () => {
  it('refuses aliases that expand into billions of values (a billion laughs) as a problem of the file, exit 2', () => {
    const levels = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']
    const text = [
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      ...levels.slice(1).map((name, index) => `${name}: &${name} [${Array(9).fill(`*${levels[index]}`).join(',')}]`),
      'cases: [*i]',
    ].join('\n')
    expect(problems(text)).toEqual([
      {path: '', line: 1, message: 'its aliases (*name) expand into too many values (more than 1000 copies of one anchor); write the values out instead'},
    ])
  })
})

describe('durations', () => {
  it.each([
    ['20s', 20_000],
    ['500ms', 500],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['"90"', 90_000],
    ['1.5', 1500],
  ])('reads wait_timeout %s', (written, ms) => {
    expect(load(`cases:\n  - {name: a, product: dummy, amount: 1, outcome: FAILED, wait_timeout: ${written}}\n`).cases[0].waitTimeoutMs).toBe(ms)
  })

  it('rejects a wait_timeout longer than a timer can wait, naming the largest', () => {
    expect(problems('cases:\n  - {name: a, product: dummy, amount: 1, outcome: FAILED, wait_timeout: 30d}\n')).toEqual([
      {path: 'cases[0].wait_timeout', line: 2, message: 'can be at most 596h (2147483647ms, about 24.8 days), the longest paytx can wait'},
    ])
  })

  it('rejects a zero duration', () => {
    expect(problems('cases:\n  - {name: a, product: dummy, amount: 1, outcome: FAILED, wait_timeout: 0s, expect: {max_duration: 0}}\n').map((p) => p.path)).toEqual([
      'cases[0].wait_timeout',
      'cases[0].expect.max_duration',
    ])
  })
})

describe('${env.NAME} in a scenario file', () => {
  const withEnv = (text: string, env: NodeJS.ProcessEnv) => checkScenario(parseScenarioText('smoke.yaml', text), env)

  it('reads a variable into any string; $${env.X} stays literal', () => {
    const scenario = withEnv(
      'cases:\n  - name: shop\n    product: dummy\n    amount: 100\n    outcome: SETTLEMENT_COMPLETED\n    webhook: ${env.SHOP_URL}/webhooks?key=${env.SHOP_TOKEN}\n    merchant_reference: order-$${env.NOT_READ}\n',
      {SHOP_URL: 'http://127.0.0.1:4567', SHOP_TOKEN: 'tok-1'},
    )
    expect(JSON.stringify(scenario.cases[0])).toContain('http://127.0.0.1:4567/webhooks?key=tok-1')
    // Kept as written; a case's strings turn $${ into ${ when it runs, as for any other.
    expect(scenario.cases[0].merchantReference).toBe('order-$${env.NOT_READ}')
  })

  it('a value that holds ${ is refused: the file would read it as a reference', () => {
    expect(() => withEnv('cases:\n  - name: shop\n    product: dummy\n    amount: 100\n    outcome: SETTLEMENT_COMPLETED\n    merchant_reference: ${env.REF}\n', {REF: '${cases.x.customerId}'})).toThrow(
      /\$\{env\.REF\}: the value of REF holds "\$\{", which the file would read as a reference/,
    )
  })

  it('a variable that is not set is a problem of the file, at its line, once', () => {
    let problems: {path: string; line?: number; message: string}[] = []
    try {
      withEnv('cases:\n  - name: shop\n    product: dummy\n    amount: 100\n    outcome: SETTLEMENT_COMPLETED\n    webhook: ${env.SHOP_URL}/webhooks\n', {})
    } catch (error) {
      problems = (error as ScenarioError).problems.map(({path, line, message}) => ({path, line, message}))
    }
    expect(problems).toEqual([{path: 'cases[0].webhook', line: 6, message: '${env.SHOP_URL}: the environment variable SHOP_URL is not set (set it, or write $${ for a literal "${")'}])
  })
})
