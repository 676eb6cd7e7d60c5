/**
 * Webhook senders for the kill -9 suites of `webhook listen --save`: many at once, the way a
 * listener meets them (a new connection per webhook, kept-alive connections, requests pipelined
 * on one socket, now and then a large body), each remembering which webhooks were answered 2xx;
 * and a reader of the save file that checks each line on its own.
 */
import {Agent, request} from 'node:http'
import {type Socket, connect} from 'node:net'
import {readFileSync} from 'node:fs'

export interface SenderMix {
  /** Loops sending one webhook after another, each on a new connection. */
  fresh: number
  /** Loops sending on kept-alive connections. */
  keptAlive: number
  /** Sockets with `depth` requests in flight each (HTTP pipelining). */
  pipelines: number
  depth: number
  /** Every `every`-th webhook carries `bytes` of padding (large batches, long writes). */
  large?: {every: number; bytes: number}
  /** The most webhooks sent in all, whatever happens. */
  maxWebhooks: number
}

/**
 * Senders to one or more listeners (taken in turn): ids `tx-<prefix>-<n>` handed out in order.
 * `stop` ends the sending (those in flight go on); a send the listener's death cut off is counted.
 */
export class WebhookSenders {
  readonly acknowledged = new Set<string>()
  /** Answers other than 2xx (503 while the disk is full). */
  refused = 0
  /** Sends that got no whole answer: in flight at the kill, or sent after it. */
  cutOff = 0
  private stopped = false
  private next = 0
  private readonly sockets = new Set<Socket>()
  private readonly agent: Agent
  private readonly running: Promise<void>[]

  constructor(
    private readonly urls: URL[],
    private readonly prefix: string,
    private readonly mix: SenderMix,
  ) {
    this.agent = new Agent({keepAlive: true, maxSockets: Math.max(1, mix.keptAlive)})
    const target = (index: number) => urls[index % urls.length]
    this.running = [
      ...Array.from({length: mix.fresh}, (_, index) => this.loop(target(index), false)),
      ...Array.from({length: mix.keptAlive}, (_, index) => this.loop(target(index), this.agent)),
      ...Array.from({length: mix.pipelines}, (_, index) => this.pipeline(target(index))),
    ]
  }

  get sent(): number {
    return this.next
  }

  /** No new webhook from now on; those in flight go on. */
  stop(): void {
    this.stopped = true
  }

  /** Once every listener is gone: closes what is left and waits for every sender to end. */
  async finished(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    await Promise.all(this.running)
    this.agent.destroy()
  }

  /** A new webhook's id and body, or undefined once sending is over. */
  private take(): {id: string; body: string} | undefined {
    if (this.stopped || this.next >= this.mix.maxWebhooks) return undefined
    const n = ++this.next
    const id = `tx-${this.prefix}-${n}`
    const {large} = this.mix
    const padding = large && n % large.every === 0 ? {padding: 'p'.repeat(large.bytes)} : {}
    return {id, body: JSON.stringify({type: 'transaction', id, status: 'SETTLEMENT_REQUESTED', ...padding})}
  }

  private note(id: string, status: number): void {
    if (status >= 200 && status < 300) this.acknowledged.add(id)
    else this.refused++
  }

  private async loop(url: URL, agent: Agent | false): Promise<void> {
    for (let webhook = this.take(); webhook; webhook = this.take()) {
      const status = await post(url, webhook.body, agent)
      if (status === undefined) {
        this.cutOff++
        return
      }
      this.note(webhook.id, status)
    }
  }

