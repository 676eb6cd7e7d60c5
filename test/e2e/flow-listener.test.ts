/**
 * The flow's redirect listener seen from outside while `paytx flow` runs: stray and forged
 * redirects refused, the `error` parameter, Ctrl-C, and a fake BROWSER that completes the page.
 */
import {chmodSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {parseJsonOutput, startCli} from '../helpers/cli.js'
import {canBind, freePort} from '../helpers/ports.js'

let emulator: RunningEmulator
const env = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl})

beforeAll(async () => {
  emulator = await startEmulator({port: 0, settleAfterMs: 150, pendingForMs: 150, webhookBackoffMs: 20})
})
afterAll(() => emulator.close())

async function transaction(id: string): Promise<any> {
  const response = await fetch(`${emulator.url}/v1/transaction/${id}`, {headers: {[emulator.apiKeyHeader]: emulator.apiKey}})
  return response.json()
}

/** Submits an approval form like a browser, without following the 303; returns its Location. */
async function submitApproval(approvalUrl: string, fields: Record<string, string>): Promise<string> {
  const response = await fetch(approvalUrl, {
    method: 'POST',
    body: new URLSearchParams(fields),
    redirect: 'manual',
  })
  expect(response.status).toBe(303)
  return response.headers.get('location')!
}

/** Starts `paytx flow --no-open` and returns it once the approval page is printed. */
async function startWaitingFlow(extra: string[] = []) {
  const cli = startCli(['flow', '--product', 'dummy', '--amount', '1499', '--no-open', '--json', ...extra], {env: env(), timeoutMs: 40_000})
  const [, approvalUrl] = await cli.waitForStderr(/approval page +(http:\S+)/)
  const [, id] = approvalUrl.match(/\/transaction\/([^/]+)\/authorize/)!
  await cli.waitForStderr(/ℹ waiting +for the redirect/)
  const redirectUrl: string = (await transaction(id)).details.redirect_url
  return {cli, approvalUrl, id, redirectUrl}
}

