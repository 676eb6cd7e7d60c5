/**
 * What the flow's redirect listener refuses before its routes see a request, and how: a request
 * Node's parser cannot read (a method HTTP does not know, a head too large, broken framing) is
 * answered with a 4xx and a short plain page rather than a closed socket, so a browser or a script
 * that sent it learns why, and the listener keeps waiting for the real redirect. Also the checks
 * on a parsed request the routes share: the length of its URL and the shape of its query.
 */
import type {Server} from 'node:http'
import type {Socket} from 'node:net'

/** Longer than any redirect the service sends (its address, a token, two parameters); past this 414. */
export const MAX_URL_LENGTH = 8 * 1024

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Content Too Large',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
}

/** The methods the listener answers on some path: the redirect's GET and HEAD, the webhook's POST. */
export const ALLOWED_METHODS = 'GET, HEAD, POST'

export interface ParseRefusal {
  status: number
  reason: string
  /** The method as far as it could be read, for the log of refused requests. */
  method: string
}

/**
 * The answer to a request the parser gave up on. `requestLine`: the length of its request line,
 * undefined while it has not ended; a head too large with a long line (or none yet) is too long a
 * URL (414), otherwise too many or too long header fields (431).
 */
export function parseRefusal(error: NodeJS.ErrnoException & {rawPacket?: Buffer}, requestLine: number | undefined): ParseRefusal | undefined {
  const head = error.rawPacket?.subarray(0, 24).toString('latin1') ?? ''
  const method = /^([A-Za-z-]{1,20}) /.exec(head)?.[1] ?? '?'
  switch (error.code) {
    case 'ECONNRESET':
    case 'EPIPE': {
      return undefined
    }
    case 'HPE_HEADER_OVERFLOW': {
      return requestLine !== undefined && requestLine <= MAX_URL_LENGTH
        ? {status: 431, reason: 'The request header fields are too large.', method}
        : {status: 414, reason: `The address is too long (at most ${MAX_URL_LENGTH} characters are read).`, method}
    }
    case 'HPE_INVALID_METHOD': {
      // A word in the place of the method is a method HTTP does not know; bytes (a TLS handshake) are no HTTP at all.
      if (method !== '?') return {status: 405, reason: `Only ${ALLOWED_METHODS} are accepted here.`, method}
      return {status: 400, reason: 'This is not an HTTP request the listener can read.', method}
    }
    case 'ERR_HTTP_REQUEST_TIMEOUT': {
      return {status: 408, reason: 'The request did not arrive in time.', method}
    }
    default: {
      return {status: 400, reason: 'This is not an HTTP request the listener can read.', method}
    }
  }
}

/** A complete answer written straight to the socket: the parser is past sending one through a response. */
export function rawAnswer(status: number, reason: string, headers: Record<string, string> = {}): string {
  const body = `${reason}\n`
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}`,
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ]
  return `${lines.join('\r\n')}\r\n\r\n${body}`
}

/**
 * Answers what the parser refuses (see parseRefusal) and tells `onRefused`; a socket already gone
 * or broken is closed without an answer. Each connection carries one request (every answer of
 * the listener closes it), so its request line is the socket's first line.
 */
export function answerParseErrors(server: Server, onRefused: (refusal: ParseRefusal) => void): void {
  const requestLines = new WeakMap<Socket, number>()
  server.on('connection', (socket: Socket) => {
    let seen = 0
    const onData = (chunk: Buffer) => {
      const end = chunk.indexOf(0x0a)
      if (end === -1) {
        seen += chunk.length
        return
      }
      requestLines.set(socket, seen + end)
      socket.off('data', onData)
    }
    // `on` makes Node pass the bytes through JavaScript rather than straight to its parser; moved
    // to the front, this sees each chunk before the parser does, so the length is known when it fails.
    socket.on('data', onData)
    socket.off('data', onData)
    socket.prependListener('data', onData)
  })
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const refusal = parseRefusal(error, requestLines.get(socket))
    if (!refusal || !socket.writable) {
      socket.destroy()
      return
    }
    onRefused(refusal)
    socket.end(rawAnswer(refusal.status, refusal.reason, refusal.status === 405 ? {Allow: ALLOWED_METHODS} : {}))
    // A peer that never reads the answer does not hold the socket open.
    setTimeout(() => socket.destroy(), 2_000).unref()
  })
}

/**
 * Why a redirect's query cannot be what the service sends (it encodes each value with
 * encodeURIComponent), or undefined: a `%` not followed by two hex digits, escapes that do not
 * decode to UTF-8, or `transaction_id` or `error` given twice with different values (which one
 * would count is a guess the listener does not make).
 */
export function queryProblem(search: string): string | undefined {
  const query = search.startsWith('?') ? search.slice(1) : search
  if (/%(?![\dA-Fa-f]{2})/.test(query)) return 'it has a "%" not followed by two hex digits'
  for (const part of query.split(/[&=]/)) {
    try {
      decodeURIComponent(part)
    } catch {
      return 'an escape in it does not decode to UTF-8 text'
    }
  }
  const seen = new Map<string, string>()
  for (const [name, value] of new URLSearchParams(query)) {
    if ((name === 'transaction_id' || name === 'error') && seen.has(name) && seen.get(name) !== value) return `it gives ${name} twice, with different values`
    seen.set(name, value)
  }
  return undefined
}
