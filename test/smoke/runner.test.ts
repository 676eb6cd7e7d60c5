import {describe, expect, it} from 'vitest'

import {InterruptedError, NetworkError} from '../../src/errors.js'
import type {FlowEvent} from '../../src/flow/events.js'
import type {FlowOptions} from '../../src/flow/flow-options.js'
import type {FlowResult} from '../../src/flow/run-flow.js'
import {type SmokeRunOptions, runScenario, selectCases} from '../../src/smoke/runner.js'
import {parseScenarioText} from '../../src/input/scenario-source.js'
import {type Scenario, checkScenario} from '../../src/smoke/scenario.js'

function scenario(text: string): Scenario {
  return checkScenario(parseScenarioText('smoke.yaml', text))
}

/** A flow stand-in: ends with the outcome it was asked for, after `delay` ms. */
function fakeFlow(options: {delayMs?: (o: FlowOptions) => number; fail?: (o: FlowOptions) => Error | undefined} = {}) {
  const calls: FlowOptions[] = []
  let running = 0
  let maxRunning = 0
  let counter = 0
  const runFlow: SmokeRunOptions['runFlow'] = async (flowOptions, onEvent) => {
    calls.push(flowOptions)
    running++
    maxRunning = Math.max(maxRunning, running)
    try {
      onEvent({kind: 'step-started', step: 'customer', elapsedMs: 0})
      await new Promise((resolve) => setTimeout(resolve, options.delayMs?.(flowOptions) ?? 5))
      const error = options.fail?.(flowOptions)
      if (error) throw error
      const n = ++counter
      const status = flowOptions.approve ?? 'SETTLEMENT_COMPLETED'
      const id = `tx_${n}`
      return {
        profile: 'local',
        environment: 'local',
        customerId: 'id' in (flowOptions.customer ?? {}) ? (flowOptions.customer as {id: string}).id : `cus_${n}`,
        cardId: flowOptions.product === 'card' ? `card_${n}` : undefined,
        transactionId: id,
        merchantReference: flowOptions.merchantReference ?? `ref_${n}`,
        approvalUrl: `http://127.0.0.1/v1/transaction/${id}/authorize`,
        rejectedRequests: 0,
        product: flowOptions.product,
        amount: flowOptions.amount,
        status,
        final: status !== 'UNKNOWN' && status !== 'PENDING',
        conclusive: status !== 'UNKNOWN' && status !== 'PENDING',
        success: status.startsWith('SETTLEMENT'),
        statusReason: '',
        redirect: {received: true},
        webhooks: [{type: 'transaction', transactionId: id, status, receivedAt: new Date().toISOString(), duplicate: false}],
        steps: [],
        durationMs: 10,
        transaction: {} as FlowResult['transaction'],
        timeline: [],
      } as FlowResult
    } finally {
      running--
    }
  }
  return {runFlow, calls, maxRunning: () => maxRunning}
}

const base = {profile: 'local', environment: 'local', concurrency: 1, bail: false, openBrowser: false}