describe('paytx flow: the redirect listener', () => {
  it('refuses a wrong token and another transaction id (404/400), keeps waiting, then takes the real redirect', async () => {
    const {cli, approvalUrl, id, redirectUrl} = await startWaitingFlow()
    const listener = new URL(redirectUrl)
    expect(listener.hostname).toBe('127.0.0.1')
    expect(listener.pathname).toMatch(/^\/flow\/[\w-]{20,}\/redirect$/)

    const wrongToken = await fetch(`${listener.origin}/flow/not-the-token/redirect?transaction_id=${id}`)
    expect(wrongToken.status).toBe(404)
    const otherTransaction = await fetch(`${redirectUrl}?transaction_id=someone-elses`)
    expect(otherTransaction.status).toBe(400)
    const noId = await fetch(redirectUrl)
    expect(noId.status).toBe(400)
    const wrongMethod = await fetch(`${redirectUrl}?transaction_id=${id}`, {method: 'PUT'})
    expect(wrongMethod.status).toBe(405)
    await cli.waitForStderr(/⚠ listener refused +GET \/flow\/<token>\/redirect: 400/)
    expect(cli.child.exitCode).toBeNull() // still waiting

    const location = await submitApproval(approvalUrl, {outcome: 'CANCELLED'})
    const landing = await fetch(location)
    expect(landing.status).toBe(200)
    const page = await landing.text()
    expect(page).toContain('Payment finished: not a success')
    expect(page).toContain('CANCELLED')

    const result = await cli.done
    expect(result.code, result.stderr).toBe(3)
    // Counted as what each was: a 405 is a wrong method, not a wrong token.
    expect(parseJsonOutput(result)).toMatchObject({status: 'CANCELLED', redirect: {received: true, transactionId: id}, rejectedRequests: 4, rejectedByStatus: {'400': 2, '404': 1, '405': 1}})
    expect(result.stderr).not.toContain(listener.pathname.split('/')[2]) // the token is never printed
  }, 45_000)

  it('shows the error parameter of a problem redirect decoded and still asks the service', async () => {
    const {cli, approvalUrl} = await startWaitingFlow()
    await submitApproval(approvalUrl, {outcome: 'DECLINED'}) // completes; its redirect is left unfollowed
    // Opening the page again: already final, so the emulator redirects with `error`.
    const again = await fetch(approvalUrl, {redirect: 'manual'})
    expect(again.status).toBe(303)
    const location = again.headers.get('location')!
    expect(location).toContain('error=')
    const landing = await fetch(location)
    expect(await landing.text()).toContain('The transaction is already DECLINED; it cannot be approved again.')

    const result = await cli.done
    expect(result.code, result.stderr).toBe(3)
    const summary = parseJsonOutput(result)
    expect(summary).toMatchObject({status: 'DECLINED', redirect: {received: true, error: 'The transaction is already DECLINED; it cannot be approved again.'}})
    expect(result.stderr).toMatch(/✖ redirect with error +The transaction is already DECLINED; it cannot be approved again\./)
  }, 45_000)

  it('a redirect error holding control characters cannot draw a line or move the cursor; --json keeps it exact', async () => {
    const {cli, approvalUrl, id, redirectUrl} = await startWaitingFlow()
    await submitApproval(approvalUrl, {outcome: 'DECLINED'})
    const forged = 'oops\n✔ final status            SETTLEMENT_COMPLETED  success\u001b[2J\u001b]0;pwned\u0007'
    const separator = redirectUrl.includes('?') ? '&' : '?'
    await fetch(`${redirectUrl}${separator}transaction_id=${id}&error=${encodeURIComponent(forged)}`)

    const result = await cli.done
    expect(result.code, result.stderr).toBe(3)
    expect(result.stderr).not.toMatch(/^✔ final status +SETTLEMENT_COMPLETED/m)
    expect(result.stderr).not.toContain('\u001b')
    expect(result.stderr).toMatch(/^✖ redirect with error +oops\\n✔ final status +SETTLEMENT_COMPLETED {2}success\\x1b\[2J\\x1b\]0;pwned\\x07$/m)
    expect(parseJsonOutput(result)).toMatchObject({status: 'DECLINED', redirect: {received: true, error: forged}})
  }, 45_000)

  it('stops on Ctrl-C: exit 130, the transaction id printed, the listener port freed', async () => {
    const chosen = await freePort()
    const {cli, id, redirectUrl} = await startWaitingFlow(['--port', String(chosen)])
    const port = Number(new URL(redirectUrl).port)
    expect(port).toBe(chosen)
    expect(await canBind(port)).toBe(false)
    cli.child.kill('SIGINT')
    const result = await cli.done
    expect(result.code).toBe(130)
    expect(parseJsonOutput(result).error).toMatchObject({kind: 'interrupted', exitCode: 130})
    expect(result.stdout).toContain(id)
    expect(await canBind(port)).toBe(true)
    expect((await transaction(id)).status).toBe('INITIATED') // left as it was
  }, 45_000)

  it.each(['SIGINT', 'SIGTERM'] as const)('stops on %s in human mode with the id and how to look it up on stderr', async (signal) => {
    const cli = startCli(['flow', '--product', 'dummy', '--amount', '100', '--no-open'], {env: env(), timeoutMs: 40_000})
    const [, id] = await cli.waitForStderr(/transaction started +(\S+)/)
    await cli.waitForStderr(/ℹ waiting +for the redirect/)
    cli.child.kill(signal)
    const result = await cli.done
    expect(result.code).toBe(130)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(`Interrupted; transaction ${id} was left as it is.`)
    expect(result.stderr).toContain(`./bin/run.js status ${id}`)
  }, 45_000)

  it('opens the approval page with BROWSER: a fake browser submits the form and follows the redirect', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paytx-browser-'))
    const browser = join(dir, 'fake browser.mjs')
    // Reads the page, finds the form and the button for the wanted outcome, posts it and lands.
    writeFileSync(
      browser,
      `#!/usr/bin/env node
const url = process.argv.at(-1)
const page = await (await fetch(url)).text()
const action = new URL(page.match(/<form[^>]*action="([^"]+)"/)[1].replaceAll('&amp;', '&'), url)
const button = page.match(/<button[^>]*name="(\\w+)" value="FAILED"/)
const answer = await fetch(action, {method: 'POST', body: new URLSearchParams({[button[1]]: 'FAILED'}), redirect: 'manual'})
const landing = await fetch(new URL(answer.headers.get('location'), action))
const text = await landing.text()
if (!text.includes('Payment finished')) process.exit(1)
`,
    )
    chmodSync(browser, 0o755)
    const cli = startCli(['flow', '--product', 'dummy', '--amount', '1499', '--json'], {env: {...env(), BROWSER: `"${browser}" --new-window %s`}, timeoutMs: 40_000})
    const result = await cli.done
    expect(result.code, result.stderr).toBe(3)
    expect(result.stderr).toMatch(/✔ approval page opened +http:\/\/127\.0\.0\.1:\d+\/v1\/transaction\/\S+\/authorize/)
    expect(parseJsonOutput(result)).toMatchObject({status: 'FAILED', redirect: {received: true}, success: false})
  }, 45_000)

  it('says so and keeps waiting when BROWSER cannot be started', async () => {
    const cli = startCli(['flow', '--product', 'dummy', '--amount', '1499', '--json'], {env: {...env(), BROWSER: '/nonexistent/browser'}, timeoutMs: 40_000})
    await cli.waitForStderr(/✖ no browser +could not open one: could not run BROWSER=\/nonexistent\/browser/)
    const [, approvalUrl] = await cli.waitForStderr(/ℹ approval page +(http:\S+) +\(open it by hand\)/)
    await cli.waitForStderr(/ℹ or +run the flow again with --approve <STATUS> to finish without a browser \(SETTLEMENT_COMPLETED, SETTLEMENT_REQUESTED, /)
    const location = await submitApproval(approvalUrl, {outcome: 'SETTLEMENT_REQUESTED'})
    await fetch(location)
    const result = await cli.done
    expect(result.code, result.stderr).toBe(0)
    expect(parseJsonOutput(result)).toMatchObject({status: 'SETTLEMENT_REQUESTED', success: true})
  }, 45_000)

  it('says no browser could be opened when BROWSER exits 1, prints the address and the time left, and takes the redirect', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paytx-browser-'))
    const browser = join(dir, 'no-display-browser')
    writeFileSync(browser, '#!/bin/sh\necho "cannot open display" >&2\nexit 1\n')
    chmodSync(browser, 0o755)
    const cli = startCli(['flow', '--product', 'dummy', '--amount', '1499', '--wait-timeout', '90s', '--json'], {env: {...env(), BROWSER: browser}, timeoutMs: 40_000})
    await cli.waitForStderr(/ℹ waiting +for the redirect: complete the payment in the browser; 1m30s left \(Ctrl-C to stop\)/)
    const stderr = cli.stderr()
    expect(stderr).toMatch(new RegExp(`^✖ no browser +could not open one: BROWSER=${browser.replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&')} exited with code 1$`, 'm'))
    expect(stderr).not.toContain('approval page opened')
    const [, approvalUrl] = stderr.match(/^ℹ approval page +(http:\/\/127\.0\.0\.1:\d+\/v1\/transaction\/\S+\/authorize) +\(open it by hand\)$/m)!
    const location = await submitApproval(approvalUrl, {outcome: 'DECLINED'})
    await fetch(location)
    const result = await cli.done
    expect(result.code, result.stderr).toBe(3)
    const summary = parseJsonOutput(result)
    expect(summary).toMatchObject({status: 'DECLINED', redirect: {received: true}})
    expect(summary.timeline).toContainEqual(expect.objectContaining({kind: 'approval-not-opened', url: approvalUrl, reason: `BROWSER=${browser} exited with code 1`}))
    expect(result.stderr).toMatch(/^✔ redirect received +transaction_id=/m)
  }, 45_000)
})
