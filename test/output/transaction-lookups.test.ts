import {describe, expect, it} from 'vitest'

import type {LookupResult} from '../../src/api/lookup-many.js'
import {jsonLookupsWriter} from '../../src/output/transaction-lookups.js'

describe('jsonLookupsWriter', () => {
  const results: LookupResult<unknown>[] = [
    {id: 'tx-1', value: {status: 'PENDING', details: {note: 'two\nlines', nested: [1, {a: null}]}}},
    {id: 'missing', error: {kind: 'service', exitCode: 1, message: 'No transaction has the id "missing"', status: 404}},
  ]

  it.each([0, 1, 2])('writes the same document as JSON.stringify of the whole array, for %i elements', (count) => {
    const writes: string[] = []
    const writer = jsonLookupsWriter('transaction', (text) => writes.push(text))
    for (const result of results.slice(0, count)) writer.add(result)
    writer.end()
    const expected = results.slice(0, count).map((result) => (result.error ? {id: result.id, error: result.error} : {id: result.id, transaction: result.value}))
    expect(writes.join('')).toBe(`${JSON.stringify(expected, null, 2)}\n`)
  })

  it('writes each element as it is added', () => {
    const writes: string[] = []
    const writer = jsonLookupsWriter('checkoutsuccess', (text) => writes.push(text))
    writer.add(results[0])
    expect(writes).toHaveLength(1)
    expect(writes[0]).toMatch(/^\[\n  \{\n    "id": "tx-1",\n    "checkoutsuccess": \{/)
  })
})