describe('the runner', () => {
  it('runs every case through the flow with its options and a free listener port, and passes the ones that meet expectations', async () => {
    const s = scenario(`
cases:
  - {name: a, product: dummy, amount: 100, outcome: DECLINED, descriptor: Order 1, expect: {status: DECLINED}}
  - {name: b, product: card, amount: 200, outcome: SETTLEMENT_COMPLETED, expect: {status: SETTLEMENT_COMPLETED, webhooks: 1}}
  - {name: c, product: dummy, amount: 300, outcome: FAILED, expect: {status: DECLINED}}
`)
    const flow = fakeFlow()
    const report = await runScenario(s, s.cases, {...base, runFlow: flow.runFlow})
    expect(flow.calls[0]).toMatchObject({product: 'dummy', amount: 100, approve: 'DECLINED', descriptor: 'Order 1', listenerPort: 0, webhook: {mode: 'local'}, until: 'final'})
    expect(flow.calls[1]).toMatchObject({product: 'card', card: {pan: '4024007108173153'}, cvv: '123', until: 'settled'})
    expect(report.cases.map((c) => [c.name, c.verdict, c.reason])).toEqual([
      ['a', 'passed', ''],
      ['b', 'passed', ''],
      ['c', 'failed', 'status: expected DECLINED, got FAILED'],
    ])
    expect(report.exitCode).toBe(3)
    expect(report.summary).toEqual({total: 3, passed: 2, failed: 1, errors: 0, skipped: 0})
  })

  it('runs up to N cases at once, and a case that refers to another only after it, with the value resolved', async () => {
    const s = scenario(`
defaults: {product: dummy, amount: 1, outcome: SETTLEMENT_REQUESTED, expect: {success: true}}
cases:
  - {name: slow-first}
  - {name: two}
  - {name: three}
  - {name: reuses, customer: "\${cases.slow-first.customerId}", merchant_reference: "after \${cases.slow-first.transactionId}"}
  - {name: five}
`)
    const order: string[] = []
    const flow = fakeFlow({delayMs: (o) => (o.amount === 1 && o.customer === undefined && order.push('x') === 1 ? 60 : 5)})
    const started: string[] = []
    const events: string[] = []
    const report = await runScenario(s, s.cases, {
      ...base,
      concurrency: 3,
      runFlow: flow.runFlow,
      progress: {caseStarted: (c) => started.push(c.name), caseEvent: (c, event: FlowEvent) => events.push(`${c.name} ${event.kind}`), caseFinished() {}},
    })
    expect(flow.maxRunning()).toBe(3)
    expect(started.indexOf('reuses')).toBeGreaterThan(started.indexOf('five'))
    const reuses = flow.calls.find((c) => c.merchantReference?.startsWith('after'))!
    expect(reuses.customer).toEqual({id: report.cases[0].customerId})
    expect(reuses.merchantReference).toBe(`after ${report.cases[0].transactionId}`)
    expect(report.exitCode).toBe(0)
    expect(report.cases.map((c) => c.name)).toEqual(['slow-first', 'two', 'three', 'reuses', 'five'])
    // Each case's flow events reach the progress observer, named by their case.
    expect(events.toSorted()).toEqual(['five step-started', 'reuses step-started', 'slow-first step-started', 'three step-started', 'two step-started'])
  })

  it('turns a service failure into an error (exit 1) and skips the cases that needed its results', async () => {
    const s = scenario(`
defaults: {product: dummy, amount: 1, outcome: FAILED, expect: {status: FAILED}}
cases:
  - {name: broken, amount: 666}
  - {name: needs-it, customer: "\${cases.broken.customerId}"}
  - {name: fine}
`)
    const flow = fakeFlow({fail: (o) => (o.amount === 666 ? new NetworkError('connection refused', {hint: 'Is the emulator running?'}) : undefined)})
    const report = await runScenario(s, s.cases, {...base, runFlow: flow.runFlow})
    expect(report.cases.map((c) => [c.name, c.verdict])).toEqual([
      ['broken', 'error'],
      ['needs-it', 'skipped'],
      ['fine', 'passed'],
    ])
    expect(report.cases[0].error).toMatchObject({kind: 'network', exitCode: 1, message: 'connection refused', hint: 'Is the emulator running?'})
    expect(report.cases[1].reason).toBe('not run: ${cases.broken.customerId} has no value: case "broken" did not produce a customerId')
    expect(report.exitCode).toBe(1)
  })

  it('with bail, starts nothing after the first failure', async () => {
    const s = scenario(`
defaults: {product: dummy, amount: 1, outcome: FAILED}
cases:
  - {name: ok, expect: {status: FAILED}}
  - {name: wrong, expect: {status: DECLINED}}
  - {name: never}
`)
    const flow = fakeFlow()
    const report = await runScenario(s, s.cases, {...base, bail: true, runFlow: flow.runFlow})
    expect(flow.calls).toHaveLength(2)
    expect(report.cases.map((c) => [c.verdict, c.reason])).toEqual([
      ['passed', ''],
      ['failed', 'status: expected DECLINED, got FAILED'],
      ['skipped', 'not run: --bail stopped the run after case "wrong" failed'],
    ])
    expect(report.exitCode).toBe(3)
  })

  it('stops on interruption: running cases end with the flow’s InterruptedError, waiting ones do not start, exit 130', async () => {
    const s = scenario(`
defaults: {product: dummy, amount: 1, outcome: FAILED}
cases:
  - {name: running}
  - {name: waiting}
`)
    const controller = new AbortController()
    const runFlow: SmokeRunOptions['runFlow'] = (options) =>
      new Promise((_resolve, reject) => options.signal!.addEventListener('abort', () => reject(new InterruptedError('Interrupted; transaction tx_1 was left as it is.'))))
    setTimeout(() => controller.abort(), 20)
    const report = await runScenario(s, s.cases, {...base, runFlow, signal: controller.signal})
    expect(report.cases.map((c) => c.verdict)).toEqual(['error', 'skipped'])
    expect(report.cases[1].reason).toBe('not run: the run was interrupted')
    expect(report.exitCode).toBe(130)
  })

  it('selects --only cases with the cases they refer to, and rejects unknown names', () => {
    const s = scenario(`
defaults: {product: dummy, amount: 1, outcome: FAILED}
cases:
  - {name: a}
  - {name: b, customer: "\${cases.a.customerId}"}
  - {name: c, customer: "\${cases.b.customerId}"}
  - {name: d}
`)
    expect(selectCases(s, ['c']).map((c) => c.name)).toEqual(['a', 'b', 'c'])
    expect(selectCases(s, ['d']).map((c) => c.name)).toEqual(['d'])
    expect(() => selectCases(s, ['d', 'zz'])).toThrow('--only names "zz", not a case of smoke.yaml.')
  })
})
