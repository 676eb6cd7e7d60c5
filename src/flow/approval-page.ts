/**
 * Completing the emulator's approval page without a browser, the way a browser would: GET the
 * page (the transaction moves to IN_PROGRESS), POST its form fields (application/x-www-form-
 * urlencoded), and take the 303's Location, which the caller then requests like a browser
 * following the redirect. Redirects are never followed automatically, so every hop is checked.
 */
import type {Product} from '../api/contract.js'
import {NetworkError, ResponseError} from '../errors.js'
import {statusLine} from '../api/http-client.js'
import {Connections, OutgoingError} from '../http/outgoing.js'
import {approvalFormFields} from '../test-mode/outcomes.js'

export interface ApprovalPageOptions {
  timeoutMs: number
  signal?: AbortSignal
}

async function browserRequest(
  url: string,
  init: {method: 'GET' | 'POST'; body?: string; timeoutMs: number; signal?: AbortSignal},
): Promise<{status: number; location?: string; text: string}> {
  const timeout = AbortSignal.timeout(init.timeoutMs)
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout
  const connections = new Connections({connectTimeoutMs: init.timeoutMs})
  try {
    const response = await connections.send({
      url,
      method: init.method,
      body: init.body,
      headers: init.body === undefined ? {accept: 'text/html'} : {accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded'},
      signal,
    })
    const chunks: Buffer[] = []
    for await (const chunk of response.body as AsyncIterable<Buffer>) chunks.push(chunk)
    return {status: response.status, location: response.headers.location, text: Buffer.concat(chunks).toString('utf8')}
  } catch (error) {
    if (init.signal?.aborted) throw init.signal.reason
    const what = timeout.aborted ? `no answer within ${init.timeoutMs} ms` : (error as Error).message
    throw new NetworkError(`${init.method} ${url} failed: ${what}.`, {
      hint: 'Check that the emulator is running and reachable at the profile’s base URL.',
      mayHaveReachedService: init.method === 'POST' && !(error instanceof OutgoingError && !error.sent),
      cause: error,
    })
  } finally {
    connections.close()
  }
}

function pageText(html: string): string {
  const flat = html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat
}

/**
 * Opens the approval page and submits the outcome's form. Returns the absolute address the page
 * redirected to (the transaction's redirect_url with `transaction_id`, or `error`).
 */
export async function completeApprovalPage(
  approvalUrl: string,
  product: Product,
  outcome: string,
  options: ApprovalPageOptions & {cvv?: string},
): Promise<string> {
  const fields = approvalFormFields(product, outcome, {cvv: options.cvv})
  if (!fields) throw new ResponseError(`The ${product} approval page offers no outcome ${outcome}.`)
  const page = await browserRequest(approvalUrl, {method: 'GET', timeoutMs: options.timeoutMs, signal: options.signal})
  if (page.status !== 200) {
    throw new ResponseError(
      `The approval page ${approvalUrl} answered ${statusLine(page.status)}: ${pageText(page.text)}`,
      undefined,
      {kind: 'check-profile', concern: 'emulator-only'},
    )
  }
  const submitted = await browserRequest(approvalUrl, {
    method: 'POST',
    body: new URLSearchParams(fields).toString(),
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  })
  if (submitted.status < 300 || submitted.status >= 400 || !submitted.location) {
    throw new ResponseError(
      `Submitting the approval page answered ${statusLine(submitted.status)} instead of a redirect: ${pageText(submitted.text)}`,
    )
  }
  return new URL(submitted.location, approvalUrl).toString()
}

/** Requests the redirect address like a browser landing on it; returns the landing page's status. */
export async function followRedirect(location: string, options: ApprovalPageOptions): Promise<number> {
  const landing = await browserRequest(location, {method: 'GET', timeoutMs: options.timeoutMs, signal: options.signal})
  return landing.status
}
