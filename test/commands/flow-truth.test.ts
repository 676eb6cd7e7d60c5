/**
 * What `paytx flow` reports is what happened: a failed step is reported once, a customer given
 * by id is called reused only once the service accepted it, and a server that is not the payment
 * service (another program on the port, answering 404 or 501 with an HTML page) gets no hint that
 * the request "may still have been processed". In-process through the command context, against
 * real servers on 127.0.0.1.
 */
import {type Server, createServer} from 'node:http'
import type {AddressInfo} from 'node:net'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {type RunningEmulator, startEmulator} from '../../src/emulator/index.js'
import {emulatorApi} from '../helpers/emulator-api.js'
import {runCommand} from '../helpers/run-command.js'

let emulator: RunningEmulator
let foreign: Server
let foreignUrl: string

/** Another program on the port, as Python's http.server answers: 404 pages to GET, 501 to POST. */
function startForeignServer(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume()
    const status = req.method === 'POST' ? 501 : 404
    res.writeHead(status, {'content-type': 'text/html;charset=utf-8'})
    res.end(`<!DOCTYPE HTML><html><head><title>Error response</title></head><body><h1>Error response</h1><p>Error code: ${status}</p></body></html>`)
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

beforeAll(async () => {
  emulator = await startEmulator({port: 0, settleAfterMs: 0, webhookBackoffMs: 20})
  foreign = await startForeignServer()
  foreignUrl = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`
})
afterAll(async () => {
  await emulator.close()
  await new Promise((resolve) => foreign.close(resolve))
})

const emulatorEnv = () => ({PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl})

describe('paytx flow against another program on the port', () => {
  it.each([
    ['a created customer (501 to POST)', [], 'customer', /501/],
    ['a given customer (501 to the transaction’s start)', ['--customer', 'c-1'], 'transaction', /501/],
  ])('%s: the step is marked failed once, the error said once, and no "may still have been processed"', async (_, extra, step, status) => {
    const run = await runCommand(['flow', '--product', 'dummy', '--amount', '100', '--approve', 'SETTLEMENT_COMPLETED', ...extra], {env: {PAYTX_BASE_URL: foreignUrl}})
    expect(run.exitCode).toBe(1)
    const lines = run.stderr.trim().split('\n')
    const failed = lines.filter((line) => line.startsWith('✖'))
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatch(new RegExp(`^✖ ${step} +\\w[\\w ]* failed$`))
    // The service's answer is quoted once: on the Error line.
    expect(run.stderr.match(/Error response/g)).toHaveLength(1)
    // Not called the service: the server at the address answered.
    expect(lines.find((line) => line.startsWith('Error: '))).toMatch(new RegExp(`^Error: The server at ${foreignUrl} answered ${status.source}`))
    expect(run.stderr).not.toContain('may still have been processed')
    expect(run.stderr).toMatch(/Hint: .*nothing was processed.*another web server/s)
    // A customer given by id was never accepted by anything: it is not called reused.
    expect(run.stderr).not.toContain('customer reused')
  })

  it('a 404 HTML page to a status read names another web server, not the id', async () => {
    const run = await runCommand(['status', 'tx-1'], {env: {PAYTX_BASE_URL: foreignUrl}})
    expect(run.exitCode).toBe(1)
    expect(run.stderr).toContain(`Error: The server at ${foreignUrl} answered 404`)
    expect(run.stderr).toContain('not at another web server')
    expect(run.stderr).not.toContain('may still have been processed')
  })
})

describe('paytx flow with a customer given by id', () => {
  it('an unknown customer id is not called reused: the start fails naming --customer', async () => {
    const run = await runCommand(['flow', '--product', 'dummy', '--amount', '100', '--approve', 'SETTLEMENT_COMPLETED', '--customer', '00000000-0000-4000-8000-000000000000'], {env: emulatorEnv()})
    expect(run.exitCode).toBe(1)
    expect(run.stderr).not.toContain('customer reused')
    expect(run.stderr).toMatch(/customer \(--customer\): no customer has this id/)
    expect(run.stderr.match(/✖/g)).toHaveLength(1)
  })

  it('a known customer id is called reused once the service accepted it, before the transaction is reported started', async () => {
    const customer = (await emulatorApi(emulator).createCustomer()).body as {id: string}
    const run = await runCommand(['flow', '--product', 'dummy', '--amount', '100', '--approve', 'SETTLEMENT_COMPLETED', '--customer', customer.id], {env: emulatorEnv()})
    expect(run.exitCode, run.stderr).toBe(0)
    const lines = run.stderr.split('\n')
    const reused = lines.findIndex((line) => line.startsWith('✔ customer reused'))
    const started = lines.findIndex((line) => line.startsWith('✔ transaction started'))
    expect(reused).toBeGreaterThanOrEqual(0)
    expect(lines[reused]).toContain(customer.id)
    expect(started).toBe(reused + 1)
  })
})
