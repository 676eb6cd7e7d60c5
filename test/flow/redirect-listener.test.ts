import {connect} from 'node:net'

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

/** Sends `request` as raw bytes and reads the answer until the listener closes the connection (at most 10 s). */
function rawExchange(port: number, request: string | Buffer): Promise<{statusLine: string; headers: string; body: string}> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')))
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    // The listener may close while a long request is still being written: what it answered counts.
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)))
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1')
      const [head, body = ''] = text.split('\r\n\r\n')
      const [statusLine, ...headers] = head.split('\r\n')
      resolve({statusLine, headers: headers.join('\n').toLowerCase(), body})
    })
    socket.write(request)
  })
}

describe('redirect listener, malformed requests over raw sockets', () => {
  let listener: RedirectListener | undefined
  afterEach(async () => {
    await listener?.close()
    listener = undefined
  })

  it('answers each with its 4xx and a short plain page, counts it, and keeps waiting for the real redirect', async () => {
    listener = await startRedirectListener()
    listener.expectTransaction('tx-1')
    const {port} = listener
    const redirect = new URL(listener.redirectUrl).pathname
    const webhook = new URL(listener.webhookUrl).pathname
    let settled = false
    const waiting = listener.waitForRedirect().then((received) => {
      settled = true
      return received
    })
    waiting.catch(() => undefined) // awaited at the end; closed early only when an expectation failed
    const head = (line: string, ...headers: string[]) => `${line}\r\nHost: 127.0.0.1:${port}\r\n${headers.map((header) => `${header}\r\n`).join('')}\r\n`

    const cases: [string, string | Buffer, number, RegExp][] = [
      ['a method HTTP does not know', head(`FROB ${redirect}?transaction_id=tx-1 HTTP/1.1`), 405, /only get, head, post/i],
      ['a lower-case method', head(`get ${redirect}?transaction_id=tx-1 HTTP/1.1`), 405, /only/i],
      ['PUT on the redirect', head(`PUT ${redirect}?transaction_id=tx-1 HTTP/1.1`, 'Content-Length: 0'), 405, /only get/i],
      ['GET on the webhook', head(`GET ${webhook} HTTP/1.1`), 405, /only post/i],
      ['a wrong token', head('GET /flow/not-the-token/redirect?transaction_id=tx-1 HTTP/1.1'), 404, /not found/i],
      ['no token', head('GET /flow//redirect?transaction_id=tx-1 HTTP/1.1'), 404, /not found/i],
      ['the token behind a host-like path', head(`GET //evil.example${redirect}?transaction_id=tx-1 HTTP/1.1`), 404, /not found/i],
      ['a target that is not a path', head('OPTIONS * HTTP/1.1'), 400, /not a path/i],
      ['HTTP/1.1 without Host', `GET ${redirect}?transaction_id=tx-1 HTTP/1.1\r\n\r\n`, 400, /no Host header/],
      ['an HTTP version that does not exist', head(`GET ${redirect}?transaction_id=tx-1 HTTP/9.9`), 400, /not an HTTP request/],
      ['a header name with a space', head(`GET ${redirect}?transaction_id=tx-1 HTTP/1.1`, 'Bad Header: y'), 400, /not an HTTP request/],
      ['a space in the path', head('GET /a b HTTP/1.1'), 400, /not an HTTP request/],
      ['a bad percent escape', head(`GET ${redirect}?transaction_id=tx-1&error=100%zz HTTP/1.1`), 400, /two hex digits/],
      ['escapes that are not UTF-8', head(`GET ${redirect}?transaction_id=tx-1&error=%FF%FE HTTP/1.1`), 400, /UTF-8/],
      ['transaction_id twice', head(`GET ${redirect}?transaction_id=tx-1&transaction_id=tx-2 HTTP/1.1`), 400, /twice/],
      ['a body on the redirect', `${head(`GET ${redirect}?transaction_id=tx-1 HTTP/1.1`, 'Content-Length: 5').slice(0, -2)}\r\nhello`, 400, /no body/],
      ['a chunked body on the redirect', `${head(`GET ${redirect}?transaction_id=tx-1 HTTP/1.1`, 'Transfer-Encoding: chunked').slice(0, -2)}\r\n5\r\nhello\r\n0\r\n\r\n`, 400, /no body/],
      ['a URL over 8 KiB', head(`GET ${redirect}?transaction_id=tx-1&pad=${'a'.repeat(9000)} HTTP/1.1`), 414, /too long/],
      ['a URL over the whole head limit', head(`GET ${redirect}?transaction_id=tx-1&pad=${'a'.repeat(20_000)} HTTP/1.1`), 414, /too long/],
      ['a URL of 200 KB', head(`GET /${'a'.repeat(200_000)} HTTP/1.1`), 414, /too long/],
      ['a header of 20 KB', head(`GET ${redirect}?transaction_id=tx-1 HTTP/1.1`, `X-Pad: ${'b'.repeat(20_000)}`), 431, /header fields are too large/],
      ['headers of 200 KB', head(`GET ${redirect}?transaction_id=tx-1 HTTP/1.1`, ...Array.from({length: 2000}, (_, n) => `X-Pad-${n}: ${'c'.repeat(100)}`)), 431, /too large/],
      ['both Content-Length and chunked', `${head('POST /x HTTP/1.1', 'Content-Length: 5', 'Transfer-Encoding: chunked').slice(0, -2)}\r\n0\r\n\r\n`, 400, /not an HTTP request/],
      ['no HTTP at all', Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03, 0x0d, 0x0a, 0x0d, 0x0a]), 400, /not an HTTP request/],
    ]
    for (const [name, request, status, reason] of cases) {
      const answer = await rawExchange(port, request)
      expect(answer.statusLine, name).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
      expect(answer.headers, name).toContain('content-type: text/plain; charset=utf-8')
      if (status === 405) expect(answer.headers, name).toMatch(/^allow: /m)
      expect(answer.body, name).toMatch(reason)
      expect(answer.body.length, name).toBeLessThan(200)
      expect(settled, name).toBe(false)
    }
    expect(listener.rejected().map((entry) => entry.status)).toEqual(cases.map(([, , status]) => status))
    expect(listener.rejected().every((entry) => entry.path.length < 200)).toBe(true)

    const real = await rawExchange(port, head(`GET ${redirect}?transaction_id=tx-1 HTTP/1.1`))
    expect(real.statusLine).toBe('HTTP/1.1 200 OK')
    await expect(waiting).resolves.toMatchObject({transactionId: 'tx-1'})
  })
})

