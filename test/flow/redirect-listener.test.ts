import {afterEach, describe, expect, it} from 'vitest'

import {type RedirectListener, startRedirectListener} from '../../src/flow/redirect-listener.js'
import {WEBHOOK_BODY_LIMIT_BYTES} from '../../src/webhooks/event.js'
import {canBind} from '../helpers/ports.js'

async function get(url: string): Promise<{status: number; text: string}> {
  const response = await fetch(url, {redirect: 'manual'})
  return {status: response.status, text: await response.text()}
}

async function post(url: string, body: string): Promise<{status: number; text: string}> {
  const response = await fetch(url, {method: 'POST', body, headers: {'content-type': 'application/json'}})
  return {status: response.status, text: await response.text()}
}

describe('redirect listener', () => {
  let listener: RedirectListener | undefined
  afterEach(async () => {
    await listener?.close()
    listener = undefined
  })

  it('listens on 127.0.0.1 at a random token path and accepts the expected transaction', async () => {
    listener = await startRedirectListener({describeOutcome: async () => ({status: 'SETTLEMENT_REQUESTED', success: true, final: false})})
    const other = await startRedirectListener()
    expect(listener.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/flow\/[\w-]{20,}\/redirect$/)
    expect(other.redirectUrl.split('/flow/')[1]).not.toBe(listener.redirectUrl.split('/flow/')[1])
    await other.close()

    listener.expectTransaction('tx-1')
    const waiting = listener.waitForRedirect()
    const landing = await get(`${listener.redirectUrl}?transaction_id=tx-1`)
    expect(landing.status).toBe(200)
    expect(landing.text).toContain('Payment finished: success')
    expect(landing.text).toContain('SETTLEMENT_REQUESTED')
    expect(landing.text).toContain('tx-1')
    expect(landing.text).toContain('The terminal running <code>paytx flow</code> has the result')
    await expect(waiting).resolves.toMatchObject({transactionId: 'tx-1', query: {transaction_id: 'tx-1'}})
    expect(listener.redirect()?.error).toBeUndefined()
  })

  it('refuses a wrong token, a wrong or missing transaction id, and keeps waiting', async () => {
    const refused: string[] = []
    listener = await startRedirectListener({onRejected: (r) => refused.push(`${r.status} ${r.path}`)})
    const base = new URL(listener.redirectUrl)
    expect((await get(`${listener.redirectUrl}?transaction_id=tx-1`)).status).toBe(400) // nothing expected yet
    listener.expectTransaction('tx-1')
    let settled = false
    const waiting = listener.waitForRedirect().then((r) => {
      settled = true
      return r
    })

    expect((await get(`${base.origin}/flow/wrong-token/redirect?transaction_id=tx-1`)).status).toBe(404)
    expect((await get(`${base.origin}/?transaction_id=tx-1`)).status).toBe(404)
    expect((await get(`${listener.redirectUrl}?transaction_id=tx-2`)).status).toBe(400)
    expect((await get(listener.redirectUrl)).status).toBe(400)
    expect((await post(listener.redirectUrl, '{}')).status).toBe(405)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(settled).toBe(false)
    expect((await get(`${base.origin}/favicon.ico`)).status).toBe(204) // browsers ask; not counted
    expect(listener.rejected()).toHaveLength(6)
    expect(refused.join('\n')).not.toContain(base.pathname.split('/')[2]) // the token never lands in logs
    expect(refused[1]).toBe('404 /flow/wrong-token/redirect')

    expect((await get(`${listener.redirectUrl}?transaction_id=tx-1`)).status).toBe(200)
    await expect(waiting).resolves.toMatchObject({transactionId: 'tx-1'})
  })

  it('shows the error parameter decoded, also on a redirect without transaction_id', async () => {
    listener = await startRedirectListener()
    listener.expectTransaction('tx-9')
    const message = 'Transaction is already final: <CANCELLED> & done'
    const landing = await get(`${listener.redirectUrl}?error=${encodeURIComponent(message)}`)
    expect(landing.status).toBe(200)
    expect(landing.text).toContain('The payment page reported a problem')
    expect(landing.text).toContain('Transaction is already final: &lt;CANCELLED&gt; &amp; done')
    expect(listener.redirect()).toMatchObject({error: message, transactionId: undefined})
  })

  it('records webhooks in order, marks duplicates, and refuses bad bodies without crashing', async () => {
    const received: string[] = []
    listener = await startRedirectListener({onWebhook: (w) => received.push(`${w.status}${w.duplicate ? '*' : ''}`)})
    const hook = (status: string) => post(listener!.webhookUrl, JSON.stringify({type: 'transaction', id: 'tx-1', status}))
    expect((await hook('SETTLEMENT_REQUESTED')).status).toBe(200)
    expect((await hook('SETTLEMENT_REQUESTED')).status).toBe(200)
    expect((await hook('SETTLEMENT_COMPLETED')).status).toBe(200)
    expect((await post(listener.webhookUrl, '{not json')).status).toBe(400)
    expect((await post(listener.webhookUrl, JSON.stringify({pad: 'x'.repeat(WEBHOOK_BODY_LIMIT_BYTES)}))).status).toBe(413)
    expect((await get(listener.webhookUrl)).status).toBe(405)
    expect((await post(listener.webhookUrl.replace('/webhook', 'x/webhook'), '{}')).status).toBe(404)
    expect(received).toEqual(['SETTLEMENT_REQUESTED', 'SETTLEMENT_REQUESTED*', 'SETTLEMENT_COMPLETED'])
    expect(listener.webhooks().map((w) => [w.transactionId, w.status, w.duplicate])).toEqual([
      ['tx-1', 'SETTLEMENT_REQUESTED', false],
      ['tx-1', 'SETTLEMENT_REQUESTED', true],
      ['tx-1', 'SETTLEMENT_COMPLETED', false],
    ])
    expect(listener.rejected().map((r) => r.status)).toEqual([400, 413, 405, 404])
  })

  it('frees its port on close and rejects waiters', async () => {
    listener = await startRedirectListener()
    const {port} = listener
    expect(await canBind(port)).toBe(false)
    const waiting = listener.waitForRedirect()
    await listener.close()
    await expect(waiting).rejects.toThrow('closed')
    expect(await canBind(port)).toBe(true)
  })

  it('stops waiting when the signal aborts', async () => {
    listener = await startRedirectListener()
    const controller = new AbortController()
    const waiting = listener.waitForRedirect(controller.signal)
    controller.abort(new Error('interrupted'))
    await expect(waiting).rejects.toThrow('interrupted')
  })

  it('names --port when the port is taken', async () => {
    listener = await startRedirectListener()
    await expect(startRedirectListener({port: listener.port})).rejects.toMatchObject({flag: '--port', exitCode: 2})
  })
})
