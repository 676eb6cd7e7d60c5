/**
 * A service behind HTTPS (a real TLS server on 127.0.0.1 with a certificate made for the test by
 * openssl), in-process: an untrusted certificate and a plain-http address are each one readable
 * error, exit 1, tried once and never "may have reached the service". A trusted certificate needs
 * NODE_EXTRA_CA_CERTS at process start: test/e2e/service-tls.test.ts.
 */
import {execFileSync} from 'node:child_process'
import {createServer as createHttpServer, type Server as HttpServer} from 'node:http'
import {createServer as createHttpsServer, type Server as HttpsServer} from 'node:https'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {has} from '../helpers/capabilities.js'
import {parseJsonOutput} from '../helpers/cli.js'
import {runCommand} from '../helpers/run-command.js'
import {TX_ID} from '../helpers/fixtures.js'
import {API_KEY, expectNoSecrets} from '../helpers/secrets.js'

const TX = {id: TX_ID, amount: '1499', payment_product: 'dummy', status: 'SETTLEMENT_COMPLETED', details: {}, created_at: '2026-11-20T10:00:00.000Z', last_status_update: '2026-11-20T10:00:00.000Z'}
const START_FLAGS = ['transaction', 'start', '--product', 'dummy', '--amount', '100', '--customer', 'cus-1', '--redirect-url', 'https://shop.example.com/return']

describe.runIf(has('openssl'))('a service behind HTTPS', () => {
  const folder = mkdtempSync(join(tmpdir(), 'paytx-tls-'))
  const certFile = join(folder, 'cert.pem')
  let tls: HttpsServer
  let plain: HttpServer
  let handshakes = 0
  let tlsRequests = 0
  let plainRequests = 0
  const listen = (server: HttpServer | HttpsServer) =>
    new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)))
  let tlsPort: number
  let plainPort: number

  beforeAll(async () => {
    const keyFile = join(folder, 'key.pem')
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile], {stdio: 'ignore', timeout: 30_000})
    tls = createHttpsServer({key: readFileSync(keyFile), cert: readFileSync(certFile)}, (req, res) => {
      tlsRequests++
      req.resume()
      res.writeHead(req.method === 'POST' ? 201 : 200, {'content-type': 'application/json'})
      res.end(JSON.stringify(req.method === 'POST' ? {...TX, status: 'INITIATED'} : TX))
    })
    tls.on('connection', () => handshakes++)
    plain = createHttpServer((req, res) => {
      plainRequests++
      res.end()
    })
    tlsPort = await listen(tls)
    plainPort = await listen(plain)
  })
  afterAll(async () => {
    await Promise.all([tls, plain].map((server) => new Promise((resolve) => server.close(resolve))))
    rmSync(folder, {recursive: true, force: true})
  })

  const env = (base: string, extra: Record<string, string | undefined> = {}) => ({PAYTX_BASE_URL: `${base}/v1`, PAYTX_API_KEY: API_KEY, NODE_EXTRA_CA_CERTS: undefined, ...extra})

  it('an untrusted certificate: exit 1, says why and what to do, and is not tried again', async () => {
    const before = handshakes
    const requestsBefore = tlsRequests
    const result = await runCommand(['status', TX_ID], {env: env(`https://127.0.0.1:${tlsPort}`)})
    expect(result.exitCode).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(`paytx does not trust the certificate of https://127.0.0.1:${tlsPort}: it is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT).`)
    expect(result.stderr).toMatch(/Hint: .*NODE_EXTRA_CA_CERTS/)
    expect(result.stderr).not.toMatch(/\n\s+at /) // no stack trace
    expectNoSecrets(result)
    expect(handshakes - before).toBe(1)
    expect(tlsRequests - requestsBefore).toBe(0)
  })

  it('a POST refused at the handshake never reached the service, and says so in --json', async () => {
    const result = await runCommand([...START_FLAGS, '--json'], {env: env(`https://127.0.0.1:${tlsPort}`)})
    expect(result.exitCode).toBe(1)
    const {error} = parseJsonOutput(result)
    expect(error).toMatchObject({kind: 'network', mayHaveReachedService: false})
    expect(error.message).toContain('does not trust the certificate')
    expect(JSON.stringify(error)).not.toMatch(/may have reached the service/)
  })

  it('an https address of a plain http server: says it does not speak TLS and to check the scheme, once', async () => {
    const before = plainRequests
    const result = await runCommand(['status', TX_ID], {env: env(`https://127.0.0.1:${plainPort}`)})
    expect(result.exitCode).toBe(1)
    expect(result.stderr).toContain(`https://127.0.0.1:${plainPort} does not speak TLS (HTTPS).`)
    expect(result.stderr).toMatch(/Hint: The address is probably a plain http:\/\/ one/)
    expect(plainRequests - before).toBe(0)
  })
})
