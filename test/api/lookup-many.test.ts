import {describe, expect, it} from 'vitest'

import {type LookupResult, answerLookups, checkoutOutcome, lookUpMany} from '../../src/api/lookup-many.js'
import type {IdTarget} from '../../src/input/transaction-ids.js'

/** Lookups that finish when the test says so: each id's promise is resolved by hand. */
class ManualLookups {
  readonly started: string[] = []
  private readonly finishers = new Map<string, (value: string) => void>()
  inFlight = 0
  maxInFlight = 0

  readonly lookup = (id: string): Promise<string> => {
    this.started.push(id)
    this.inFlight++
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight)
    return new Promise((resolve) =>
      this.finishers.set(id, (value) => {
        this.inFlight--
        resolve(value)
      }),
    )
  }

  finish(id: string, value = `value of ${id}`): void {
    const finisher = this.finishers.get(id)
    if (!finisher) throw new Error(`${id} was not started`)
    this.finishers.delete(id)
    finisher(value)
  }
}

/** Ids `id-0`, `id-1`, ... counting how many were read. */
function countingTargets(count: number): {targets: AsyncIterable<IdTarget>; read: () => number} {
  let read = 0
  async function* targets() {
    for (let index = 0; index < count; index++) {
      read++
      yield {id: `id-${index}`, where: `stdin line ${index + 1}`}
    }
  }
  return {targets: targets(), read: () => read}
}

/** Lets every promise that can settle do so. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

async function take<T>(iterator: AsyncIterator<T>): Promise<T> {
  const next = await iterator.next()
  if (next.done) throw new Error('ended early')
  return next.value
}

describe('lookUpMany', () => {
  it('hands results on in input order whatever order they finish in, with at most `concurrency` running', async () => {
    const lookups = new ManualLookups()
    const {targets} = countingTargets(3)
    const results = lookUpMany(targets, lookups.lookup, {concurrency: 2})
    const first = results.next()
    await settle()
    expect(lookups.started).toEqual(['id-0', 'id-1'])
    lookups.finish('id-1')
    await settle()
    expect(lookups.started).toEqual(['id-0', 'id-1', 'id-2'])
    lookups.finish('id-2')
    lookups.finish('id-0')
    expect((await first).value).toEqual({id: 'id-0', value: 'value of id-0'})
    expect(await take(results)).toEqual({id: 'id-1', value: 'value of id-1'})
    expect(await take(results)).toEqual({id: 'id-2', value: 'value of id-2'})
    expect((await results.next()).done).toBe(true)
    expect(lookups.maxInFlight).toBe(2)
  })

  it('reads no further than the window past the oldest result not yet handed on', async () => {
    const lookups = new ManualLookups()
    const {targets, read} = countingTargets(100)
    const results = lookUpMany(targets, lookups.lookup, {concurrency: 2, window: 5})
    const first = results.next()
    await settle()
    // id-0 is slow: the others finish, but only the window's worth is read behind it.
    for (let index = 1; index < 5; index++) {
      lookups.finish(`id-${index}`)
      await settle()
    }
    expect(read()).toBe(5)
    expect(lookups.started).toEqual(['id-0', 'id-1', 'id-2', 'id-3', 'id-4'])
    lookups.finish('id-0')
    expect((await first).value?.id).toBe('id-0')
    await settle()
    expect(read()).toBe(6)
  })

  it('settles a line that is not an id as an input error without looking it up', async () => {
    const lookups = new ManualLookups()
    async function* targets() {
      yield {id: 'a b', where: 'stdin line 1', problem: 'it contains whitespace (one id per line)'}
    }
    const all: LookupResult<string>[] = []
    for await (const result of lookUpMany(targets(), lookups.lookup, {concurrency: 4})) all.push(result)
    expect(lookups.started).toEqual([])
    expect(all).toEqual([{id: 'a b', error: expect.objectContaining({kind: 'input', message: expect.stringMatching(/"a b" \(stdin line 1\) is not a transaction id/)})}])
  })
})

describe('answerLookups', () => {
  it('hands every result to the sink in order, tells failures, and gives the gravest exit code', async () => {
    async function* targets() {
      for (const id of ['paid', 'broken', 'declined']) yield {id, where: id}
    }
    const added: string[] = []
    const failures: string[] = []
    let ended = false
    const answers: Record<string, {status: string; success: boolean}> = {paid: {status: 'SETTLEMENT_COMPLETED', success: true}, declined: {status: 'DECLINED', success: false}}
    const lookup = async (id: string) => {
      if (!answers[id]) throw new Error(`no ${id}`)
      return answers[id]
    }
    const outcome = await answerLookups(targets(), lookup, {
      concurrency: 3,
      outcome: checkoutOutcome,
      sink: {add: (result) => added.push(result.id), end: () => (ended = true)},
      onFailure: (result) => failures.push(result.id),
    })
    expect(added).toEqual(['paid', 'broken', 'declined'])
    expect(failures).toEqual(['broken'])
    expect(ended).toBe(true)
    expect(outcome).toEqual({count: 3, failed: 1, exitCode: 1})
  })
})
