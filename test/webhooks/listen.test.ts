/** `webhook listen`'s core in-process: what it reports, as typed events, from ready to stopped. */
import {execFileSync} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import {request} from 'node:http'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterEach, describe, expect, it} from 'vitest'

import {InputError} from '../../src/errors.js'

import {renderListening, renderStopped, webhookListenRenderer} from '../../src/output/webhook-listen.js'
import type {ListenEvent, StopReason} from '../../src/webhooks/listen-events.js'
import {type WebhookListenOptions, listenForWebhooks} from '../../src/webhooks/listen.js'
import {postJson} from '../helpers/post-json.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'

const TX = '9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c'

function nextEvent(events: ListenEvent[], kind: ListenEvent['kind'], waiters: (() => void)[]): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (events.some((event) => event.kind === kind) ? resolve() : waiters.push(check))
    check()
  })
}

describe('listenForWebhooks', () => {
  it('reports ready, each webhook, the missing status once, and the counts when stopped', async () => {
    const events: ListenEvent[] = []
    const waiters: (() => void)[] = []
    let stop!: (reason: StopReason) => void
    const stopped = new Promise<StopReason>((resolve) => (stop = resolve))
    const run = listenForWebhooks(
      {host: '127.0.0.1', port: 0, token: 'a-token-of-20-chars', maxBodyBytes: 65_536, forwardUrl: undefined, save: undefined, fetch: false},
      {
        requestTimeoutMs: 5000,
        onEvent: (event) => {
          events.push(event)
          for (const waiter of waiters.splice(0)) waiter()
        },
        stopped: () => stopped,
      },
    )
    await nextEvent(events, 'ready', waiters)
    const ready = events.find((event) => event.kind === 'ready') as Extract<ListenEvent, {kind: 'ready'}>
    expect(ready).toMatchObject({host: '127.0.0.1', path: '/webhooks', tokenRequired: true})
    expect(renderListening(ready)[0]).toBe(`Listening for webhooks at ${ready.url}`)

    for (const _ of [1, 2]) expect((await postJson(ready.url, JSON.stringify({type: 'transaction', id: TX}))).status).toBe(200)
    stop('signal')
    const {counts, reason} = await run
    expect(reason).toBe('signal')
    expect(counts).toMatchObject({received: 2, malformed: 0, rejected: 0})
    expect(events.map((event) => event.kind)).toEqual(['ready', 'webhook', 'status-missing', 'webhook', 'stopped'])
    const last = events.at(-1) as Extract<ListenEvent, {kind: 'stopped'}>
    expect(renderStopped(last)).toBe('Stopped. 2 webhooks received (0 duplicates), 0 malformed, 0 rejected.')
  })

  it.each([
    ['a FIFO', () => {
      const fifo = join(mkdtempSync(join(tmpdir(), 'paytx-save-')), 'pipe')
      execFileSync('mkfifo', [fifo], {timeout: 5_000})
      return fifo
    }, 'it is a FIFO (named pipe), not a regular file'],
    ['a device', () => '/dev/null', 'it is a device, not a regular file'],
  ])('refuses --save naming %s before listening (exit 2): appending there would block or lose what was acknowledged', async (_, path, reason) => {
    const save = path()
    const events: ListenEvent[] = []
    const run = listenForWebhooks(
      {host: '127.0.0.1', port: 0, token: 'tok', maxBodyBytes: 65_536, forwardUrl: undefined, save, fetch: false},
      {requestTimeoutMs: 5000, onEvent: (event) => events.push(event), stopped: () => new Promise<StopReason>(() => {})},
    )
    await expect(run).rejects.toThrow(`--save: cannot open ${save} for appending (${reason}).`)
    await expect(run).rejects.toBeInstanceOf(InputError)
    expect(events).toEqual([])
  })
})

