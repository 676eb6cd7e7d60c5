/**
 * `paytx flow` end to end: bin/run.js against the emulator, started in the test on a free port
 * (the `local` profile pointed at it through PAYTX_BASE_URL / PAYTX_H2H_URL), and once against
 * nothing at all, so the flow embeds the emulator itself.
 */
import {chmodSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {ROOT, parseJsonOutput, runCli} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'

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
      runCli(['flow', '--product', c.product, '--amount', '1499', '--approve', c.outcome, '--until', c.until, '--wait-timeout', '2s', '--json'], {
        env: env(),
        timeoutMs: 60_000,
      }),
    )
    for (const [index, c] of CASES.entries()) {
      const result = results[index]
      const label = `${c.product} ${c.outcome}: ${result.stderr}`
      expect(result.code, label).toBe(c.exit)
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
    const result = await runCli(['flow', '--product', 'dummy', '--amount', '250', '--approve', 'DECLINED', '--merchant-reference', 'order-77'], {env: env()})
    expect(result.code).toBe(3)
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
    const result = await runCli(['flow', '--product', 'card', '--amount', '300', '--approve', 'DECLINED', '--json'], {env: env()})
    expect(result.code, result.stderr).toBe(3)
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
    const result = await runCli(['flow', '--product', 'card', '--amount', '700', '--pan-stdin', '--cvv-stdin', '--approve', 'DECLINED', '--verbose', '--json'], {
      env: env(),
      input: `${pan}\n7391\n`,
    })
    expect(result.code, result.stderr).toBe(3)
    const summary = parseJsonOutput(result)
    expect(summary).toMatchObject({status: 'DECLINED', cardLast4: '0002'})
    const everything = `${result.stdout}${result.stderr}`
    expect(everything).not.toContain(pan)
    expect(everything).not.toMatch(/"card_cvv":"7391"|cvv=7391/)
    expect(result.stderr).toContain('"card_cvv":"***"') // the request log shows that one was sent, not what
    expect(result.stderr).toContain(emulator.url) // the --verbose log is there at all
  })

  it('prints exactly what the flow sample of docs/flow.md shows, up to ids, times and the port', async () => {
    // A BROWSER that hands the page to a "person" in the background and exits 0, like xdg-open.
    const dir = mkdtempSync(join(tmpdir(), 'paytx-readme-'))
    const person = join(dir, 'person.mjs')
    writeFileSync(
      person,
      `const url = process.argv.at(-1)
await new Promise((resolve) => setTimeout(resolve, 500))
const page = await (await fetch(url)).text()
const action = new URL(page.match(/<form[^>]*action="([^"]+)"/)[1].replaceAll('&amp;', '&'), url)
const button = page.match(/<button[^>]*name="(\\w+)" value="SETTLEMENT_REQUESTED"/)
const answer = await fetch(action, {method: 'POST', body: new URLSearchParams({[button[1]]: 'SETTLEMENT_REQUESTED'}), redirect: 'manual'})
await fetch(new URL(answer.headers.get('location'), action))
`,
    )
    const opener = join(dir, 'opener.sh')
    writeFileSync(opener, `#!/bin/sh\n("${process.execPath}" "${person}" "$1" >/dev/null 2>&1 &)\nexit 0\n`)
    chmodSync(opener, 0o755)
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const result = await runCli(['flow', '--product', 'dummy', '--amount', '1499'], {env: {PAYTX_BASE_URL: base, PAYTX_H2H_URL: `${base}/h2h`, BROWSER: opener}})
    expect(result.code, result.stderr).toBe(0)

    const normalize = (text: string) =>
      text
        .replaceAll(/[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}/g, '<id>')
        .replaceAll(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
        .replaceAll(/\d+(\.\d)? m?s\b/g, '<duration>')
        .replaceAll(/\d\d:\d\d:\d\d\.\d{3}/g, '<time>')
        .replaceAll(/paytx-\d{8}T\d{6}Z-[\da-f]{8}/g, '<reference>')
        .replaceAll(/; \S+ left/g, '; <time> left')
        .trimEnd()
        .split('\n')
    const page = readFileSync(join(ROOT, 'docs', 'flow.md'), 'utf8')
    const sample = page.match(/```\n\$ paytx flow --product dummy --amount 1499\n([\s\S]*?)```/)![1]
    const printed = normalize(`${result.stderr}${result.stdout}`)
    const expected = normalize(sample)
    // Webhooks and the redirect travel separately, so their order may differ; the rest may not.
    expect(printed.toSorted()).toEqual(expected.toSorted())
    const steadyLines = (lines: string[]) => lines.filter((line) => !line.includes('webhook received') && !/^ {13}<time>/.test(line))
    expect(steadyLines(printed)).toEqual(steadyLines(expected))
  })

  it('embeds the emulator when the local profile points at an address where nothing listens', async () => {
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const result = await runCli(['flow', '--product', 'dummy', '--amount', '1499', '--approve', 'SETTLEMENT_COMPLETED', '--json'], {
      env: {PAYTX_BASE_URL: base, PAYTX_H2H_URL: `${base}/h2h`},
    })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain(`✔ emulator started         ${base}  (in this process, until the flow ends)`)
    const summary = parseJsonOutput(result)
    expect(summary).toMatchObject({exitCode: 0, success: true, redirect: {received: true}})
    // Asking for SETTLEMENT_COMPLETED waits through the embedded emulator's default 3 s settlement.
    expect(summary.status).toBe('SETTLEMENT_COMPLETED')
    // The bodies name no status: each is read from the service when it arrives, so the first two
    // may already read a later one; the settlement request lasts 3 s, long enough to be read.
    expect(summary.webhooks.map((hook: {status?: string}) => hook.status).slice(-2)).toEqual(['SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED'])
    // ... and stops it when the flow ends.
    await expect(fetch(`${base}/v1/transaction/x`)).rejects.toThrow()
  })

  it('refuses --approve outcomes the page does not offer and --approve off the emulator, with exit 2 and nothing sent', async () => {
    const wrong = await runCli(['flow', '--product', 'sofort', '--amount', '100', '--approve', 'PENDING'], {env: env()})
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain('--approve PENDING is not offered by the sofort approval page; allowed: SETTLEMENT_COMPLETED, DECLINED, CANCELLED')
    expect(wrong.stdout).toBe('')

    const decimal = await runCli(['flow', '--product', 'dummy', '--amount', '14.99', '--approve', 'DECLINED', '--json'], {env: env()})
    expect(decimal.code).toBe(2)
    expect(parseJsonOutput(decimal).error).toMatchObject({kind: 'input', flag: '--amount'})
    expect(decimal.stderr).toBe('')
  })
})
