/**
 * A service behind HTTPS whose certificate Node trusts through NODE_EXTRA_CA_CERTS, which Node
 * reads only when a process starts: so these spawn bin/run.js. The untrusted certificate and the
 * plain-http address are tested in-process in test/commands/service-tls.test.ts.
 */
import {execFileSync} from 'node:child_process'
import {createServer as createHttpsServer, type Server as HttpsServer} from 'node:https'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {has} from '../helpers/capabilities.js'
import {runCli} from '../helpers/cli.js'
import {TX_ID} from '../helpers/fixtures.js'
import {API_KEY} from '../helpers/secrets.js'

const TX = {id: TX_ID, amount: '1499', payment_product: 'dummy', status: 'SETTLEMENT_COMPLETED', details: {}, created_at: '2026-11-20T10:00:00.000Z', last_status_update: '2026-11-20T10:00:00.000Z'}

describe.runIf(has('openssl'))('a service behind HTTPS', () => {
  const folder = mkdtempSync(join(tmpdir(), 'paytx-tls-'))
  const certFile = join(folder, 'cert.pem')
  let tls: HttpsServer
  let handshakes = 0
  let tlsRequests = 0
  const listen = (server: HttpsServer) =>
    new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)))
  let tlsPort: number

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
    tlsPort = await listen(tls)
  })
  afterAll(async () => {
    await Promise.all([tls].map((server) => new Promise((resolve) => server.close(resolve))))
    rmSync(folder, {recursive: true, force: true})
  })

  const env = (base: string, extra: Record<string, string | undefined> = {}) => ({PAYTX_BASE_URL: `${base}/v1`, PAYTX_API_KEY: API_KEY, NODE_EXTRA_CA_CERTS: undefined, ...extra})

  it('a certificate Node trusts (here through NODE_EXTRA_CA_CERTS): the answer, as over http', async () => {
    const result = await runCli(['status', TX_ID, '--json'], {env: env(`https://127.0.0.1:${tlsPort}`, {NODE_EXTRA_CA_CERTS: certFile})})
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({id: TX_ID, status: 'SETTLEMENT_COMPLETED'})
  })

  it('several lookups go one after another over one kept-alive TLS connection', async () => {
    const before = handshakes
    const requestsBefore = tlsRequests
    const result = await runCli(['status', TX_ID, TX_ID, TX_ID, '--concurrency', '1', '--json'], {env: env(`https://127.0.0.1:${tlsPort}`, {NODE_EXTRA_CA_CERTS: certFile})})
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(result.stdout)).toHaveLength(3)
    expect(tlsRequests - requestsBefore).toBe(3)
    expect(handshakes - before).toBe(1)
  })
})