/** A POST as a browser page or a server would send it: Host and every header as given, the path byte for byte. */
function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  const {hostname, port, origin} = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request({hostname, port, path: url.slice(origin.length), method: 'POST', agent: false, headers}, (res) => {
      res.resume()
      resolve(res.statusCode!)
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** Listens as `webhook listen` does, forwarding to `forwardTo`; `stop` ends it and gives back the counts and every event. */
async function listening(options: Partial<WebhookListenOptions> & {forwardTo?: string}) {
  const events: ListenEvent[] = []
  let stop!: (reason: StopReason) => void
  const stopped = new Promise<StopReason>((resolve) => (stop = resolve))
  let ready!: (event: Extract<ListenEvent, {kind: 'ready'}>) => void
  const readyEvent = new Promise<Extract<ListenEvent, {kind: 'ready'}>>((resolve) => (ready = resolve))
  const run = listenForWebhooks(
    {host: '127.0.0.1', port: 0, token: undefined, maxBodyBytes: 65_536, save: undefined, fetch: false, ...options, forwardUrl: options.forwardTo ? new URL(options.forwardTo) : undefined},
    {
      requestTimeoutMs: 5000,
      onEvent: (event) => {
        events.push(event)
        if (event.kind === 'ready') ready(event)
      },
      stopped: () => stopped,
    },
  )
  const {url, port} = await readyEvent
  return {url, port, events, stop: async () => (stop('signal'), {...(await run), events})}
}

describe('webhook listen and web pages', () => {
  const servers: RecordingServer[] = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()))
  })

  // The README showed --token dev-token; --no-token has none; a random token is what listen makes.
  it.each([
    ['--no-token', undefined],
    ['--token dev-token', 'dev-token'],
    ['a random token', 'Zq8fK2mX9vLp4RtY7wNc3B'],
  ])('with %s: refuses what a web page of another site posts, and forwards what a server posts, through a tunnel too', async (_name, token) => {
    const app = await startRecordingServer(() => ({status: 200, json: {}}))
    servers.push(app)
    const listener = await listening({token, forwardTo: `${app.url}/webhooks`})
    const own = `127.0.0.1:${listener.port}`
    const webhook = (n: number) => JSON.stringify({type: 'transaction', id: TX, status: `S${n}`})
    // What a page can send without asking CORS: a text/plain POST (fetch no-cors, or a form).
    const page = {'content-type': 'text/plain'}
    const fromPages: Record<string, string>[] = [
      {...page, host: own, origin: 'http://evil.example'},
      {...page, host: own, origin: 'null'},
      {...page, host: own, 'sec-fetch-site': 'cross-site'},
      {...page, host: own, 'sec-fetch-site': 'same-site'},
      // DNS rebinding: the page's own name, pointed at 127.0.0.1.
      {...page, host: `rebind.example:${listener.port}`, origin: `http://rebind.example:${listener.port}`},
    ]
    for (const headers of fromPages) expect(await post(listener.url, headers, webhook(0)), JSON.stringify(headers)).toBe(403)
    // A server: no Origin, no Sec-Fetch-Site; by its address, and (with a token) by a tunnel's public name.
    const json = {'content-type': 'application/json'}
    expect(await post(listener.url, {...json, host: own}, webhook(1))).toBe(200)
    expect(await post(listener.url, {...json, host: `localhost:${listener.port}`}, webhook(2))).toBe(200)
    if (token !== undefined) expect(await post(listener.url, {...json, host: 'quiet-river-1234.trycloudflare.com'}, webhook(3))).toBe(200)
    else expect(await post(listener.url, {...json, host: `rebind.example:${listener.port}`}, webhook(3))).toBe(403)
    const {counts, events} = await listener.stop()
    const accepted = token === undefined ? ['S1', 'S2'] : ['S1', 'S2', 'S3']
    expect(counts).toMatchObject({received: accepted.length, rejected: fromPages.length + (token === undefined ? 1 : 0)})
    expect(counts.rejectedByStatus).toEqual({403: counts.rejected})
    expect(app.requests.map((forwarded) => forwarded.body.status)).toEqual(accepted)
    const rejections = events.flatMap((event) => (event.kind === 'rejected' ? [event.rejection] : []))
    expect(rejections[0]).toEqual({status: 403, method: 'POST', path: '/webhooks', reason: 'a web page of another site sent it (its Origin is not this address)'})
    expect(rejections[2].reason).toBe('a web page of another site sent it (Sec-Fetch-Site: cross-site)')
    expect(JSON.stringify(rejections)).not.toContain(token ?? 'no token to leak')
  })

  it('keeps the token out of a refusal when it came in the path', async () => {
    const listener = await listening({token: 'Zq8fK2mX9vLp4RtY7wNc3B'})
    const inPath = `http://127.0.0.1:${listener.port}/webhooks/Zq8fK2mX9vLp4RtY7wNc3B`
    expect(await post(inPath, {'content-type': 'text/plain', origin: 'http://evil.example'}, '{}')).toBe(403)
    const {events} = await listener.stop()
    expect(events.find((event) => event.kind === 'rejected')).toMatchObject({rejection: {status: 403, path: '/webhooks/{token}'}})
  })

  it.each([
    ['dev-token', [{kind: 'weak-token', length: 9, minimum: 16}]],
    ['fifteen-chars-x', [{kind: 'weak-token', length: 15, minimum: 16}]],
    ['sixteen-chars-xy', []],
  ])('--token %s: warned about when shorter than 16 characters', async (token, warned) => {
    const listener = await listening({token})
    const {events} = await listener.stop()
    expect(events.filter((event) => event.kind === 'weak-token')).toEqual(warned)
  })

  it('says on stderr which flag makes the token guessable and what to do', () => {
    const warnings: string[] = []
    const render = webhookListenRenderer({json: true, stdout: {add: () => undefined, flush: () => undefined}, note: () => undefined, warn: (text) => warnings.push(text), secrets: []})
    render({kind: 'weak-token', length: 9, minimum: 16})
    expect(warnings).toEqual([
      '--token is 9 characters long: a token shorter than 16 can be guessed. Leave --token out for a random one each run, or give a random one of your own (openssl rand -hex 16 makes one).',
    ])
  })
})

describe('webhookListenRenderer and text from outside', () => {
  it('shows a rejected request’s method and path, and a tunnel’s address, as escapes on their own line', () => {
    const notes: string[] = []
    const render = webhookListenRenderer({json: false, stdout: {add: () => undefined, flush: () => undefined}, note: (text) => notes.push(text), warn: (text) => notes.push(text), secrets: []})
    render({kind: 'rejected', rejection: {status: 404, method: 'POST\u009b2J', path: '/hooks\nRejected nothing', reason: 'no such path'}})
    render({kind: 'ready', url: 'http://127.0.0.1:4020/webhooks', host: '127.0.0.1', port: 4020, path: '/webhooks', tokenRequired: false, publicUrl: 'https://a.example/webhooks\u001b]52;c;eA==\u0007\u202e', tunnel: 'cloudflared'})
    expect(notes[0]).toBe('Rejected POST\\x9b2J /hooks\\nRejected nothing with 404: no such path')
    expect(notes).toContain('Public address (through cloudflared): https://a.example/webhooks\\x1b]52;c;eA==\\x07\\u202e')
  })
})
