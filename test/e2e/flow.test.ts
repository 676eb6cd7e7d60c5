/**
 * `paytx flow` as a spawned bin/run.js: the sample of docs/flow.md with a real BROWSER, and the flow that
 * embeds the emulator in its own process. The rest is in test/commands/flow-runs.test.ts.
 */
import {chmodSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {ROOT, parseJsonOutput, runCli, startCli} from '../helpers/cli.js'
import {freePort} from '../helpers/ports.js'

let emulator: RunningEmulator

beforeAll(async () => {
  emulator = await startEmulator({port: 0, settleAfterMs: 150, pendingForMs: 150, webhookBackoffMs: 20})
})
afterAll(() => emulator.close())


describe('paytx flow --approve against the emulator', () => {
  it('prints exactly what the flow sample of docs/flow.md shows, up to ids, times and the port', async () => {
    // A BROWSER that hands the page to a "person" in the background and exits 0, like xdg-open.
    const dir = mkdtempSync(join(tmpdir(), 'paytx-readme-'))
    const person = join(dir, 'person.mjs')
    // The person opens the page once the flow has shown the INITIATED webhook, and approves once it
    // has shown IN_PROGRESS: the emulator's webhooks carry no status, so the flow reads it when
    // each comes, and a person quicker than that read would make the flow see a later status.
    // The test hands each go-ahead over as a file, when the flow's output shows the webhook.
    writeFileSync(
      person,
      `import {existsSync} from 'node:fs'
const url = process.argv.at(-1)
const goAhead = async (name) => {
  for (let tries = 0; !existsSync(${JSON.stringify(dir)} + '/' + name); tries++) {
    if (tries > 3000) process.exit(1)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
await goAhead('open')
const page = await (await fetch(url)).text()
const action = new URL(page.match(/<form[^>]*action="([^"]+)"/)[1].replaceAll('&amp;', '&'), url)
const button = page.match(/<button[^>]*name="(\\w+)" value="SETTLEMENT_REQUESTED"/)
await goAhead('approve')
const answer = await fetch(action, {method: 'POST', body: new URLSearchParams({[button[1]]: 'SETTLEMENT_REQUESTED'}), redirect: 'manual'})
await fetch(new URL(answer.headers.get('location'), action))
`,
    )
    const opener = join(dir, 'opener.sh')
    writeFileSync(opener, `#!/bin/sh\n("${process.execPath}" "${person}" "$1" >/dev/null 2>&1 &)\nexit 0\n`)
    chmodSync(opener, 0o755)
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const flow = startCli(['flow', '--product', 'dummy', '--amount', '1499'], {env: {PAYTX_BASE_URL: base, PAYTX_H2H_URL: `${base}/h2h`, BROWSER: opener}, timeoutMs: 60_000})
    await flow.waitForStderr(/webhook received +INITIATED/, 30_000)
    writeFileSync(join(dir, 'open'), '')
    await flow.waitForStderr(/webhook received +IN_PROGRESS/, 30_000)
    writeFileSync(join(dir, 'approve'), '')
    const result = await flow.done
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
})
