/** watchOwner (src/process/owner.ts) on a manual ticker, a parent id the test moves and a stdin it ends. */
import {PassThrough} from 'node:stream'
import {describe, expect, it} from 'vitest'

import {PARENT_CHECK_MS, type OwnerGone, watchOwner} from '../../src/process/owner.js'

/** A ticker the test drives: each tick() runs every check registered and not stopped. */
function manualTicker() {
  const checks = new Set<() => void>()
  const intervals: number[] = []
  return {
    every: (ms: number, check: () => void) => {
      intervals.push(ms)
      checks.add(check)
      return () => checks.delete(check)
    },
    tick: () => {
      for (const check of checks) check()
    },
    get watching() {
      return checks.size
    },
    intervals,
  }
}

/** What the watch has settled with so far (undefined while it has not). */
function settled(gone: Promise<OwnerGone>): {value?: OwnerGone} {
  const state: {value?: OwnerGone} = {}
  void gone.then((value) => (state.value = value))
  return state
}

describe('watchOwner', () => {
  it('settles with parent-exited at the first check after the parent id changes, and not before', async () => {
    const ticker = manualTicker()
    let parent = 4242
    const watch = watchOwner({ppid: () => parent, every: ticker.every})
    const state = settled(watch.gone)
    expect(ticker.intervals).toEqual([PARENT_CHECK_MS])
    ticker.tick()
    await Promise.resolve()
    expect(state.value).toBeUndefined()
    parent = 1 // handed to init
    ticker.tick()
    await expect(watch.gone).resolves.toBe('parent-exited')
    watch.dispose()
    expect(ticker.watching).toBe(0)
  })

  it('does not watch a parent that is already init, nor one it was told to leave alone', () => {
    for (const options of [{ppid: () => 1}, {ppid: () => 4242, parent: false}]) {
      const ticker = manualTicker()
      const watch = watchOwner({...options, every: ticker.every})
      expect(ticker.watching).toBe(0)
      watch.dispose()
    }
  })

  it('settles with stdin-closed when stdin ends, what came in before dropped, and lets go of stdin when disposed', async () => {
    const ticker = manualTicker()
    const stdin = new PassThrough()
    const watch = watchOwner({ppid: () => 4242, every: ticker.every, stdin})
    stdin.write('anything a harness sends\n')
    stdin.end()
    await expect(watch.gone).resolves.toBe('stdin-closed')
    watch.dispose()
    expect(stdin.listenerCount('data')).toBe(0)
    expect(stdin.listenerCount('end')).toBe(0)
  })

  it('a stdin that errors counts as closed', async () => {
    const stdin = new PassThrough()
    const watch = watchOwner({parent: false, stdin})
    stdin.destroy(new Error('EPIPE'))
    await expect(watch.gone).resolves.toBe('stdin-closed')
    watch.dispose()
  })
})