  /** Keeps `depth` requests in flight on one socket until sending stops or the socket closes. */
  private pipeline(url: URL): Promise<void> {
    return new Promise((resolve) => {
      const socket = connect(Number(url.port), url.hostname)
      this.sockets.add(socket)
      const waiting: string[] = []
      const answers = new AnswerReader()
      const sendNext = () => {
        const webhook = this.take()
        if (!webhook) return
        waiting.push(webhook.id)
        socket.write(`POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(webhook.body)}\r\n\r\n${webhook.body}`)
      }
      socket.on('connect', () => {
        for (let i = 0; i < this.mix.depth; i++) sendNext()
      })
      socket.on('data', (chunk: Buffer) => {
        for (const status of answers.read(chunk)) {
          this.note(waiting.shift()!, status)
          sendNext()
        }
        if (waiting.length === 0) socket.end()
      })
      socket.on('error', () => {})
      socket.on('close', () => {
        this.cutOff += waiting.length
        this.sockets.delete(socket)
        resolve()
      })
    })
  }
}

/** The status of one POST, or undefined when the connection failed before a whole answer came. */
function post(url: URL, body: string, agent: Agent | false): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request(url, {method: 'POST', agent, headers: {'content-type': 'application/json'}, timeout: 10_000}, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode))
      res.on('error', () => resolve(undefined))
    })
    req.on('timeout', () => req.destroy())
    req.on('error', () => resolve(undefined))
    req.end(body)
  })
}

/** The statuses of the whole HTTP/1.1 answers in a byte stream (bodies by Content-Length or chunked). */
class AnswerReader {
  private buffer = Buffer.alloc(0)

  read(chunk: Buffer): number[] {
    this.buffer = Buffer.concat([this.buffer, chunk])
    const statuses: number[] = []
    for (;;) {
      const headEnd = this.buffer.indexOf('\r\n\r\n')
      if (headEnd === -1) break
      const head = this.buffer.subarray(0, headEnd).toString('latin1')
      let end: number
      if (/^transfer-encoding: *chunked/im.test(head)) {
        const lastChunk = this.buffer.indexOf('\r\n0\r\n\r\n', headEnd + 2)
        if (lastChunk === -1) break
        end = lastChunk + '\r\n0\r\n\r\n'.length
      } else {
        end = headEnd + 4 + Number(/^content-length: *(\d+)/im.exec(head)?.[1] ?? 0)
        if (this.buffer.length < end) break
      }
      statuses.push(Number(head.slice('HTTP/1.1 '.length, 'HTTP/1.1 '.length + 3)))
      this.buffer = this.buffer.subarray(end)
    }
    return statuses
  }
}

export interface SaveFileContents {
  /** The body ids of the lines that parse. */
  ids: Set<string>
  /** The numbers of the whole lines (ended by a newline) that do not parse. */
  badLines: number[]
  /** What follows the last newline: a line cut short by the kill. */
  cutShort?: string
}

/** Reads a save file line by line, each on its own: a line that does not parse hides nothing after it. */
export function readSaveFile(file: string): SaveFileContents {
  const lines = readFileSync(file, 'utf8').split('\n')
  const last = lines.pop()!
  const ids = new Set<string>()
  const badLines: number[] = []
  lines.forEach((line, index) => {
    try {
      ids.add(JSON.parse(line).body.id)
    } catch {
      badLines.push(index + 1)
    }
  })
  return {ids, badLines, ...(last === '' ? {} : {cutShort: last})}
}

/**
 * What breaks the promise "a 2xx means it is in the file": acknowledged webhooks missing from it,
 * and an acknowledged webhook on the line the kill cut short.
 */
export function brokenPromises(acknowledged: Set<string>, saved: SaveFileContents): {missing: string[]; onCutLine?: string} {
  const missing = [...acknowledged].filter((id) => !saved.ids.has(id))
  const onCutLine = saved.cutShort === undefined ? undefined : /"id":"([^"]+)"/.exec(saved.cutShort)?.[1]
  return {missing, ...(onCutLine !== undefined && acknowledged.has(onCutLine) ? {onCutLine} : {})}
}

/** Resolves once `condition` holds or `timeoutMs` has passed, whichever is first. */
export function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  return new Promise((resolve) => {
    const check = () => (condition() || Date.now() >= deadline ? resolve() : setTimeout(check, 5))
    check()
  })
}
