/**
 * The emulator's worker threads, through the built CLI (run from the TypeScript sources, the
 * emulator has no worker scripts and does this work on its own thread): a restart over many
 * overdue moves catches up in a worker and makes every move once, with its webhook queued once,
 * whether it is left alone, stopped or killed in the middle; lists and searches are read by a
 * query thread and show what was just committed.
 */
import {randomUUID} from 'node:crypto'
import {mkdtempSync} from 'node:fs'
import {type Server, createServer} from 'node:http'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {startEmulator} from '../../src/emulator/index.js'
import {EmulatorStore} from '../../src/emulator/store/index.js'
import {EMULATOR_DEFAULTS} from '../../src/test-mode/emulator-defaults.js'
import {type RunningCli, startCli} from '../helpers/cli.js'
import {emulatorApi} from '../helpers/emulator-api.js'
import {CUSTOMER_FIELDS} from '../helpers/fixtures.js'

const Database = createRequire(import.meta.url)('libsql') as typeof import('libsql')

const OVERDUE = 20_000
const headers = {'content-type': 'application/json', 'X-APIKEY': EMULATOR_DEFAULTS.apiKey}

/** A receiver that never answers: the deliveries stay pending in the store, where the test counts them. */
let receiver: Server
let webhookUrl: string
beforeAll(async () => {
  receiver = createServer(() => {})
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  webhookUrl = `http://127.0.0.1:${(receiver.address() as {port: number}).port}/hooks`
})
afterAll(() => receiver.closeAllConnections())

/** A store with OVERDUE transactions whose settlement fell due an hour ago. */
async function overdueStore(): Promise<string> {
  const path = join(mkdtempSync(join(tmpdir(), 'paytx-catch-up-cli-')), 'emulator.db')
  const first = await startEmulator({port: 0, store: path, webhookUrl})
  const {transaction} = await emulatorApi(first).startPayment('dummy')
  await first.close()
  const store = EmulatorStore.open(path)
  const dueAt = Date.now() - 3_600_000
  store.write(() => {
    for (let n = 0; n < OVERDUE; n++) store.insertTransaction({transaction: {...transaction, id: randomUUID(), status: 'SETTLEMENT_REQUESTED'}, cvvGiven: false, dueAt})
  })
  store.close()
  return path
}

/** What the store holds about the settlements: moves made by the timer, per transaction, and their webhooks. */
function settled(path: string) {
  const db = new Database(path)
  try {
    const count = (sql: string) => (db.prepare(sql).get() as {n: number}).n
    return {
      moves: count("SELECT count(*) AS n FROM status_changes WHERE by = 'timer' AND to_status = 'SETTLEMENT_COMPLETED'"),
      movedTwice: count("SELECT count(*) AS n FROM (SELECT 1 FROM status_changes WHERE by = 'timer' GROUP BY transaction_id HAVING count(*) > 1)"),
      webhooks: count("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'SETTLEMENT_COMPLETED'"),
      webhooksTwice: count("SELECT count(*) AS n FROM (SELECT 1 FROM webhook_deliveries WHERE status = 'SETTLEMENT_COMPLETED' GROUP BY transaction_id HAVING count(*) > 1)"),
      stillDue: count("SELECT count(*) AS n FROM transactions WHERE status = 'SETTLEMENT_REQUESTED'"),
    }
  } finally {
    db.close()
  }
}

/** `emulator start --json` over the store, counting the settlements it reports (read on from where the last count stopped). */
function startOver(path: string): {cli: RunningCli; reported: () => number} {
  const cli = startCli(['emulator', 'start', '--port', '0', '--store', path, '--json', '--webhook-url', webhookUrl], {timeoutMs: 60_000})
  let reported = 0
  let counted = 0
  return {
    cli,
    reported() {
      const text = cli.stdout()
      const end = text.lastIndexOf('\n') + 1
      for (const line of text.slice(counted, end).split('\n')) if (line.startsWith('{"event":"status"') && line.includes('"to":"SETTLEMENT_COMPLETED"')) reported++
      counted = Math.max(counted, end)
      return reported
    },
  }
}

async function untilReported(run: {cli: RunningCli; reported: () => number}, count: number): Promise<void> {
  await run.cli.waitFor('stdout', () => run.reported() >= count, 45_000)
}

describe('the catch-up thread', () => {
  it('makes every overdue move once, with its webhook queued once, across a kill -9 and a stop in the middle', async () => {
    const path = await overdueStore()

    const killed = startOver(path)
    await untilReported(killed, 1)
    expect((await killed.cli.stop('SIGKILL')).signal).toBe('SIGKILL')
    const afterKill = settled(path)
    // Killed in the middle: some moves committed (at least those reported), not all.
    expect(afterKill.moves).toBeGreaterThanOrEqual(killed.reported())
    expect(afterKill.moves).toBeLessThan(OVERDUE)
    // Each committed with its webhook.
    expect(afterKill.webhooks).toBe(afterKill.moves)

    const stopped = startOver(path)
    await untilReported(stopped, 1)
    expect((await stopped.cli.stop('SIGTERM')).code).toBe(130)
    const afterStop = settled(path)
    expect(afterStop.moves).toBeLessThan(OVERDUE)
    // A stop lets the commit under way finish and reports every move committed, each once.
    expect(stopped.reported()).toBe(afterStop.moves - afterKill.moves)

    const last = startOver(path)
    await untilReported(last, OVERDUE - afterStop.moves)
    expect((await last.cli.stop()).code).toBe(130)
    expect(last.reported()).toBe(OVERDUE - afterStop.moves)
    expect(settled(path)).toEqual({moves: OVERDUE, movedTwice: 0, webhooks: OVERDUE, webhooksTwice: 0, stillDue: 0})
  }, 150_000)
})

describe('the query thread', () => {
  it('lists and searches a store file with what was just committed, as the dashboard and the admin list show it', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'paytx-queries-cli-')), 'emulator.db')
    const run = startCli(['emulator', 'start', '--port', '0', '--store', path, '--json'], {timeoutMs: 60_000})
    const [, url] = await run.waitForStdout(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/)
    try {
      const post = async (path: string, body: unknown) => (await (await fetch(`${url}${path}`, {method: 'POST', headers, body: JSON.stringify(body)})).json()) as {id: string}
      const customer = await post('/v1/customer', {...CUSTOMER_FIELDS, first_name: 'Margriet', organisation: EMULATOR_DEFAULTS.organisation})
      const started: string[] = []
      for (const reference of ['order-1', 'order-2', 'other-3']) {
        const details = {redirect_url: 'https://shop.example/back'}
        started.push((await post('/v1/transaction/start', {amount: 250, customer: customer.id, payment_product: 'dummy', merchant_reference: reference, details})).id)
        // Each list, read by the query thread right after the answer, holds the one just started.
        const listed = (await (await fetch(`${url}/_emulator/transactions`, {headers})).json()) as {transactions: {id: string}[]}
        expect(listed.transactions.map((tx) => tx.id)).toEqual([...started].reverse())
      }
      const searched = (await (await fetch(`${url}/_emulator/transactions?search=ORDER-`, {headers})).json()) as {transactions: {merchant_reference: string}[]}
      expect(searched.transactions.map((tx) => tx.merchant_reference)).toEqual(['order-2', 'order-1'])
      const page = await (await fetch(`${url}/?q=margriet`)).text()
      for (const id of started) expect(page).toContain(id)
      expect(await (await fetch(`${url}/?q=no-such-thing`)).text()).not.toContain(started[0])
    } finally {
      expect((await run.stop()).code).toBe(130)
    }
  }, 60_000)
})
