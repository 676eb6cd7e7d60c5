/**
 * `paytx smoke run` testing a merchant's own service, in-process: a small shop (test/helpers/
 * merchant-shop.ts) starts the payment through the emulator's API, takes its webhooks and reports
 * its order; the scenario starts the payment through the shop (start:), checks the emulator's
 * delivery log (expect.delivered) and reads the shop's order until it is paid (check:).
 */
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'

import type {RunningEmulator} from '../../../src/emulator/index.js'
import {startEmulator} from '../../../src/emulator/index.js'
import {parseJsonOutput} from '../../helpers/cli.js'
import {parseJUnit} from '../../helpers/junit.js'
import {type Shop, type ShopOptions, startShop} from '../../helpers/merchant-shop.js'
import {runCommand} from '../../helpers/run-command.js'

const SHOP_CASE = `cases:
  - name: shop-pays
    product: dummy
    amount: 2500
    outcome: SETTLEMENT_COMPLETED
    start:
      url: \${env.SHOP_URL}/checkout
      headers: {x-shop-test: smoke}
      body: {amount: 2500, product: dummy}
      transaction_id: $.payment.id
    expect:
      status: SETTLEMENT_COMPLETED
      delivered: {to: "\${env.SHOP_URL}/webhooks", min: 2}
    check:
      url: \${env.SHOP_URL}/orders/\${transaction.id}
      expect: {status: 200, json: {"$.order.state": paid}}
      timeout: CHECK_TIMEOUT
`

