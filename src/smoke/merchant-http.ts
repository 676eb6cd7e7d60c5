/**
 * One request to the merchant's own service (the `start` step, the `check` reads): JSON out,
 * the answer read whole up to a cap, within a timeout that covers connecting and reading. No
 * redirect is followed. A failure to get any answer is a NetworkError (exit 1) naming the
 * address; what the answer says is the caller's to judge.
 */
import {NetworkError} from '../errors.js'
import {BodyTooLargeError, readCappedBody} from '../http/body.js'
import {Connections} from '../http/outgoing.js'
import {redactUrl} from '../secrets/redact-url.js'

/** The most of an answer a step reads: a merchant's JSON answer is far smaller. */
export const MERCHANT_ANSWER_MAX_BYTES = 1024 * 1024

export interface MerchantRequest {
  method: string
  url: string
  headers?: Record<string, string>
  /** Sent as JSON when given. */
  body?: unknown
  timeoutMs: number
  signal?: AbortSignal
}

export interface MerchantAnswer {
  status: number
  text: string
  /** The body as JSON, when it is JSON. */
  json?: unknown
  isJson: boolean
}

export async function merchantRequest(request: MerchantRequest): Promise<MerchantAnswer> {
  const timeout = AbortSignal.timeout(request.timeoutMs)
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout
  const connections = new Connections({connectTimeoutMs: request.timeoutMs})
  const body = request.body === undefined ? undefined : JSON.stringify(request.body)
  const headers: Record<string, string> = {accept: 'application/json', 'user-agent': 'paytx-smoke', ...(body === undefined ? {} : {'content-type': 'application/json'}), ...request.headers}
  const shown = `${request.method} ${redactUrl(request.url)}`
  try {
    const answer = await connections.send({url: request.url, method: request.method, headers, body, signal})
    const text = (await readCappedBody(answer.body, MERCHANT_ANSWER_MAX_BYTES)).toString('utf8')
    return {status: answer.status, text, ...parseJson(text)}
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason
    if (error instanceof BodyTooLargeError) {
      throw new NetworkError(`${shown} answered more than ${MERCHANT_ANSWER_MAX_BYTES} bytes; a smoke step reads at most that much.`)
    }
    const why = timeout.aborted ? `no answer within ${request.timeoutMs} ms` : (error as Error).message
    throw new NetworkError(`${shown} failed: ${why}.`, {hint: 'Check that your service is running at that address (and the step’s timeout).', cause: error})
  } finally {
    connections.destroy()
  }
}

function parseJson(text: string): {json?: unknown; isJson: boolean} {
  try {
    return {json: JSON.parse(text), isJson: true}
  } catch {
    return {isJson: false}
  }
}

/** An answer in one short line for a report: its status and the start of its body. */
export function describeAnswer(answer: Pick<MerchantAnswer, 'status' | 'text'>, maxChars = 160): string {
  const flat = answer.text.replace(/\s+/g, ' ').trim()
  const shown = flat.length > maxChars ? `${flat.slice(0, maxChars)}…` : flat
  return `HTTP ${answer.status}${shown ? ` ${shown}` : ' (empty body)'}`
}
