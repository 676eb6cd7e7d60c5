/**
 * The service from behind a forwarding proxy (a real one on 127.0.0.1, test/helpers/forwarding-proxy.ts):
 * `*.paytx.test` names resolve only inside that proxy, so an answer proves the request went
 * through it. https targets go through a CONNECT tunnel to a local TLS server, http ones as
 * absolute-form requests; NO_PROXY and loopback skip the proxy; a proxy that asks for credentials,
 * refuses or is not there is one error naming it without its password, exit 1.
 */
import {execFileSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer as createHttpsServer, type Server as HttpsServer} from 'node:https'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {parseJsonOutput, runCli, tempConfigDir} from '../helpers/cli.js'
import {TX_ID} from '../helpers/fixtures.js'
import {type ForwardingProxy, startForwardingProxy} from '../helpers/forwarding-proxy.js'
import {freePort} from '../helpers/ports.js'
import {type RecordingServer, startRecordingServer} from '../helpers/recording-server.js'
import {API_KEY, expectNoSecrets} from '../helpers/secrets.js'
import {startStallingProxy} from '../helpers/stalling-proxy.js'

const TX = {id: TX_ID, amount: '1499', payment_product: 'dummy', status: 'SETTLEMENT_COMPLETED', details: {}, created_at: '2026-11-20T10:00:00.000Z', last_status_update: '2026-11-20T10:00:00.000Z'}
const PROXY_PASSWORD = 'pr0xy-S3cret-pa55'

