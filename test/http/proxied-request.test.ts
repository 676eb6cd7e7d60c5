/**
 * Requests through a proxy that stalls: whatever the proxy does, a request ends when its signal
 * says so (the total timeout), or when the tunnel is not open within the connect timeout, with an
 * error naming the proxy (no password) and the step that stalled; and the connection to the
 * proxy is closed, so nothing keeps paytx running.
 */
import {afterEach, describe, expect, it} from 'vitest'

import {Connections, OUTGOING_ERROR, OutgoingError} from '../../src/http/outgoing.js'
import {type StallingBehaviour, type StallingProxy, startStallingProxy} from '../helpers/stalling-proxy.js'
import {waitFor} from '../helpers/wait-for.js'

const TARGET = 'https://api.paytx.test/v1/transaction/tx-1'

describe('Connections through a proxy that stalls', () => {
  const proxies: StallingProxy[] = []
  const pools: Connections[] = []
  afterEach(async () => {
    for (const pool of pools.splice(0)) pool.destroy()
    await Promise.all(proxies.splice(0).map((proxy) => proxy.close()))
  })

  const through = async (behaviour: StallingBehaviour, connectTimeoutMs: number) => {
    const proxy = await startStallingProxy(behaviour)
    proxies.push(proxy)
    const connections = new Connections({connectTimeoutMs, proxies: {httpsProxy: `http://user:pr0xy-S3cret@127.0.0.1:${proxy.port}`, noProxy: ''}})
    pools.push(connections)
    return {proxy, connections}
  }
  const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('the request should have failed'), (error: unknown) => error as OutgoingError)

  it.each([
    ['silent', 'connect', /did not open a tunnel to api\.paytx\.test:443 \(no answer to CONNECT\)/],
    ['tunnel-then-silent', 'tls', /opened a tunnel to api\.paytx\.test:443, but the TLS handshake through it did not complete/],
  ] as const)('a proxy that is %s: the signal ends the request before any connection, naming the proxy and the step; the proxy connection is closed', {timeout: 20_000}, async (behaviour, step, words) => {
    // A connect timeout far beyond the test's: only the signal can end the request in time.
    const {proxy, connections} = await through(behaviour, 600_000)
    const reason = new Error('total timeout')
    const controller = new AbortController()
    const sent = failure(connections.send({url: TARGET, method: 'GET', signal: controller.signal}))
    // The proxy has the CONNECT (and, for the second, the client has taken its 200 and begun TLS) before the time runs out.
    await waitFor(() => proxy.asked.length === 1 && (step === 'connect' || proxy.tunnelled() > 0), 'the proxy to be where it stalls')
    controller.abort(reason)
    const error = await sent
    expect(error).toBeInstanceOf(OutgoingError)
    expect(error).toMatchObject({code: OUTGOING_ERROR.proxyStalled, sent: false, proxyFailure: {proxy: `http://user:…@127.0.0.1:${proxy.port}/`, stalled: {step}}})
    expect(error.message).toMatch(words)
    expect(error.message).not.toContain('pr0xy-S3cret')
    expect((error.cause as Error).cause).toBe(reason)
    expect(proxy.asked).toEqual(['CONNECT api.paytx.test:443 HTTP/1.1'])
    await proxy.allClosed()
  })

  it.each([
    ['silent', 'connect'],
    ['tunnel-then-silent', 'tls'],
  ] as const)('with no signal, a proxy that is %s fails within the connect timeout, naming the step and the limit', {timeout: 20_000}, async (behaviour, step) => {
    const {proxy, connections} = await through(behaviour, 400)
    const error = await failure(connections.send({url: TARGET, method: 'GET'}))
    expect(error).toMatchObject({code: OUTGOING_ERROR.proxyStalled, sent: false, proxyFailure: {stalled: {step, ms: 400}}})
    expect(error.message).toContain('within 400 ms')
    await proxy.allClosed()
  })

  it('destroy() ends a request waiting for its tunnel at once', async () => {
    const {proxy, connections} = await through('silent', 600_000)
    const sent = failure(connections.send({url: TARGET, method: 'GET', signal: new AbortController().signal}))
    await waitFor(() => proxy.asked.length === 1, 'the CONNECT to reach the proxy')
    connections.destroy()
    expect((await sent).code).toBe(OUTGOING_ERROR.destroyed)
    await proxy.allClosed()
  })
})
