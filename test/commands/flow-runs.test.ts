/**
 * `paytx flow` in-process against the emulator, started in the test on a free port (the `local`
 * profile pointed at it through PAYTX_BASE_URL / PAYTX_H2H_URL). The README sample (a real
 * BROWSER) and the flow that embeds the emulator are in test/e2e/flow.test.ts.
 */

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {parseJsonOutput} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'

let emulator: RunningEmulator
const env = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl})

beforeAll(async () => {
  emulator = await startEmulator({port: 0, settleAfterMs: 150, pendingForMs: 150, webhookBackoffMs: 20})
})
afterAll(() => emulator.close())

/** A few CLI processes at a time: CI machines may have two cores. */
async function mapWithConcurrency<T, R>(items: T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = []
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await run(items[index])
    }
  }
  await Promise.all(Array.from({length: limit}, worker))
  return results
}

interface Case {
  product: 'dummy' | 'card' | 'sofort'
  outcome: string
  until: 'final' | 'settled'
  status: string
  exit: number
}

const CASES: Case[] = [
  {product: 'dummy', outcome: 'SETTLEMENT_COMPLETED', until: 'settled', status: 'SETTLEMENT_COMPLETED', exit: 0},
  {product: 'dummy', outcome: 'SETTLEMENT_REQUESTED', until: 'final', status: 'SETTLEMENT_REQUESTED', exit: 0},
  {product: 'dummy', outcome: 'PENDING', until: 'settled', status: 'SETTLEMENT_COMPLETED', exit: 0},
  {product: 'dummy', outcome: 'DECLINED', until: 'final', status: 'DECLINED', exit: 3},
  {product: 'dummy', outcome: 'CANCELLED', until: 'final', status: 'CANCELLED', exit: 3},
  {product: 'dummy', outcome: 'FAILED', until: 'final', status: 'FAILED', exit: 3},
  {product: 'dummy', outcome: 'ABANDONED', until: 'final', status: 'ABANDONED', exit: 3},
  {product: 'dummy', outcome: 'UNKNOWN', until: 'final', status: 'UNKNOWN', exit: 4},
  {product: 'card', outcome: 'SETTLEMENT_COMPLETED', until: 'settled', status: 'SETTLEMENT_COMPLETED', exit: 0},
  {product: 'card', outcome: 'DECLINED', until: 'final', status: 'DECLINED', exit: 3},
  {product: 'card', outcome: 'FAILED', until: 'final', status: 'FAILED', exit: 3},
  {product: 'card', outcome: 'PENDING', until: 'settled', status: 'SETTLEMENT_COMPLETED', exit: 0},
  {product: 'card', outcome: 'CANCELLED', until: 'final', status: 'CANCELLED', exit: 3},
  {product: 'sofort', outcome: 'SETTLEMENT_COMPLETED', until: 'settled', status: 'SETTLEMENT_COMPLETED', exit: 0},
  {product: 'sofort', outcome: 'DECLINED', until: 'final', status: 'DECLINED', exit: 3},
  {product: 'sofort', outcome: 'CANCELLED', until: 'final', status: 'CANCELLED', exit: 3},
]

