/** expect.delivered judged from a delivery log: what each kind of delivery makes the case say. */
import {describe, expect, it} from 'vitest'

import {type LoggedDelivery, checkDeliveries} from '../../src/smoke/merchant-checks.js'

const SHOP = 'http://127.0.0.1:3000/webhooks'
const at = '2026-11-29T00:00:00.000Z'

function delivery(status: string, answers: (number | string)[], extra: Partial<LoggedDelivery> = {}): LoggedDelivery {
  return {
    id: `d-${status}`,
    status,
    url: SHOP,
    state: answers.length === 0 ? 'pending' : answers.some((answer) => typeof answer === 'number' && answer < 300) ? 'delivered' : 'failed',
    attempts: answers.map((answer, index) => ({attempt: index + 1, at, ...(typeof answer === 'number' ? {http_status: answer} : {error: answer})})),
    ...extra,
  }
}

/** A timer whose time passes only when slept, so a wait that runs out takes no real time. */
function fakeTimer() {
  let now = 0
  return {now: () => now, sleep: async (ms: number) => void (now += ms)}
}

async function judge(logs: LoggedDelivery[][], expectation = {min: 1} as {to?: string; min: number}) {
  let read = 0
  return checkDeliveries(expectation, 'tx-1', {deliveries: async () => logs[Math.min(read++, logs.length - 1)], timer: fakeTimer(), waitMs: 1000, pollMs: 100})
}

describe('checkDeliveries', () => {
  it('passes when every webhook was answered 2xx at its first attempt, and counts them', async () => {
    const checked = await judge([[delivery('INITIATED', [200]), delivery('SETTLEMENT_COMPLETED', [204])]], {to: SHOP, min: 2})
    expect(checked.differences).toEqual([])
    expect(checked.summary).toBe('2 webhooks delivered, all answered 2xx')
    expect(checked.deliveries[1]).toEqual({status: 'SETTLEMENT_COMPLETED', url: SHOP, state: 'delivered', attempts: [{at, httpStatus: 204}]})
  })

  it('waits for a first attempt still to come, reading the log again', async () => {
    const checked = await judge([[delivery('INITIATED', [200]), delivery('DECLINED', [])], [delivery('INITIATED', [200]), delivery('DECLINED', [200])]])
    expect(checked.summary).toBe('2 webhooks delivered, all answered 2xx')
  })

  it('names each webhook not answered 2xx: its answer, address and time, and a retry that worked later', async () => {
    const checked = await judge([[delivery('INITIATED', [200]), delivery('SETTLEMENT_REQUESTED', [500, 200]), delivery('SETTLEMENT_COMPLETED', ['ECONNREFUSED'])]])
    expect(checked.summary).toBe('3 webhooks sent, 2 not answered 2xx')
    expect(checked.differences).toEqual([
      {
        field: 'delivered',
        expected: 'every webhook answered 2xx',
        got: `2 of 3 webhooks not: SETTLEMENT_REQUESTED answered HTTP 500 at ${SHOP} (${at}; attempt 2 was answered 200); SETTLEMENT_COMPLETED failed (ECONNREFUSED) at ${SHOP} (${at})`,
      },
    ])
  })

  it('says a webhook was not sent within the wait only when the wait ran out, and one dropped by a fault as such', async () => {
    const checked = await judge([[delivery('INITIATED', [200]), delivery('DECLINED', [], {state: 'held'}), delivery('CANCELLED', [], {state: 'dropped'})]])
    expect(checked.differences[0].got).toBe(`2 of 3 webhooks not: DECLINED was not sent to ${SHOP} within 1.0 s (held); CANCELLED was dropped by a fault rule and never sent to ${SHOP}`)
    const early = await judge([[delivery('INITIATED', [500]), delivery('DECLINED', [])]])
    expect(early.differences[0].got).toContain(`DECLINED was not sent to ${SHOP} when the log was read (pending)`)
  })

  it('fails on the wrong address, too few webhooks, or none at all', async () => {
    const elsewhere = await judge([[delivery('INITIATED', [200], {url: 'http://127.0.0.1:9/other'})]], {to: SHOP, min: 2})
    expect(elsewhere.differences).toEqual([
      {field: 'delivered', expected: `every webhook answered 2xx at ${SHOP}`, got: `1 of 1 webhook not: INITIATED went to http://127.0.0.1:9/other, not ${SHOP}`},
      {field: 'delivered', expected: 'at least 2 webhooks', got: '1 webhook [INITIATED]'},
    ])
    const none = await judge([[]])
    expect(none.summary).toBe('no webhook sent')
    expect(none.differences[0].got).toMatch(/^no webhook was sent/)
  })
})
