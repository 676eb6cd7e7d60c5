import {describe, expect, it} from 'vitest'

import {NetworkError, ServiceError} from '../../src/errors.js'
import type {Timer} from '../../src/flow/timer.js'
import {waitForFinalStatus} from '../../src/flow/wait-for-status.js'

/** A timer whose sleeps pass instantly, recording each pause. */
function fakeTimer(): Timer & {sleeps: number[]} {
  let now = 1_000_000
  const sleeps: number[] = []
  return {
    sleeps,
    now: () => now,
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason
      sleeps.push(ms)
      now += ms
    },
  }
}

function scripted(statuses: (string | Error)[]) {
  let i = 0
  const calls = {count: 0}
  const read = async () => {
    calls.count++
    const next = statuses[Math.min(i++, statuses.length - 1)]
    if (next instanceof Error) throw next
    return {status: next, status_reason: ''}
  }
  return {read, calls}
}

describe('waitForFinalStatus', () => {
  it('reads until a final status with growing pauses, reporting each change once', async () => {
    const timer = fakeTimer()
    const {read, calls} = scripted(['INITIATED', 'IN_PROGRESS', 'IN_PROGRESS', 'PENDING', 'DECLINED'])
    const seen: string[] = []
    const result = await waitForFinalStatus(read, {
      timeoutMs: 60_000,
      until: 'final',
      timer,
      onStatus: (reading, previous) => seen.push(`${previous?.status ?? '-'}>${reading.status}`),
    })
    expect(result).toMatchObject({status: 'DECLINED', final: true, success: false, conclusive: true, timedOut: false})
    expect(calls.count).toBe(5)
    expect(seen).toEqual(['->INITIATED', 'INITIATED>IN_PROGRESS', 'IN_PROGRESS>PENDING', 'PENDING>DECLINED'])
    expect(timer.sleeps).toEqual([500, 750, 1125, 1688])
  })

  it('reads at once when woken (a webhook arrived) instead of sleeping out the pause', async () => {
    const wake = new EventTarget()
    const {read, calls} = scripted(['SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED'])
    const started = Date.now()
    const waiting = waitForFinalStatus(read, {timeoutMs: 60_000, until: 'settled', initialDelayMs: 30_000, wake})
    await new Promise((resolve) => setTimeout(resolve, 50))
    wake.dispatchEvent(new Event('wake'))
    const result = await waiting
    expect(result).toMatchObject({status: 'SETTLEMENT_COMPLETED', final: true, reads: 2})
    expect(calls.count).toBe(2)
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it('stops at SETTLEMENT_REQUESTED as a success, or waits through it with until settled', async () => {
    const quick = await waitForFinalStatus(scripted(['SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED']).read, {timeoutMs: 10_000, until: 'final', timer: fakeTimer()})
    expect(quick).toMatchObject({status: 'SETTLEMENT_REQUESTED', success: true, final: false, conclusive: true, reads: 1})

    const settled = await waitForFinalStatus(scripted(['SETTLEMENT_REQUESTED', 'SETTLEMENT_REQUESTED', 'SETTLEMENT_COMPLETED']).read, {
      timeoutMs: 10_000,
      until: 'settled',
      timer: fakeTimer(),
    })
    expect(settled).toMatchObject({status: 'SETTLEMENT_COMPLETED', success: true, final: true, reads: 3})
  })

  it('waits through UNKNOWN until the deadline and reports it as not conclusive', async () => {
    const timer = fakeTimer()
    const result = await waitForFinalStatus(scripted(['UNKNOWN']).read, {timeoutMs: 20_000, until: 'final', timer, maxDelayMs: 5_000})
    expect(result).toMatchObject({status: 'UNKNOWN', conclusive: false, timedOut: true, final: false})
    expect(timer.sleeps.reduce((a, b) => a + b, 0)).toBe(20_000)
    expect(Math.max(...timer.sleeps)).toBeLessThanOrEqual(5_000)
  })

  it('uses a reading in hand without reading again when it is already conclusive', async () => {
    const {read, calls} = scripted(['FAILED'])
    const result = await waitForFinalStatus(read, {timeoutMs: 1000, until: 'final', timer: fakeTimer(), initial: {status: 'CANCELLED', status_reason: 'by payer'}})
    expect(result.status).toBe('CANCELLED')
    expect(calls.count).toBe(0)
  })

  it('keeps polling through network failures and 5xx, but stops on a 404', async () => {
    const errors: string[] = []
    const flaky = scripted([
      new NetworkError('refused'),
      new ServiceError({status: 503, method: 'GET', url: 'http://x', message: 'busy'}),
      'SETTLEMENT_COMPLETED',
    ])
    const result = await waitForFinalStatus(flaky.read, {timeoutMs: 10_000, until: 'final', timer: fakeTimer(), onReadError: (e) => errors.push(e.message)})
    expect(result.status).toBe('SETTLEMENT_COMPLETED')
    expect(errors).toEqual(['refused', 'busy'])

    const missing = scripted([new ServiceError({status: 404, method: 'GET', url: 'http://x', message: 'not found'})])
    await expect(waitForFinalStatus(missing.read, {timeoutMs: 10_000, until: 'final', timer: fakeTimer()})).rejects.toThrow('not found')
    expect(missing.calls.count).toBe(1)
  })

  it('rejects with the abort reason when the signal aborts', async () => {
    const controller = new AbortController()
    let reads = 0
    const read = async () => {
      if (++reads === 2) controller.abort(new Error('stop'))
      return {status: 'PENDING'}
    }
    await expect(waitForFinalStatus(read, {timeoutMs: 60_000, until: 'final', timer: fakeTimer(), signal: controller.signal})).rejects.toThrow('stop')
    expect(reads).toBe(2)
  })
})
