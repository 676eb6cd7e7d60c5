/**
 * A proxy on 127.0.0.1 that never carries anything: it reads the CONNECT and either never
 * answers (`silent`) or answers 200 and then stays silent, so that the TLS handshake inside the
 * tunnel never completes (`tunnel-then-silent`). It records every connection it accepted, and
 * says when all of them have been closed by the other side (a client that gave up).
 */
import {type AddressInfo, type Socket, createServer} from 'node:net'

export type StallingBehaviour = 'silent' | 'tunnel-then-silent'

export interface StallingProxy {
  url: string
  port: number
  /** The first line of each request it was sent (`CONNECT host:port HTTP/1.1`). */
  asked: string[]
  /** Bytes that came through tunnels it had answered 200 to (a TLS ClientHello: the client took the answer). */
  tunnelled(): number
  /** Resolves once every connection accepted so far has been closed by the client (at least one accepted). */
  allClosed(): Promise<void>
  close(): Promise<void>
}

export async function startStallingProxy(behaviour: StallingBehaviour): Promise<StallingProxy> {
  const asked: string[] = []
  const open = new Set<Socket>()
  let accepted = 0
  let tunnelled = 0
  let waiting: (() => void)[] = []
  const settle = () => {
    if (accepted === 0 || open.size > 0) return
    for (const resolve of waiting) resolve()
    waiting = []
  }
  const server = createServer((socket) => {
    accepted++
    open.add(socket)
    socket.on('error', () => undefined)
    socket.on('close', () => {
      open.delete(socket)
      settle()
    })
    socket.once('data', (chunk) => {
      asked.push(chunk.toString('latin1').split('\r\n')[0])
      if (behaviour !== 'tunnel-then-silent') return
      socket.write('HTTP/1.1 200 Connection established\r\n\r\n')
      socket.on('data', (more: Buffer) => (tunnelled += more.length))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    asked,
    tunnelled: () => tunnelled,
    allClosed: () =>
      new Promise((resolve) => {
        waiting.push(resolve)
        settle()
      }),
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