describe('requests through a proxy', () => {
  const folder = mkdtempSync(join(tmpdir(), 'paytx-proxy-'))
  const certFile = join(folder, 'cert.pem')
  let tls: HttpsServer
  let tlsPort: number
  let tlsRequests = 0
  let plain: RecordingServer
  let proxy: ForwardingProxy
  let guarded: ForwardingProxy

  beforeAll(async () => {
    const keyFile = join(folder, 'key.pem')
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=api.paytx.test', '-addext', 'subjectAltName=DNS:api.paytx.test', '-keyout', keyFile, '-out', certFile], {stdio: 'ignore'})
    tls = createHttpsServer({key: readFileSync(keyFile), cert: readFileSync(certFile)}, (req, res) => {
      tlsRequests++
      req.resume()
      if (req.method === 'POST') {
        req.socket.destroy()
        return
      }
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(JSON.stringify(TX))
    })
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve))
    tlsPort = (tls.address() as AddressInfo).port
    plain = await startRecordingServer(() => ({json: TX}))
    const names = {'api.paytx.test': tlsPort, 'plain.paytx.test': plain.port}
    proxy = await startForwardingProxy({names})
    guarded = await startForwardingProxy({names, credentials: `paytx:${PROXY_PASSWORD}`})
  })
  afterAll(async () => {
    await Promise.all([proxy.close(), guarded.close(), plain.close(), new Promise((resolve) => tls.close(resolve))])
    rmSync(folder, {recursive: true, force: true})
  })

  const https = (extra: Record<string, string | undefined>) => ({PAYTX_BASE_URL: `https://api.paytx.test:${tlsPort}/v1`, PAYTX_API_KEY: API_KEY, NODE_EXTRA_CA_CERTS: certFile, ...extra})

  it('an https service: through a CONNECT tunnel named by HTTPS_PROXY, certificate checked end to end', async () => {
    const before = tlsRequests
    const result = await runCli(['status', TX_ID, '--json'], {env: https({HTTPS_PROXY: proxy.url})})
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({id: TX_ID, status: 'SETTLEMENT_COMPLETED'})
    expect(proxy.asked).toContain(`CONNECT api.paytx.test:${tlsPort}`)
    expect(tlsRequests - before).toBe(1)
  })

  it('lower-case https_proxy works the same, and wins over upper case', async () => {
    const result = await runCli(['status', TX_ID, '--json'], {env: https({https_proxy: proxy.url, HTTPS_PROXY: 'http://127.0.0.1:9'})})
    expect(result.code, result.stderr).toBe(0)
  })

  it('an http service: an absolute-form request to HTTP_PROXY', async () => {
    const before = plain.requests.length
    const result = await runCli(['status', TX_ID, '--json'], {env: {PAYTX_BASE_URL: `http://plain.paytx.test:${plain.port}/v1`, PAYTX_API_KEY: API_KEY, http_proxy: proxy.url}})
    expect(result.code, result.stderr).toBe(0)
    expect(proxy.asked).toContain(`GET http://plain.paytx.test:${plain.port}/v1/transaction/${TX_ID}`)
    expect(plain.requests.length - before).toBe(1)
  })

  it('NO_PROXY naming the domain connects directly (and the name does not resolve outside the proxy)', async () => {
    const asked = proxy.asked.length
    const result = await runCli(['status', TX_ID], {env: https({HTTPS_PROXY: proxy.url, NO_PROXY: 'example.com,.paytx.test'})})
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('Could not resolve the host api.paytx.test')
    expect(proxy.asked.length).toBe(asked)
  })

  it.each(['.internal.example.com,10.0.0.5,hooks.example.com:8080,*', 'paytx.test.', '*.PAYTX.test'])('NO_PROXY=%s connects directly too', async (noProxy) => {
    const asked = proxy.asked.length
    const result = await runCli(['status', TX_ID], {env: https({HTTPS_PROXY: proxy.url, NO_PROXY: noProxy})})
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('Could not resolve the host api.paytx.test')
    expect(proxy.asked.length).toBe(asked)
  })

  it('NO_PROXY for another port of the host still goes through the proxy', async () => {
    const result = await runCli(['status', TX_ID, '--json'], {env: https({HTTPS_PROXY: proxy.url, NO_PROXY: 'api.paytx.test:443'})})
    expect(result.code, result.stderr).toBe(0)
  })

  it('loopback never goes through the proxy, and the proxy path (undici) is not even loaded', async () => {
    const preload = join(tempConfigDir(), 'loaded.cjs')
    writeFileSync(preload, "process.on('exit', () => process._rawDebug('undici package loaded: ' + Object.keys(require.cache).some((file) => file.includes('/node_modules/undici/'))))\n")
    const asked = proxy.asked.length
    const result = await runCli(['status', TX_ID, '--json'], {env: {PAYTX_BASE_URL: `${plain.url}/v1`, PAYTX_API_KEY: API_KEY, HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NODE_OPTIONS: `--require ${preload}`}})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain('undici package loaded: false')
    expect(proxy.asked.length).toBe(asked)
  })

  it('the proxy path loads undici (the check above can see it)', async () => {
    const preload = join(tempConfigDir(), 'loaded.cjs')
    writeFileSync(preload, "process.on('exit', () => process._rawDebug('undici package loaded: ' + Object.keys(require.cache).some((file) => file.includes('/node_modules/undici/'))))\n")
    const result = await runCli(['status', TX_ID, '--json'], {env: https({HTTPS_PROXY: proxy.url, NODE_OPTIONS: `--require ${preload}`})})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toContain('undici package loaded: true')
  })

  it('credentials in the proxy address are sent to the proxy and never shown', async () => {
    const result = await runCli(['status', TX_ID, '--json', '--verbose'], {env: https({HTTPS_PROXY: `http://paytx:${PROXY_PASSWORD}@127.0.0.1:${guarded.port}`})})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout + result.stderr).not.toContain(PROXY_PASSWORD)
  })

  it('407 from the proxy: its own error, naming the proxy without the password, exit 1', async () => {
    const result = await runCli(['status', TX_ID], {env: https({HTTPS_PROXY: `http://paytx:wrong-${PROXY_PASSWORD}@127.0.0.1:${guarded.port}`})})
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`The proxy http://paytx:…@127.0.0.1:${guarded.port}/ asked for credentials (407 Proxy Authentication Required)`)
    expect(result.stderr).toMatch(/Hint: Put the proxy's user name and password in HTTPS_PROXY/)
    expect(result.stdout + result.stderr).not.toContain(PROXY_PASSWORD)
    expect(result.stderr).not.toMatch(/\n\s+at /)
    expectNoSecrets(result)
  })

  it('407 for an http target (absolute-form) is the same error', async () => {
    const result = await runCli(['status', TX_ID], {env: {PAYTX_BASE_URL: `http://plain.paytx.test:${plain.port}/v1`, PAYTX_API_KEY: API_KEY, HTTP_PROXY: `http://127.0.0.1:${guarded.port}`}})
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`The proxy http://127.0.0.1:${guarded.port}/ asked for credentials (407 Proxy Authentication Required)`)
  })

  it('a proxy that cannot reach the host: says the proxy would not carry it, and to ask its owner or use NO_PROXY', async () => {
    const result = await runCli(['status', TX_ID, '--json'], {env: {PAYTX_BASE_URL: 'https://nowhere.paytx.test/v1', PAYTX_API_KEY: API_KEY, HTTPS_PROXY: proxy.url}})
    expect(result.code).toBe(1)
    const {error} = parseJsonOutput(result)
    expect(error.message).toMatch(new RegExp(`^The proxy http://127.0.0.1:${proxy.port}/ would not carry the request to https://nowhere.paytx.test: it answered \\d{3}`))
    expect(error.hint).toContain('NO_PROXY')
    expect(error.mayHaveReachedService).toBe(false)
  })

  it('no proxy listening: "Could not connect to the proxy", exit 1, nothing sent', async () => {
    // Where nothing listens, nor will (a closed proxy's port could be handed to another test's server).
    const closed = {port: await freePort()}
    const result = await runCli(['status', TX_ID], {env: https({HTTPS_PROXY: `http://user:${PROXY_PASSWORD}@127.0.0.1:${closed.port}`})})
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`Could not connect to the proxy http://user:…@127.0.0.1:${closed.port}/ (ECONNREFUSED).`)
    expect(result.stderr).not.toContain(PROXY_PASSWORD)
  })

  // Each was shown whole: the redaction gave back text it could not parse as it was.
  it.each([`http://puser:${PROXY_PASSWORD}@127.0.0.1:99999`, `http://puser:${PROXY_PASSWORD}@[::1`])('a proxy address that does not parse (%s): exit 1, named without its password, in text and --json', async (written) => {
    const [text, json] = await Promise.all([runCli(['status', TX_ID], {env: https({HTTPS_PROXY: written})}), runCli(['status', TX_ID, '--json'], {env: https({HTTPS_PROXY: written})})])
    const shown = written.replace(PROXY_PASSWORD, '…')
    expect(text.code).toBe(1)
    expect(text.stderr).toContain(`The proxy setting ${shown} is not an http:// or https:// address.`)
    expect(json.code).toBe(1)
    expect(parseJsonOutput(json).error.message).toBe(`The proxy setting ${shown} is not an http:// or https:// address.`)
    for (const result of [text, json]) expect(result.stdout + result.stderr).not.toContain(PROXY_PASSWORD)
  })

  it('webhook replay --to a host that is not loopback goes through HTTP_PROXY too', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'paytx-proxy-replay-'))
    const saved = join(folder, 'webhooks.ndjson')
    writeFileSync(saved, `${JSON.stringify({seq: 1, received_at: new Date().toISOString(), method: 'POST', path: '/webhooks', headers: {'content-type': 'application/json'}, body: {type: 'transaction', id: TX_ID}})}\n`)
    const before = plain.requests.length
    const result = await runCli(['webhook', 'replay', saved, '--to', `http://plain.paytx.test:${plain.port}/hooks`], {env: {HTTP_PROXY: proxy.url}})
    expect(result.code, result.stderr).toBe(0)
    expect(proxy.asked).toContain(`POST http://plain.paytx.test:${plain.port}/hooks`)
    expect(plain.requests.slice(before).map((request) => request.path)).toEqual(['/hooks'])
  })

  it('a POST that reached the service through the proxy and got no answer is not sent again', async () => {
    const before = tlsRequests
    const result = await runCli(
      ['transaction', 'start', '--product', 'dummy', '--amount', '100', '--customer', 'cus-1', '--redirect-url', 'https://shop.example.com/return', '--json'],
      {env: https({HTTPS_PROXY: proxy.url})},
    )
    expect(result.code).toBe(1)
    expect(parseJsonOutput(result).error).toMatchObject({kind: 'network', mayHaveReachedService: true})
    expect(tlsRequests - before).toBe(1)
  })

  it.each([
    ['never answers CONNECT', 'silent', /^The proxy http:\/\/paytx:…@127\.0\.0\.1:\d+\/ did not open a tunnel to api\.paytx\.test:\d+ within 1000 ms \(no answer to CONNECT\); nothing was sent\./],
    ['answers CONNECT, then stays silent', 'tunnel-then-silent', /^The proxy http:\/\/paytx:…@127\.0\.0\.1:\d+\/ answered CONNECT for api\.paytx\.test:\d+, but no TLS handshake with api\.paytx\.test completed through it within 1000 ms; nothing was sent\./],
  ] as const)('a proxy that %s: --timeout bounds each try, exit 1 naming the proxy (no password) and what to do', async (_, behaviour, message) => {
    const stalling = await startStallingProxy(behaviour)
    try {
      // Killed at 20 s: before the fix, the first kind ran for minutes and the second for 3 × 10 s.
      const result = await runCli(['status', TX_ID, '--timeout', '1', '--json'], {env: https({HTTPS_PROXY: `http://paytx:${PROXY_PASSWORD}@127.0.0.1:${stalling.port}`}), timeoutMs: 20_000})
      expect(result.signal).toBeNull()
      expect(result.code).toBe(1)
      const {error} = parseJsonOutput(result)
      expect(error.message).toMatch(message)
      expect(error.hint).toMatch(/NO_PROXY.*--timeout allows more time/)
      expect(error.mayHaveReachedService).toBe(false)
      expect(result.stdout + result.stderr).not.toContain(PROXY_PASSWORD)
      expect(stalling.asked.every((line) => line.startsWith(`CONNECT api.paytx.test:${tlsPort} `))).toBe(true)
    } finally {
      await stalling.close()
    }
  })
})
