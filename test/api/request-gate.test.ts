import {describe, expect, it} from 'vitest'

import {RequestGate} from '../../src/api/request-gate.js'

describe('RequestGate', () => {
  it('lets at most maxInFlight attempts in at once, the next when one leaves', async () => {
    const gate = new RequestGate(2)
    let inside = 0
    let most = 0
    const attempt = async () => {
      const leave = await gate.enter()
      inside++
      most = Math.max(most, inside)
      await new Promise((resolve) => setTimeout(resolve, 5))
      inside--
      leave()
      leave() // leaving twice frees one place only
    }
    await Promise.all(Array.from({length: 7}, attempt))
    expect(most).toBe(2)
    expect(inside).toBe(0)
  })

  it('holds every attempt back while a pause is in force, keeping the later of two pauses', async () => {
    let now = 1000
    const slept: number[] = []
    const gate = new RequestGate(Number.POSITIVE_INFINITY, () => now, async (ms) => {
      slept.push(ms)
      now += ms
    })
    gate.pauseFor(500)
    gate.pauseFor(200)
    const leave = await gate.enter()
    expect(slept).toEqual([500])
    expect(now).toBe(1500)
    leave()
    await gate.enter()
    expect(slept).toEqual([500])
  })
})
