/**
 * The flow's events as a step list, in plain mode (a pipe, a CI log): one labelled line per
 * event with the values in one column, and a sparse reminder of the time left while waiting.
 */
import {describe, expect, it} from 'vitest'

import type {FlowEvent, FlowEventBody} from '../../src/flow/events.js'
import {LABEL_WIDTH} from '../../src/output/flow-event-lines.js'
import {createStepReporter} from '../../src/output/step-reporter.js'

function collector() {
  let text = ''
  return {
    stream: {write: (chunk: string) => (text += chunk)} as unknown as NodeJS.WritableStream,
    lines: () => text.split('\n').filter(Boolean),
  }
}

const at = (body: FlowEventBody, elapsedMs = 0) => ({...body, elapsedMs}) as FlowEvent

const approvalUrl = 'http://127.0.0.1:4010/v1/transaction/tx-1/authorize'
const flow: FlowEvent[] = [
  at({kind: 'step-started', step: 'customer'}),
  at({kind: 'customer-created', customerId: 'cus-1', profile: 'local'}, 30),
  at({kind: 'step-started', step: 'card'}),
  at({kind: 'card-tokenized', cardId: 'card-1', last4: '0002', testCard: true}, 40),
  at({kind: 'step-started', step: 'transaction'}),
  at({kind: 'transaction-started', transactionId: 'tx-1', status: 'INITIATED'}, 50),
  at({kind: 'webhook-received', type: 'transaction', status: 'INITIATED', duplicate: false}, 55),
  at({kind: 'step-started', step: 'approval', outcome: 'DECLINED'}),
  at({kind: 'approval-completed', outcome: 'DECLINED'}, 60),
  at({kind: 'webhook-received', type: 'transaction', status: 'DECLINED', duplicate: true}, 65),
  at({kind: 'step-started', step: 'redirect'}),
  at({kind: 'redirect-received', transactionId: 'tx-1'}, 70),
  at({kind: 'step-started', step: 'status'}),
  at({kind: 'status-read', status: 'PENDING'}, 75),
  at({kind: 'verdict', status: 'DECLINED', statusReason: '', conclusive: true, final: true, success: false, durationMs: 3210, waitTimeoutMs: 600_000}, 80),
]

describe('step list, plain mode', () => {
  it('prints one labelled line per event, values in one column, no colours and no spinner', async () => {
    const out = collector()
    const reporter = await createStepReporter({stream: out.stream, interactive: false, color: false})
    for (const event of flow) reporter.render(event)
    reporter.stop()
    const pad = (label: string) => label.padEnd(LABEL_WIDTH)
    expect(out.lines()).toEqual([
      `✔ ${pad('customer created')}cus-1  (local)`,
      `✔ ${pad('card tokenized')}card-1  •••• 0002  (test card)`,
      `✔ ${pad('transaction started')}tx-1  INITIATED`,
      `✔ ${pad('webhook received')}INITIATED`,
      `✔ ${pad('approval page completed')}DECLINED`,
      `✔ ${pad('webhook received')}DECLINED  (duplicate)`,
      `✔ ${pad('redirect received')}transaction_id=tx-1`,
      `ℹ ${pad('status')}PENDING`,
      `✖ ${pad('final status')}DECLINED  not a success  (3.2 s)`,
    ])
    // Every value starts in the same column, the longest label included.
    expect(new Set(out.lines().map((line) => line.slice(2).search(/(?<=\S {2,})\S/)))).toEqual(new Set([LABEL_WIDTH]))
    expect(out.lines().join('\n')).not.toContain('\u001B[')
  })

  it('says that no browser could be opened, prints the address, and reminds of the time left while waiting', async () => {
    const out = collector()
    let now = 0
    const reporter = await createStepReporter({stream: out.stream, interactive: false, color: false, now: () => now, reminderEveryMs: 20})
    reporter.render(at({kind: 'approval-not-opened', url: approvalUrl, reason: 'BROWSER=/bin/false exited with code 1'}))
    reporter.render(at({kind: 'step-started', step: 'redirect'}))
    reporter.render(at({kind: 'waiting', for: 'redirect', remainingMs: 600_000}))
    now = 61_000
    await new Promise((resolve) => setTimeout(resolve, 50))
    reporter.render(at({kind: 'redirect-missing', waitedMs: 600_000}))
    const settled = out.lines().length
    await new Promise((resolve) => setTimeout(resolve, 50))
    reporter.stop()
    const lines = out.lines()
    expect(lines.slice(0, 3)).toEqual([
      `✖ ${'no browser'.padEnd(LABEL_WIDTH)}could not open one: BROWSER=/bin/false exited with code 1`,
      `ℹ ${'approval page'.padEnd(LABEL_WIDTH)}${approvalUrl}  (open it by hand)`,
      `ℹ ${'waiting'.padEnd(LABEL_WIDTH)}for the redirect: complete the payment in the browser; 10m left (Ctrl-C to stop)`,
    ])
    expect(lines).toContain(`ℹ ${'waiting'.padEnd(LABEL_WIDTH)}for the redirect; 8m59s left`)
    expect(lines.at(-1)).toBe(`✖ ${'no redirect'.padEnd(LABEL_WIDTH)}none within 10m`)
    // The reminders stop with the wait.
    expect(lines).toHaveLength(settled)
  })

  it('leaves secrets out and paints the symbols only when asked', async () => {
    const out = collector()
    const reporter = await createStepReporter({stream: out.stream, interactive: false, color: true, secrets: ['s3cret-key']})
    reporter.render(at({kind: 'step-failed', step: 'customer', message: 'The service refused key s3cret-key'}))
    reporter.note({tone: 'done', label: 'emulator started', value: 'http://127.0.0.1:4010'})
    const [failed, note] = out.lines()
    expect(failed).toMatch(/^\u001B\[31m✖\u001B\[0m customer +creating a customer failed: The service refused key \S+$/)
    expect(failed).not.toContain('s3cret-key')
    expect(note).toBe(`\u001B[32m✔\u001B[0m ${'emulator started'.padEnd(LABEL_WIDTH)}http://127.0.0.1:4010`)
  })
})
