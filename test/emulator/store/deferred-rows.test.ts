/**
 * Rows held back and written many per statement: each statement's rows go out in the order they
 * were added, in statements of at most 64 rows, and nothing is held after a flush.
 */
import {describe, expect, it} from 'vitest'

import {DeferredRows, ManyRowsStatement} from '../../../src/emulator/store/deferred-rows.js'

describe('rows written many per statement', () => {
  it('flushes each statement in order, 64 rows a statement at most, and holds nothing after', () => {
    const pairs = new ManyRowsStatement((rows) => `INSERT INTO pairs (a, b) VALUES ${rows}`, '(?, ?)', 2)
    const singles = new ManyRowsStatement((rows) => `INSERT INTO singles (a) VALUES ${rows}`, '(?)', 1)
    const rows = new DeferredRows()
    for (let n = 0; n < 130; n++) rows.add(pairs, [n, -n])
    rows.add(singles, ['x'])
    const run: [string, unknown[]][] = []
    rows.flush((sql, params) => run.push([sql, params]))
    expect(run.map(([sql]) => (sql.match(/\(\?, \?\)/g) ?? sql.match(/\(\?\)/g))!.length)).toEqual([64, 64, 2, 1])
    expect(run.slice(0, 3).flatMap(([, params]) => params)).toEqual(Array.from({length: 130}, (_, n) => [n, -n]).flat())
    expect(run[3]).toEqual(['INSERT INTO singles (a) VALUES (?)', ['x']])
    const after: unknown[] = []
    rows.flush((sql) => after.push(sql))
    expect(after).toEqual([])
  })
})
