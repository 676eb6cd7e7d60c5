import {createServer as createHttpServer, type Server} from 'node:http'
import {type AddressInfo, type Socket, createServer as createNetServer, type Server as NetServer} from 'node:net'

import {afterEach, describe, expect, it} from 'vitest'

import {Connections, OUTGOING_ERROR, OutgoingError} from '../../src/http/outgoing.js'
import {waitFor} from '../helpers/wait-for.js'

type Closable = Server | NetServer

describe('Connections (outgoing requests on node:http)', () => {
  const servers: Closable[] = []
  const sockets: Socket[] = []
  const pools: Connections[] = []
  afterEach(async () => {
    for (const pool of pools.splice(0)) pool.destroy()
    for (const socket of sockets.splice(0)) socket.destroy()
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
  })

  const listening = async <T extends Closable>(server: T): Promise<{server: T; base: string}> => {
    servers.push(server)
    server.on('connection', (socket: Socket) => sockets.push(socket))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return {server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`}
  }
  const pool = (connectTimeoutMs = 2000) => {
    const created = new Connections({connectTimeoutMs})
    pools.push(created)
    return created
  }
  const text = async (body: AsyncIterable<Buffer>) => {
    const chunks: Buffer[] = []
    for await (const chunk of body) chunks.push(chunk)
    return Buffer.concat(chunks).toString('utf8')
  }
  const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('the request should have failed'), (error: unknown) => error)

  it('sends the method, headers and body, and gives the status, headers and body; a second request reuses the connection', async () => {
    const seen: {method?: string; headers: Record<string, unknown>; body: string; port: number}[] = []
    const {base} = await listening(
      createHttpServer(async (req, res) => {
        seen.push({method: req.method, headers: req.headers, body: await text(req), port: req.socket.remotePort ?? 0})
        res.writeHead(201, {'content-type': 'application/json', 'x-answer': 'yes'})
        res.end('{"ok":true}')
      }),
    )
    const connections = pool()
    const first = await connections.send({url: `${base}/v1/x?q=1`, method: 'POST', headers: {'x-apikey': 'k'}, body: '{"a":"é"}'})
    expect(first.status).toBe(201)
    expect(first.headers['x-answer']).toBe('yes')
    expect(await text(first.body)).toBe('{"ok":true}')
    const second = await connections.send({url: `${base}/v1/y`, method: 'GET'})
    expect(await text(second.body)).toBe('{"ok":true}')

    expect(seen[0]).toMatchObject({method: 'POST', body: '{"a":"é"}', headers: {'x-apikey': 'k', 'content-length': String(Buffer.byteLength('{"a":"é"}'))}})
    expect(seen[1].method).toBe('GET')
    expect(seen[1].port).toBe(seen[0].port)
  })

  it('passes a header list on in its own case and order, adding Host and Content-Length', async () => {
    let raw: string[] = []
    const {base} = await listening(
      createHttpServer((req, res) => {
        raw = req.rawHeaders
        req.resume()
        req.on('end', () => res.end())
      }),
    )
    const answer = await pool().send({url: `${base}/hook`, method: 'POST', headers: ['X-Signature', 's1', 'content-TYPE', 'application/json'], body: Buffer.from('{}')})
    answer.body.resume()
    expect(raw.slice(0, 4)).toEqual(['X-Signature', 's1', 'content-TYPE', 'application/json'])
    expect(raw).toContain('Host')
    expect(raw[raw.indexOf('Content-Length') + 1]).toBe('2')
    expect(raw).not.toContain('Transfer-Encoding')
  })

  it('a refused connection sent nothing', async () => {
    const {server, base} = await listening(createNetServer())
    await new Promise((resolve) => server.close(resolve))
    servers.splice(servers.indexOf(server), 1)
    const error = await failure(pool().send({url: base, method: 'POST', body: '{}'}))
    expect(error).toBeInstanceOf(OutgoingError)
    expect(error).toMatchObject({code: 'ECONNREFUSED', sent: false})
  })

  it('a connection that opened and then closed without an answer may have delivered the request', async () => {
    const {base} = await listening(createNetServer((socket) => socket.once('data', () => socket.destroy())))
    const error = await failure(pool().send({url: base, method: 'POST', body: '{"amount":"100"}'}))
    expect(error).toBeInstanceOf(OutgoingError)
    expect(error).toMatchObject({sent: true})
  })

  it('gives up on a connection not open within the connect timeout (a TLS server that never answers the handshake): nothing sent', async () => {
    const {base} = await listening(createNetServer(() => {}))
    const started = Date.now()
    const error = await failure(pool(150).send({url: base.replace('http:', 'https:'), method: 'POST', body: '{}'}))
    expect(error).toMatchObject({code: OUTGOING_ERROR.connectTimeout, sent: false})
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('an aborted request rejects with the signal’s reason, also while its body is being read', async () => {
    const {base} = await listening(
      createHttpServer((req, res) => {
        if (req.url === '/slow-headers') return // never answers
        res.writeHead(200)
        res.write('partial') // and never ends
      }),
    )
    const connections = pool()
    const before = AbortSignal.timeout(100)
    expect(await failure(connections.send({url: `${base}/slow-headers`, method: 'GET', signal: before}))).toMatchObject({name: 'TimeoutError'})

    const during = new AbortController()
    const answer = await connections.send({url: `${base}/slow-body`, method: 'GET', signal: during.signal})
    setTimeout(() => during.abort(new Error('stop reading')), 50)
    expect(await failure(text(answer.body))).toMatchObject({message: 'stop reading'})
  })

  it('destroy() stops a running request at once and refuses new ones; close() leaves a running request to finish', async () => {
    // Each request is running once the server holds it: waited for, since after a pause of 50 ms
    // on a loaded machine /a might not have arrived yet, and nothing would ever answer it.
    const held = new Map<string, () => void>()
    const {base} = await listening(
      createHttpServer((req, res) => {
        held.set(req.url ?? '', () => res.end('late'))
      }),
    )
    const closing = pool()
    const running = closing.send({url: `${base}/a`, method: 'GET'})
    await waitFor(() => held.has('/a'), 'the request to reach the server')
    closing.close()
    held.get('/a')!()
    expect(await text((await running).body)).toBe('late')

    const stopping = pool()
    const stopped = stopping.send({url: `${base}/b`, method: 'GET'})
    await waitFor(() => held.has('/b'), 'the request to reach the server')
    stopping.destroy()
    expect(await failure(stopped)).toMatchObject({code: OUTGOING_ERROR.destroyed})
    expect(await failure(stopping.send({url: `${base}/c`, method: 'GET'}))).toMatchObject({code: OUTGOING_ERROR.destroyed, sent: false})
  })

  it('a header value Node refuses (a line break) fails before anything is sent', async () => {
    const {base} = await listening(createHttpServer((_req, res) => res.end()))
    const error = await failure(pool().send({url: base, method: 'GET', headers: {'x-note': 'a\r\nInjected: 1'}}))
    expect(error).toMatchObject({sent: false, code: 'ERR_INVALID_CHAR'})
  })
})
