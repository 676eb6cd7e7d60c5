/**
 * The flow's one-shot local listener on 127.0.0.1: it catches the browser's redirect back from
 * the approval page and, on the same port, the transaction's webhooks.
 *
 * Both paths carry a random token, so no other redirect or webhook is accepted: a request on any
 * other path gets 404, a redirect without the expected `transaction_id` gets 400; each is counted
 * and the listener keeps waiting. The browser is answered with a small page saying the payment
 * finished and where the result is.
 */
import {randomBytes} from 'node:crypto'
import type {IncomingMessage, Server, ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'

import {InputError} from '../errors.js'
import {escapeHtml, renderHtmlDocument} from '../http/html.js'
import {DuplicateDetector, type WebhookEvent, readWebhookEvent} from '../webhooks/event.js'

export const LISTENER_HOST = '127.0.0.1'
/** Webhook bodies above this size are refused with 413. */
export const MAX_WEBHOOK_BYTES = 1024 * 1024

export interface RedirectReceived {
  transactionId?: string
  /** The `error` query parameter, decoded. */
  error?: string
  /** Every query parameter as received, decoded. */
  query: Record<string, string>
  receivedAt: string
}

export interface ReceivedWebhook extends WebhookEvent {
  receivedAt: string
  /** The same (transaction id, status) arrived before. */
  duplicate: boolean
}

export interface RejectedRequest {
  method: string
  /** The path without its query, with the token replaced so it never lands in logs. */
  path: string
  status: number
  reason: string
}

/** What the browser's landing page says about the payment, when the flow could read it in time. */
export interface LandingOutcome {
  status: string
  success: boolean
  final: boolean
}

export interface RedirectListenerOptions {
  /** 0 or undefined picks a free port. */
  port?: number
  /** The landing page waits this long for `describeOutcome`. */
  landingWaitMs?: number
  /** Asked once per accepted redirect, so the landing page can show the status. */
  describeOutcome?: (redirect: RedirectReceived) => Promise<LandingOutcome | undefined>
  onRejected?: (request: RejectedRequest) => void
  onWebhook?: (webhook: ReceivedWebhook) => void
}

export interface RedirectListener {
  port: number
  /** The address passed as `details.redirect_url`. */
  redirectUrl: string
  /** The address passed as `webhook_transaction_update`. */
  webhookUrl: string
  /** The transaction whose redirect is accepted; set once the transaction is started. */
  expectTransaction(id: string): void
  /** Resolves with the first accepted redirect; rejects when the signal aborts or the listener closes. */
  waitForRedirect(signal?: AbortSignal): Promise<RedirectReceived>
  redirect(): RedirectReceived | undefined
  webhooks(): ReceivedWebhook[]
  rejected(): RejectedRequest[]
  /** Stops listening and frees the port; in-flight answers get a moment to finish. */
  close(): Promise<void>
}

/** The `error` parameter is encodeURIComponent text; a second decoding undoes double encoding. */
function decodeErrorParam(value: string): string {
  try {
    return /%[0-9A-Fa-f]{2}/.test(value) ? decodeURIComponent(value) : value
  } catch {
    return value
  }
}

export function landingPage(redirect: RedirectReceived, outcome: LandingOutcome | undefined): string {
  let headline = 'Payment finished'
  if (redirect.error !== undefined) headline = 'The payment page reported a problem'
  else if (outcome && (outcome.final || outcome.success)) headline = outcome.success ? 'Payment finished: success' : 'Payment finished: not a success'
  const problem = redirect.error === undefined ? '' : `<p class="error" id="error">${escapeHtml(redirect.error)}</p>\n`
  const status = outcome
    ? `<p>Status: <span class="status" id="status">${escapeHtml(outcome.status)}</span>${
        outcome.final || outcome.success ? '' : ' (not final yet; the terminal keeps waiting)'
      }</p>\n`
    : ''
  return renderHtmlDocument(
    `paytx: ${headline}`,
    `<p class="brand">paytx flow</p>
<div class="panel">
<h1 id="headline">${escapeHtml(headline)}</h1>
${problem}${status}<p>Transaction <code id="transaction">${escapeHtml(redirect.transactionId ?? '(none)')}</code></p>
<p class="lead">The terminal running <code>paytx flow</code> has the result, read from the service. You can close this tab.</p>
</div>`,
  )
}

export async function startRedirectListener(options: RedirectListenerOptions = {}): Promise<RedirectListener> {
  const {createServer} = await import('node:http')
  const token = randomBytes(18).toString('base64url')
  const redirectPath = `/flow/${token}/redirect`
  const webhookPath = `/flow/${token}/webhook`
  const landingWaitMs = options.landingWaitMs ?? 5_000

  let expectedId: string | undefined
  let accepted: RedirectReceived | undefined
  let landing: Promise<LandingOutcome | undefined> | undefined
  const waiters = new Set<{resolve: (r: RedirectReceived) => void; reject: (e: Error) => void}>()
  const webhooks: ReceivedWebhook[] = []
  const duplicates = new DuplicateDetector()
  const rejected: RejectedRequest[] = []
  let closed = false

  const reject = (req: IncomingMessage, res: ServerResponse, status: number, reason: string) => {
    const path = (req.url ?? '/').split('?')[0].split(token).join('<token>')
    const entry = {method: req.method ?? '', path, status, reason}
    rejected.push(entry)
    options.onRejected?.(entry)
    res.writeHead(status, {'content-type': 'text/plain; charset=utf-8', connection: 'close'})
    res.end(`${reason}\n`)
  }

  const outcomeFor = (redirect: RedirectReceived): Promise<LandingOutcome | undefined> => {
    if (!options.describeOutcome) return Promise.resolve(undefined)
    landing ??= options.describeOutcome(redirect).catch(() => undefined)
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), landingWaitMs)))
    return Promise.race([landing, timeout]).finally(() => clearTimeout(timer))
  }

  const handleRedirect = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      reject(req, res, 405, 'Only GET is accepted on the redirect address.')
      return
    }
    const query = Object.fromEntries(url.searchParams)
    const transactionId = query.transaction_id || undefined
    const error = query.error === undefined ? undefined : decodeErrorParam(query.error)
    if (!expectedId) {
      reject(req, res, 400, 'No transaction is expected yet.')
      return
    }
    // A problem redirect may come without an id; with an id it must be ours.
    if (transactionId !== expectedId && !(error !== undefined && transactionId === undefined)) {
      reject(req, res, 400, transactionId ? 'This redirect is for another transaction.' : 'The redirect has no transaction_id.')
      return
    }
    if (!accepted) {
      accepted = {transactionId, error, query, receivedAt: new Date().toISOString()}
      for (const waiter of waiters) waiter.resolve(accepted)
      waiters.clear()
    }
    const outcome = await outcomeFor(accepted)
    res.writeHead(200, {'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', connection: 'close'})
    res.end(req.method === 'HEAD' ? undefined : landingPage(accepted, outcome))
  }

  const handleWebhook = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') {
      reject(req, res, 405, 'Only POST is accepted on the webhook address.')
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_WEBHOOK_BYTES) tooLarge = true
      else chunks.push(chunk)
    })
    req.on('error', () => undefined)
    req.on('end', () => {
      if (tooLarge) {
        reject(req, res, 413, `The body is larger than ${MAX_WEBHOOK_BYTES} bytes.`)
        return
      }
      let body: unknown
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        reject(req, res, 400, 'The body is not JSON.')
        return
      }
      const event = readWebhookEvent(body)
      const duplicate = duplicates.isDuplicate(event)
      const webhook: ReceivedWebhook = {...event, receivedAt: new Date().toISOString(), duplicate}
      webhooks.push(webhook)
      res.writeHead(200, {'content-type': 'application/json'})
      res.end('{"received":true}')
      options.onWebhook?.(webhook)
    })
  }

  const server: Server = createServer((req, res) => {
    let url: URL
    try {
      url = new URL(req.url ?? '/', `http://${LISTENER_HOST}`)
    } catch {
      reject(req, res, 400, 'Bad request.')
      return
    }
    if (url.pathname === redirectPath) {
      handleRedirect(req, res, url).catch(() => {
        if (!res.headersSent) res.writeHead(500)
        res.end()
      })
    } else if (url.pathname === webhookPath) {
      handleWebhook(req, res)
    } else if (url.pathname === '/favicon.ico') {
      // Browsers ask for it along with the landing page; not a stray redirect worth reporting.
      req.resume()
      res.writeHead(204).end()
    } else {
      req.resume()
      reject(req, res, 404, 'Not found.')
    }
  })
  server.on('clientError', (_error, socket) => socket.destroy())

  await new Promise<void>((resolve, rejectListen) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        rejectListen(new InputError(`Port ${options.port} on ${LISTENER_HOST} is in use.`, {flag: '--port', hint: 'Pick another port, or leave --port out to use a free one.'}))
      } else if (error.code === 'EACCES') {
        rejectListen(new InputError(`Not allowed to listen on port ${options.port}.`, {flag: '--port', hint: 'Use a port above 1023, or leave --port out.'}))
      } else rejectListen(error)
    })
    server.listen(options.port ?? 0, LISTENER_HOST, () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  const base = `http://${LISTENER_HOST}:${port}`

  return {
    port,
    redirectUrl: `${base}${redirectPath}`,
    webhookUrl: `${base}${webhookPath}`,
    expectTransaction(id) {
      expectedId = id
    },
    waitForRedirect(signal) {
      if (accepted) return Promise.resolve(accepted)
      if (closed) return Promise.reject(new Error('The redirect listener is closed.'))
      return new Promise<RedirectReceived>((resolve, rejectWait) => {
        if (signal?.aborted) {
          rejectWait(signal.reason)
          return
        }
        const onAbort = () => {
          waiters.delete(waiter)
          rejectWait(signal!.reason)
        }
        const waiter = {
          resolve: (redirect: RedirectReceived) => {
            signal?.removeEventListener('abort', onAbort)
            resolve(redirect)
          },
          reject: (error: Error) => {
            signal?.removeEventListener('abort', onAbort)
            rejectWait(error)
          },
        }
        waiters.add(waiter)
        signal?.addEventListener('abort', onAbort, {once: true})
      })
    },
    redirect: () => accepted,
    webhooks: () => [...webhooks],
    rejected: () => [...rejected],
    async close() {
      if (closed) return
      closed = true
      for (const waiter of waiters) waiter.reject(new Error('The redirect listener is closed.'))
      waiters.clear()
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), 1_000)
        server.close(() => {
          clearTimeout(force)
          resolve()
        })
        server.closeIdleConnections()
      })
    },
  }
}
