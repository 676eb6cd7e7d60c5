/**
 * The flow's events as a step list, in plain mode (a pipe, a CI log): one labelled line per
 * event with the values in one column, and a sparse reminder of the time left while waiting.
 */
import {describe, expect, it} from 'vitest'

import type {FlowEvent, FlowEventBody} from '../../src/flow/events.js'
import {LABEL_WIDTH} from '../../src/output/flow-event-lines.js'
import {createStepReporter} from '../../src/output/step-reporter.js'
import {waitFor} from '../helpers/wait-for.js'

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

  it('on the emulator, names --approve to finish without a browser', async () => {
    const out = collector()
    const reporter = await createStepReporter({stream: out.stream, interactive: false, color: false})
    reporter.render(at({kind: 'approval-not-opened', url: approvalUrl, reason: 'no display', approveOutcomes: ['SETTLEMENT_REQUESTED', 'DECLINED']}))
    reporter.stop()
    expect(out.lines()[2]).toBe(`ℹ ${'or'.padEnd(LABEL_WIDTH)}run the flow again with --approve <STATUS> to finish without a browser (SETTLEMENT_REQUESTED, DECLINED)`)
  })

  it('a payment completed elsewhere (no redirect back here, a conclusive status) is said without a failure mark', async () => {
    const out = collector()
    const reporter = await createStepReporter({stream: out.stream, interactive: false, color: false})
    reporter.render(at({kind: 'redirect-missing', status: 'SETTLEMENT_REQUESTED', waitedMs: 2000}))
    reporter.stop()
    expect(out.lines()).toEqual([`ℹ ${'redirect'.padEnd(LABEL_WIDTH)}not back here: the approval page was completed elsewhere (another browser or client), and the transaction is SETTLEMENT_REQUESTED`])
  })

  it('leaves secrets out and paints the symbols only when asked', async () => {
    const out = collector()
    const reporter = await createStepReporter({stream: out.stream, interactive: false, color: true, secrets: ['s3cret-key']})
    reporter.render(at({kind: 'step-failed', step: 'customer', message: 'The service refused key s3cret-key'}))
    reporter.note({tone: 'done', label: 'emulator started', value: 'http://127.0.0.1:4010'})
    reporter.render(at({kind: 'status-read-failed', message: 'The service refused key s3cret-key'}))
    const [failed, note, readFailed] = out.lines()
    // The step is marked; its error is reported once, after the steps, by the command.
    expect(failed).toMatch(/^\u001B\[31m✖\u001B\[0m customer +creating a customer failed$/)
    expect(readFailed).toMatch(/reading it failed \(The service refused key \S+\)/)
    expect(out.lines().join('\n')).not.toContain('s3cret-key')
    expect(note).toBe(`\u001B[32m✔\u001B[0m ${'emulator started'.padEnd(LABEL_WIDTH)}http://127.0.0.1:4010`)
  })
})

/**
 * Just enough of a terminal for a spinner: text, newlines and the cursor calls ora makes, so
 * what stays on screen can be read back once the spinner is gone.
 */
function fakeTerminal() {
  const screen: string[] = ['']
  let row = 0
  let col = 0
  let written = ''
  const put = (text: string) => {
    written += text
    for (const ch of text.replaceAll(/\u001B\[[\d;?]*[A-Za-z]/g, '')) {
      if (ch === '\n') {
        row++
        col = 0
        screen[row] ??= ''
      } else if (ch === '\r') col = 0
      else {
        screen[row] = screen[row].padEnd(col).slice(0, col) + ch + screen[row].slice(col + 1)
        col++
      }
    }
    return true
  }
  const stream = {
    isTTY: true,
    columns: 160,
    write: (chunk: string) => put(String(chunk)),
    cursorTo: (x: number) => ((col = x), true),
    moveCursor: (dx: number, dy: number) => ((col += dx), (row = Math.max(0, row + dy)), (screen[row] ??= ''), true),
    clearLine: (dir: number) => ((screen[row] = dir === 1 ? screen[row].slice(0, col) : dir === -1 ? ' '.repeat(col) + screen[row].slice(col) : ''), true),
    on: () => stream,
    once: () => stream,
    off: () => stream,
    removeListener: () => stream,
  }
  return {stream: stream as unknown as NodeJS.WritableStream, written: () => written, screen: () => screen.filter((line) => line.trim() !== '')}
}

describe('step list, interactive mode', () => {
  it('keeps the same lines as plain mode, with a spinner per step that counts down the wait', async () => {
    const terminal = fakeTerminal()
    let now = 0
    const reporter = await createStepReporter({stream: terminal.stream, interactive: true, color: false, now: () => now})
    reporter.render(at({kind: 'step-started', step: 'customer'}))
    expect(terminal.written()).toContain('creating a customer')
    reporter.render(at({kind: 'customer-created', customerId: 'cus-1', profile: 'local'}))
    reporter.render(at({kind: 'step-started', step: 'approval'}))
    reporter.render(at({kind: 'approval-opened', url: approvalUrl}))
    reporter.render(at({kind: 'step-started', step: 'redirect'}))
    reporter.render(at({kind: 'waiting', for: 'redirect', remainingMs: 600_000}))
    now = 75_000
    // The next tick of the countdown (every second) redraws it: waited for, not slept on, since a
    // loaded machine runs a 1 s interval late.
    await waitFor(() => /waiting for the redirect: 8m45s left$/.test(terminal.screen().at(-1) ?? ''), 'the countdown to tick')
    reporter.render(at({kind: 'webhook-received', type: 'transaction', status: 'IN_PROGRESS', duplicate: false}))
    reporter.render(at({kind: 'redirect-received', transactionId: 'tx-1'}))
    reporter.stop()
    const pad = (label: string) => label.padEnd(LABEL_WIDTH)
    expect(terminal.screen()).toEqual([
      `✔ ${pad('customer created')}cus-1  (local)`,
      `✔ ${pad('approval page opened')}${approvalUrl}`,
      `ℹ ${pad('waiting')}for the redirect: complete the payment in the browser; 10m left (Ctrl-C to stop)`,
      `✔ ${pad('webhook received')}IN_PROGRESS`,
      `✔ ${pad('redirect received')}transaction_id=tx-1`,
    ])
  })
})
