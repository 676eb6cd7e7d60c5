import {type Server, createServer, request} from 'node:http'

import {afterEach, describe, expect, it} from 'vitest'

import {BodyTooLargeError, readCappedBody} from '../../src/http/body.js'
import {listen} from '../../src/http/listen.js'

const LIMIT = 1000

/** A server answering 200 with the body's length, or 413 when readCappedBody refuses it. */
async function startEchoServer(): Promise<{server: Server; port: number}> {
  const server = createServer((req, res) => {
    readCappedBody(req, LIMIT).then(
      (body) => res.writeHead(200).end(String(body.length)),
      (error: unknown) => res.writeHead(error instanceof BodyTooLargeError ? 413 : 500, {connection: 'close'}).end(String((error as Error).message)),
    )
  })
  const {port} = await listen(server, {host: '127.0.0.1', port: 0})
  return {server, port}
}

/** Posts `chunks` one by one; without a content-length when `chunked`. */
function post(port: number, chunks: Buffer[], {chunked = false} = {}): Promise<{status: number; text: string}> {
  return new Promise((resolve, reject) => {
    const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0)
    const req = request({host: '127.0.0.1', port, method: 'POST', path: '/', headers: chunked ? {} : {'content-length': total}}, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (text += chunk))
      res.on('end', () => resolve({status: res.statusCode ?? 0, text}))
    })
    // A server that answered early may close the socket while the rest is still being written.
    req.on('error', reject)
    for (const chunk of chunks) req.write(chunk)
    req.end()
  })
}

describe('readCappedBody', () => {
  let server: Server | undefined
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve))
    server = undefined
  })

  it.each([
    ['empty', [], 200, '0'],
    ['exactly at the limit', [Buffer.alloc(LIMIT)], 200, String(LIMIT)],
    ['at the limit in pieces', [Buffer.alloc(400), Buffer.alloc(400), Buffer.alloc(200)], 200, String(LIMIT)],
    ['one byte over, declared', [Buffer.alloc(LIMIT + 1)], 413, `The body is larger than ${LIMIT} bytes.`],
  ])('%s → %i', async (_name, chunks, status, text) => {
    const started = await startEchoServer()
    server = started.server
    expect(await post(started.port, chunks)).toEqual({status, text})
  })

  it('refuses a chunked body once the bytes received pass the limit', async () => {
    const started = await startEchoServer()
    server = started.server
    expect(await post(started.port, [Buffer.alloc(600), Buffer.alloc(600)], {chunked: true})).toEqual({status: 413, text: `The body is larger than ${LIMIT} bytes.`})
    expect(await post(started.port, [Buffer.alloc(600), Buffer.alloc(400)], {chunked: true})).toEqual({status: 200, text: String(LIMIT)})
  })
})