describe('paytx flow --approve against the emulator', () => {
  it('runs every product and every outcome to the right verdict, summary JSON and exit code', async () => {
    const results = await mapWithConcurrency(CASES, 4, (c) =>
      runCommand(['flow', '--product', c.product, '--amount', '1499', '--approve', c.outcome, '--until', c.until, '--wait-timeout', '2s', '--json'], {
        env: env(),
      }),
    )
    for (const [index, c] of CASES.entries()) {
      const result = results[index]
      const label = `${c.product} ${c.outcome}: ${result.stderr}`
      expect(result.exitCode, label).toBe(c.exit)
      const summary = parseJsonOutput(result)
      expect(summary, label).toMatchObject({
        exitCode: c.exit,
        profile: 'local',
        environment: 'local',
        product: c.product,
        amount: 1499,
        status: c.status,
        success: c.exit === 0,
        redirect: {received: true, transactionId: summary.transactionId},
        rejectedRequests: 0,
      })
      expect(summary.transaction.id).toBe(summary.transactionId)
      expect(summary.transaction.status).toBe(c.status)
      expect(summary.transaction.amount).toBe('1499')
      // The transaction's webhooks reached the flow's listener; their bodies carry no status (the
      // minimal payload), so the flow read each from the service, ending with the verdict.
      const statuses = summary.webhooks.map((hook: {status: string}) => hook.status)
      expect(summary.webhooks.length, label).toBeGreaterThanOrEqual(2)
      expect(summary.webhooks.every((hook: {statusFrom: string}) => hook.statusFrom === 'service'), label).toBe(true)
      expect(statuses.at(-1), label).toBe(c.status)
      expect(summary.webhooks.every((hook: {transactionId: string}) => hook.transactionId === summary.transactionId)).toBe(true)
      expect(summary.steps.map((step: {name: string}) => step.name)).toEqual(
        c.product === 'card' ? ['customer', 'card', 'transaction', 'approval', 'redirect', 'status'] : ['customer', 'transaction', 'approval', 'redirect', 'status'],
      )
      if (c.product === 'card') expect(summary.cardLast4).toMatch(/^\d{4}$/)
      expect(result.stderr).toMatch(/✔ redirect received +transaction_id=/)
      expect(result.stderr).not.toContain('emulator started')
    }
  }, 120_000)

  it('prints a human summary on stdout and the steps on stderr', async () => {
    const result = await runCommand(['flow', '--product', 'dummy', '--amount', '250', '--approve', 'DECLINED', '--merchant-reference', 'order-77'], {env: env()})
    expect(result.exitCode).toBe(3)
    expect(result.stdout).toMatch(/^Result +final, not a success$/m)
    expect(result.stdout).toMatch(/^Status +DECLINED \(final, not a success\)$/m)
    expect(result.stdout).toMatch(/^Amount +250 minor units \(2\.50\)$/m)
    expect(result.stdout).toMatch(/^Reference +order-77$/m)
    expect(result.stdout).not.toContain('✔')
    expect(result.stderr).toMatch(/^✔ customer created +\S+ +\(local\)$/m)
    expect(result.stderr).toMatch(/^✔ transaction started +\S+ +INITIATED$/m)
    expect(result.stderr).toMatch(/^✔ approval page completed +DECLINED$/m)
    expect(result.stderr).toMatch(/^✖ final status +DECLINED +not a success/m)
    // Every line is labelled, and every value starts in the same column.
    const lines = result.stderr.trimEnd().split('\n')
    for (const line of lines) expect(line).toMatch(/^[✔✖ℹ⚠] [a-z][a-z ()]+ {2,}\S/)
    expect(new Set(lines.map((line) => line.search(/(?<=^\S [a-z][a-z ()]+ {2,})\S/))).size).toBe(1)
  })

  it('carries the same events as a timeline in --json', async () => {
    const result = await runCommand(['flow', '--product', 'card', '--amount', '300', '--approve', 'DECLINED', '--json'], {env: env()})
    expect(result.exitCode, result.stderr).toBe(3)
    const summary = parseJsonOutput(result)
    expect(summary).toMatchObject({exitCode: 3, status: 'DECLINED', conclusive: true, success: false})
    const timeline: {kind: string; step?: string; elapsedMs: number}[] = summary.timeline
    const kinds = timeline.filter((event) => event.kind !== 'webhook-received').map((event) => (event.step ? `${event.kind}:${event.step}` : event.kind))
    expect(kinds).toEqual([
      'step-started:customer',
      'customer-created',
      'step-started:card',
      'card-tokenized',
      'step-started:transaction',
      'transaction-started',
      'step-started:approval',
      'approval-completed',
      'step-started:redirect',
      'redirect-received',
      'step-started:status',
      'verdict',
    ])
    expect(timeline).toContainEqual(expect.objectContaining({kind: 'customer-created', customerId: summary.customerId, profile: 'local'}))
    expect(timeline).toContainEqual(expect.objectContaining({kind: 'card-tokenized', cardId: summary.cardId, last4: '0002', testCard: true}))
    expect(timeline).toContainEqual(expect.objectContaining({kind: 'transaction-started', transactionId: summary.transactionId, status: 'INITIATED'}))
    expect(timeline.at(-1)).toMatchObject({kind: 'verdict', status: 'DECLINED', final: true, success: false, durationMs: summary.durationMs})
    // One webhook event per webhook the listener took, in the same order.
    expect(timeline.filter((event) => event.kind === 'webhook-received').map((event: any) => event.status)).toEqual(summary.webhooks.map((hook: any) => hook.status))
    expect(timeline.map((event) => event.elapsedMs)).toEqual(timeline.map((event) => event.elapsedMs).toSorted((a, b) => a - b))
    // The same events drew the step list on stderr.
    expect(result.stderr).toMatch(/^✔ card tokenized +\S+ +•••• 0002 +\(test card\)$/m)
  })

  it('keeps a piped card number and CVV out of every output, --verbose included', async () => {
    const pan = '4000000000000002'
    const result = await runCommand(['flow', '--product', 'card', '--amount', '700', '--pan-stdin', '--cvv-stdin', '--approve', 'DECLINED', '--verbose', '--json'], {
      env: env(),
      input: `${pan}\n7391\n`,
    })
    expect(result.exitCode, result.stderr).toBe(3)
    const summary = parseJsonOutput(result)
    expect(summary).toMatchObject({status: 'DECLINED', cardLast4: '0002'})
    const everything = `${result.stdout}${result.stderr}`
    expect(everything).not.toContain(pan)
    expect(everything).not.toMatch(/"card_cvv":"7391"|cvv=7391/)
    expect(result.stderr).toContain('"card_cvv":"***"') // the request log shows that one was sent, not what
    expect(result.stderr).toContain(emulator.url) // the --verbose log is there at all
  })

  it('refuses --approve outcomes the page does not offer and --approve off the emulator, with exit 2 and nothing sent', async () => {
    const wrong = await runCommand(['flow', '--product', 'sofort', '--amount', '100', '--approve', 'PENDING'], {env: env()})
    expect(wrong.exitCode).toBe(2)
    expect(wrong.stderr).toContain('--approve PENDING is not offered by the sofort approval page; allowed: SETTLEMENT_COMPLETED, DECLINED, CANCELLED')
    expect(wrong.stdout).toBe('')

    const decimal = await runCommand(['flow', '--product', 'dummy', '--amount', '14.99', '--approve', 'DECLINED', '--json'], {env: env()})
    expect(decimal.exitCode).toBe(2)
    expect(parseJsonOutput(decimal).error).toMatchObject({kind: 'input', flag: '--amount'})
    expect(decimal.stderr).toBe('')
  })
})