describe('redirect listener, webhooks', () => {
  it('lists webhooks in the order received, even when the status read for an earlier one answers last', async () => {
    let releaseFirst!: () => void
    const firstMayAnswer = new Promise<void>((resolve) => (releaseFirst = resolve))
    const listed: string[] = []
    const listener = await startRedirectListener({
      readStatus: async (id) => {
        if (id === 'tx-slow') await firstMayAnswer
        return {status: id === 'tx-slow' ? 'IN_PROGRESS' : 'INITIATED', updatedAt: '2000-01-01T00:00:00.000Z'}
      },
      onWebhook: (webhook) => listed.push(webhook.transactionId!),
    })
    try {
      expect((await post(listener.webhookUrl, JSON.stringify({type: 'transaction', id: 'tx-slow'}))).status).toBe(200)
      expect((await post(listener.webhookUrl, JSON.stringify({type: 'transaction', id: 'tx-quick'}))).status).toBe(200)
      // The second one's status is known at once, but it waits for the first.
      await new Promise((resolve) => setImmediate(resolve))
      releaseFirst()
      for (let tries = 0; listed.length < 2 && tries < 500; tries++) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(listed).toEqual(['tx-slow', 'tx-quick'])
      expect(listener.webhooks().map((hook) => [hook.transactionId, hook.status, hook.statusFrom, hook.movedOn, hook.duplicate])).toEqual([
        ['tx-slow', 'IN_PROGRESS', 'service', false, false],
        ['tx-quick', 'INITIATED', 'service', false, false],
      ])
    } finally {
      await listener.close()
    }
  })
})