describe('smoke run against a merchant service', () => {
  let emulator: RunningEmulator
  let shop: Shop | undefined
  const dir = mkdtempSync(join(tmpdir(), 'paytx-smoke-shop-'))

  beforeAll(async () => {
    // The full payload names each webhook's status, so the shop can answer one status with 500.
    emulator = await startEmulator({port: 0, settleAfterMs: 0, pendingForMs: 0, webhookBackoffMs: 50, assumptions: {webhookPayload: 'full'}})
  })
  afterAll(() => emulator.close())
  afterEach(async () => {
    await shop?.close()
    shop = undefined
  })

  const openShop = async (options: Partial<ShopOptions> = {}) => {
    shop = await startShop({emulatorUrl: emulator.url, apiKey: emulator.apiKey, apiKeyHeader: emulator.apiKeyHeader, organisation: emulator.organisation, ...options})
    return shop
  }
  const run = (file: string, args: string[] = []) =>
    runCommand(['smoke', 'run', file, ...args], {env: {PAYTX_BASE_URL: emulator.url, PAYTX_H2H_URL: emulator.proxyUrl, SHOP_URL: shop!.url}})
  const scenario = (name: string, text: string) => {
    const file = join(dir, name)
    writeFileSync(file, text)
    return file
  }

  it('passes a payment the shop starts: the id from its answer, every webhook answered 2xx, the order paid', async () => {
    const opened = await openShop()
    const junit = join(dir, 'pass.xml')
    const result = await run(scenario('pass.yaml', SHOP_CASE.replace('CHECK_TIMEOUT', '10s')), ['--json', '--junit', junit])
    expect(result.exitCode, result.stdout + result.stderr).toBe(0)
    const report = parseJsonOutput(result)
    const [shopCase] = report.cases
    expect(shopCase).toMatchObject({name: 'shop-pays', verdict: 'passed', product: 'dummy', amount: 2500, status: 'SETTLEMENT_COMPLETED', check: {status: 200}})
    // The transaction is the one the shop started, and the shop's order follows it.
    expect(opened.orders.get(shopCase.transactionId)).toEqual({id: 'order-1', state: 'paid'})
    expect(opened.requests.filter((request) => request === 'POST /checkout')).toHaveLength(1)
    // Every webhook the shop received is in the result, counted, with the answer it gave.
    const received = opened.received.filter((hook) => hook.transactionId === shopCase.transactionId)
    expect(received.length).toBeGreaterThanOrEqual(2)
    expect(shopCase.deliveries).toHaveLength(received.length)
    for (const delivery of shopCase.deliveries) {
      expect(delivery.url).toBe(`${opened.url}/webhooks`)
      expect(delivery.attempts[0]).toMatchObject({httpStatus: 200})
    }
    expect(shopCase.got).toContain(`${received.length} webhooks delivered, all answered 2xx`)
    expect(shopCase.got).not.toContain('0 webhooks')
    expect(shopCase.redirect).toMatchObject({url: expect.stringContaining(`${opened.url}/return?transaction_id=${shopCase.transactionId}`), status: 200})
    const testcase = parseJUnit(readFileSync(junit, 'utf8')).suites[0].testcases[0]
    expect(testcase.failure).toBeUndefined()
    expect(testcase.systemOut).toContain(`${received.length} webhooks delivered, all answered 2xx`)
    expect(testcase.systemOut).toContain(`SETTLEMENT_COMPLETED to ${opened.url}/webhooks: HTTP 200 at `)
  })

  it('counts the webhooks sent to the shop for a case paytx starts with webhook: <the shop’s URL>, never "0 webhooks"', async () => {
    const opened = await openShop()
    const file = scenario(
      'webhook-url.yaml',
      `cases:
  - name: paytx-starts
    product: dummy
    amount: 1499
    outcome: SETTLEMENT_COMPLETED
    webhook: \${env.SHOP_URL}/webhooks
    expect: {status: SETTLEMENT_COMPLETED, delivered: true}
`,
    )
    const result = await run(file, ['--json'])
    expect(result.exitCode, result.stdout + result.stderr).toBe(0)
    const [paytxCase] = parseJsonOutput(result).cases
    const received = opened.received.filter((hook) => hook.transactionId === paytxCase.transactionId)
    expect(received.length).toBeGreaterThanOrEqual(2)
    expect(paytxCase.got).toBe(`SETTLEMENT_COMPLETED, success, ${received.length} webhooks delivered, all answered 2xx`)
    expect(paytxCase.webhooks).toBeUndefined()
  })

  it('fails when the shop answers a webhook with 500, naming the webhook, the answer and the address', async () => {
    const opened = await openShop({webhookAnswer: (status) => (status === 'SETTLEMENT_COMPLETED' ? 500 : 200)})
    const junit = join(dir, 'fails.xml')
    const file = scenario('webhook-500.yaml', SHOP_CASE.replace(/\n {4}check:[\s\S]*$/, '\n'))
    const result = await run(file, ['--json', '--junit', junit])
    expect(result.exitCode, result.stdout + result.stderr).toBe(3)
    const [shopCase] = parseJsonOutput(result).cases
    expect(shopCase.verdict).toBe('failed')
    expect(shopCase.reason).toMatch(/^delivered: expected every webhook answered 2xx at http:\/\/127\.0\.0\.1:\d+\/webhooks, got \d+ of \d+ webhooks not: /)
    expect(shopCase.reason).toContain(`SETTLEMENT_COMPLETED answered HTTP 500 at ${opened.url}/webhooks (`)
    expect(shopCase.got).toMatch(/\d+ webhooks sent, \d+ not answered 2xx/)
    const failure = parseJUnit(readFileSync(junit, 'utf8')).suites[0].testcases[0].failure
    expect(failure?.attributes.message).toContain('SETTLEMENT_COMPLETED answered HTTP 500')
  })

  it('fails with the last answer when the shop’s order never reaches the expected state', async () => {
    await openShop({neverUpdates: true})
    const result = await run(scenario('never-paid.yaml', SHOP_CASE.replace('CHECK_TIMEOUT', '1500ms')))
    expect(result.exitCode, result.stdout + result.stderr).toBe(3)
    const row = result.stdout.split('\n').find((line) => line.startsWith('shop-pays'))!
    expect(row).toMatch(/FAIL: check: expected GET http:\/\/127\.0\.0\.1:\d+\/orders\/[0-9a-f-]+ to answer HTTP 200 with \$\.order\.state = "paid", got \$\.order\.state = "pending"; the last answer after [\d.]+ s \(\d+ reads\): HTTP 200 \{"order":\{"id":"order-1","state":"pending"\}\}/)
    // The webhooks themselves were fine: only the order is wrong.
    expect(row).not.toContain('delivered: expected')
  })

  it('fails a case whose shop answers no 2xx or no transaction id, saying what came', async () => {
    await openShop()
    const file = scenario(
      'bad-start.yaml',
      `defaults: {outcome: SETTLEMENT_COMPLETED}
cases:
  - name: wrong-path
    start: {url: "\${env.SHOP_URL}/nope", transaction_id: $.payment.id}
  - name: no-id
    start: {url: "\${env.SHOP_URL}/checkout", transaction_id: $.payment.number}
  - name: other-cart
    product: sofort
    amount: 999
    start: {url: "\${env.SHOP_URL}/checkout", transaction_id: /payment/id}
`,
    )
    const result = await run(file, ['--json'])
    expect(result.exitCode, result.stdout + result.stderr).toBe(3)
    const [wrongPath, noId, otherCart] = parseJsonOutput(result).cases
    // What the shop started is checked against the product and amount the case names.
    expect(otherCart).toMatchObject({verdict: 'failed', status: 'SETTLEMENT_COMPLETED', reason: 'product: expected sofort, got dummy; amount: expected 999, got 2500'})
    expect(wrongPath).toMatchObject({verdict: 'failed'})
    expect(wrongPath.reason).toMatch(/^start: expected a 2xx answer to POST http:\/\/127\.0\.0\.1:\d+\/nope, got HTTP 404 \{"error":"not found"\}$/)
    expect(noId.reason).toMatch(/^start: expected the transaction id at \$\.payment\.number in the answer to POST .*\/checkout, got no \$\.payment\.number: HTTP 201 \{"order"/)
  })

  it('is an error of the case (exit 1) when the shop does not answer at all, naming the address', async () => {
    const closed = await openShop()
    const url = closed.url
    await closed.close()
    shop = await openShop()
    const file = scenario('no-answer.yaml', `cases:\n  - name: shop-down\n    outcome: SETTLEMENT_COMPLETED\n    start: {url: "${url}/checkout", transaction_id: $.payment.id, timeout: 2s}\n`)
    const result = await run(file, ['--json'])
    expect(result.exitCode, result.stdout + result.stderr).toBe(1)
    const [down] = parseJsonOutput(result).cases
    expect(down).toMatchObject({verdict: 'error'})
    expect(down.reason).toBe(`POST ${url}/checkout failed: connect ECONNREFUSED ${url.replace("http://", "")}.`)
    expect(down.error.hint).toContain('Check that your service is running at that address')
  })

  it('refuses bad step definitions with exit 2, each at its line, and sends nothing', async () => {
    const opened = await openShop()
    const file = scenario(
      'bad-steps.yaml',
      `cases:
  - name: shop-pays
    outcome: SETTLEMENT_COMPLETED
    card: approve
    start:
      method: DELETE
      url: shop/checkout
      transaction_id: payment.id
      timeout: soon
    expect: {webhooks: 3}
    check:
      url: \${env.SHOP_URL}/orders/\${transaction.id}
      expect: {json: {"$.order[*]": paid}}
  - name: id-too-early
    outcome: SETTLEMENT_COMPLETED
    start: {url: "\${env.SHOP_URL}/checkout/\${transaction.id}", transaction_id: /payment/id}
`,
    )
    const result = await run(file)
    expect(result.exitCode).toBe(2)
    expect(result.stdout).toBe('')
    const problems = result.stderr
    expect(problems).toContain('bad-steps.yaml:6:15: cases[0].start.method: must be one of POST, PUT, PATCH, GET; got "DELETE"')
    expect(problems).toContain('bad-steps.yaml:9:16: cases[0].start.timeout: must be a duration greater than 0')
    expect(problems).toMatch(/bad-steps\.yaml:4:11: cases\[0\]\.card: card is for a transaction paytx starts/)
    expect(problems).toMatch(/bad-steps\.yaml:10:\d+: cases\[0\]\.expect\.webhooks: counts the webhooks of paytx's own listener/)
    expect(problems).toMatch(/bad-steps\.yaml:13:\d+: cases\[0\]\.check\.expect\.json\.\$\.order\[\*\]: "\$\.order\[\*\]" cannot read "\[\*\]"/)
    expect(problems).toMatch(/bad-steps\.yaml:16:\d+: cases\[1\]\.start\.url: \$\{transaction\.id\} can be used in check only, once the transaction has started/)
    expect(problems).not.toContain('product is required')
    expect(opened.requests).toEqual([])
  })
})
