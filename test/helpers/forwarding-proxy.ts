/**
 * A real forwarding HTTP proxy on 127.0.0.1 (the `proxy` package: CONNECT tunnels and
 * absolute-form requests), with a name table of its own: the host names tests use
 * (`api.paytx.test`) resolve only inside this proxy, to local ports, so a request that arrives
 * there can only have come through the proxy. It records what it was asked to carry.
 */
import {type IncomingMessage, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import {createProxy} from 'proxy'

export interface ForwardingProxy {
  url: string
  port: number
  /** What the proxy was asked: `CONNECT host:port`, or `GET http://host:port/path`. */
  asked: string[]
  close(): Promise<void>
}

export interface ForwardingProxyOptions {
  /** Host name → the local port it stands for. */
  names: Record<string, number>
  /** `user:password` the proxy requires (Proxy-Authorization: Basic), if any. */
  credentials?: string
}

function mapped(hostAndPort: string, names: Record<string, number>): string {
  const [host] = hostAndPort.split(':')
  return names[host] === undefined ? hostAndPort : `127.0.0.1:${names[host]}`
}

export async function startForwardingProxy(options: ForwardingProxyOptions): Promise<ForwardingProxy> {
  const asked: string[] = []
  const server = createServer()
  // Runs before the proxy's own listeners: record, then point the name at its local port.
  server.on('connect', (req: IncomingMessage) => {
    asked.push(`CONNECT ${req.url}`)
    req.url = mapped(req.url ?? '', options.names)
  })
  server.on('request', (req: IncomingMessage) => {
    asked.push(`${req.method} ${req.url}`)
    const url = new URL(req.url ?? '/', 'http://invalid')
    const local = mapped(url.host, options.names)
    if (local !== url.host) req.url = `http://${local}${url.pathname}${url.search}`
  })
  const proxy = createProxy(server)
  if (options.credentials !== undefined) {
    const expected = `Basic ${Buffer.from(options.credentials).toString('base64')}`
    proxy.authenticate = (req) => req.headers['proxy-authorization'] === expected
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    asked,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
