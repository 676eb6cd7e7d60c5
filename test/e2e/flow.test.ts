/**
 * `paytx flow` as a spawned bin/run.js: the sample of docs/flow.md with a real BROWSER, and the flow that
 * embeds the emulator in its own process. The rest is in test/commands/flow-runs.test.ts.
 */
import {chmodSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {ROOT, parseJsonOutput, runCli} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'

let emulator: RunningEmulator

beforeAll(async () => {
  emulator = await startEmulator({port: 0, settleAfterMs: 150, pendingForMs: 150, webhookBackoffMs: 20})
})
afterAll(() => emulator.close())


describe('paytx flow --approve against the emulator', () => {
  it('prints exactly what the flow sample of docs/flow.md shows, up to ids, times and the port', async () => {
    // A BROWSER that hands the page to a "person" in the background and exits 0, like xdg-open,
    // who opens it and approves at once: the emulator's webhooks carry no status, so the flow reads
    // it when each comes, and may find the transaction already further on.
    const dir = mkdtempSync(join(tmpdir(), 'paytx-readme-'))
    const person = join(dir, 'person.mjs')
    writeFileSync(
      person,
      `const url = process.argv.at(-1)
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
    const result = await runCli(['flow', '--product', 'dummy', '--amount', '1499'], {env: {PAYTX_BASE_URL: base, PAYTX_H2H_URL: `${base}/h2h`, BROWSER: opener}, timeoutMs: 60_000})
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
    // Webhooks and the redirect travel separately, so their order may differ, and the status each
    // webhook is read with depends on how far the payment got by then; the rest may not differ.
    const steadyLines = (lines: string[]) => lines.filter((line) => !line.includes('webhook received') && !/^ {13}<time>/.test(line))
    expect(steadyLines(printed)).toEqual(steadyLines(expected))
    // The truth about the webhooks: the emulator sent one per move (INITIATED, IN_PROGRESS,
    // SETTLEMENT_REQUESTED; its settlement comes 3 s later), each is listed once in the order
    // received, none is called a duplicate, and each status is said to be read from the service,
    // never one from before the move the webhook was sent for.
    const moves = ['INITIATED', 'IN_PROGRESS', 'SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED']
    const received = printed.flatMap((line) => {
      const match = /^✔ webhook received +([A-Z_]+)  \(read from the service(?: when it came|, which had moved on since it came)\)$/.exec(line)
      return match ? [match[1]] : []
    })
    expect(received.length, printed.join('\n')).toBe(printed.filter((line) => line.includes('webhook received')).length)
    // Two at least (INITIATED and IN_PROGRESS come before the approval's answer); the flow waits
    // 2 s (webhookGraceMs) for the final status's own, which a loaded machine may deliver later.
    expect([2, 3, 4]).toContain(received.length)
    received.forEach((status, index) => expect(moves.indexOf(status)).toBeGreaterThanOrEqual(index))
    expect(printed.join('\n')).not.toContain('duplicate')
    // The summary lists those received before it was printed, in the same order: on a loaded
    // machine the last one may come after it (its line on stderr, the summary on stdout).
    const summaryRows = printed.filter((line) => /^(Webhooks {5}| {13})<time>  transaction  /.test(line))
    const summarized = summaryRows.map((row) => row.replace(/^(Webhooks {5}| {13})<time>  transaction  /, '').split('  ')[0])
    expect(summarized.length).toBeGreaterThanOrEqual(2)
    expect(summarized).toEqual(received.slice(0, summarized.length))
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
    // One webhook per move, each listed once in the order received, none a duplicate. The bodies
    // name no status: each is read from the service when it arrives, so the first two may already
    // read a later one; the settlement request lasts 3 s, long enough to be read; the flow waits
    // for the settlement's own webhook (read when it came, not after the service moved on).
    type Hook = {status?: string; statusFrom?: string; movedOn?: boolean; duplicate: boolean; receivedAt: string}
    const hooks: Hook[] = summary.webhooks
    expect(hooks).toHaveLength(4)
    expect(hooks.map((hook) => hook.duplicate)).toEqual([false, false, false, false])
    expect(hooks.map((hook) => hook.receivedAt)).toEqual(hooks.map((hook) => hook.receivedAt).toSorted())
    expect(hooks.every((hook) => hook.statusFrom === 'service')).toBe(true)
    expect(hooks.map((hook) => hook.status).slice(-2)).toEqual(['SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED'])
    expect(hooks.at(-1)!.movedOn).toBe(false)
    // ... and stops it when the flow ends.
    await expect(fetch(`${base}/v1/transaction/x`)).rejects.toThrow()
  })
})
