/**
 * A real HTTP server on 127.0.0.1 that records every request (method, path, headers, body) and
 * answers from a queue of scripted replies, so tests can check exactly what the CLI sent.
 */
import {type IncomingHttpHeaders, type Server, type ServerResponse, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

export interface RecordedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  rawBody: string
  body: any
}

export interface Reply {
  status?: number
  json?: unknown
  /** A raw body (not JSON) to send as is. */
  text?: string
  headers?: Record<string, string>
  /** Wait this long before answering (to provoke timeouts). */
  delayMs?: number
  /** Answer only once this settles: a server that holds the request until the test lets it go. */
  heldUntil?: Promise<unknown>
  /** Destroy the socket without answering. */
  destroy?: boolean
}

export type Responder = (req: RecordedRequest) => Reply | undefined

export interface RecordingServer {
  url: string
  port: number
  requests: RecordedRequest[]
  /** Replies used in order for matching requests; the fallback answers the rest. */
  reply(match: (req: RecordedRequest) => boolean, ...replies: Reply[]): void
  close(): Promise<void>
}

export async function startRecordingServer(fallback: Responder = () => ({status: 404, json: {code: '404', message: 'Not found'}})): Promise<RecordingServer> {
  const requests: RecordedRequest[] = []
  const scripted: {match: (req: RecordedRequest) => boolean; replies: Reply[]}[] = []
  const server: Server = createServer((req, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8')
      let body: any
      try {
        body = rawBody ? JSON.parse(rawBody) : undefined
      } catch {
        body = undefined
      }
      const recorded: RecordedRequest = {method: req.method ?? '', path: req.url ?? '', headers: req.headers, rawBody, body}
      requests.push(recorded)
      const entry = scripted.find((s) => s.match(recorded) && s.replies.length > 0)
      const reply = (entry ? entry.replies.shift() : fallback(recorded)) ?? {status: 404, json: {message: 'Not found'}}
      const send = () => {
        if (reply.destroy) {
          req.socket.destroy()
          return
        }
        const headers: Record<string, string> = {...reply.headers}
        let payload = ''
        if (reply.text !== undefined) payload = reply.text
        else if (reply.json !== undefined) {
          payload = JSON.stringify(reply.json)
          headers['content-type'] ??= 'application/json'
        }
        res.writeHead(reply.status ?? 200, headers)
        res.end(payload)
      }
      if (reply.heldUntil) void reply.heldUntil.finally(send)
      else if (reply.delayMs) setTimeout(send, reply.delayMs)
      else send()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    reply(match, ...replies) {
      scripted.push({match, replies})
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
