import {describe, expect, it} from 'vitest'

import {InputError} from '../../src/errors.js'
import {type LookupFlags, type LookupSources, idShapeProblem, toLookupOptions} from '../../src/input/transaction-ids.js'

describe('toLookupOptions', () => {
  it.each<{name: string; flags: LookupFlags; sources?: LookupSources; ids: string[]; many: boolean; concurrency?: number}>([
    {name: 'one id argument', flags: {ids: ['tx-1']}, ids: ['tx-1'], many: false},
    {name: 'one id, trimmed', flags: {ids: ['  tx-1\t']}, ids: ['tx-1'], many: false},
    {name: 'several arguments', flags: {ids: ['a', 'b', 'c']}, ids: ['a', 'b', 'c'], many: true},
    {name: 'stdin where - stands', flags: {ids: ['a', '-', 'z']}, sources: {stdin: 'b\n\n# skip\n c \r\n'}, ids: ['a', 'b', 'c', 'z'], many: true},
    {name: 'one id on stdin keeps the one-id view', flags: {ids: ['-']}, sources: {stdin: '\ntx-9\n'}, ids: ['tx-9'], many: false},
    {name: 'a file after the arguments', flags: {ids: ['a'], 'from-file': 'ids.txt'}, sources: {fromFile: '\uFEFFb\n#c\nd'}, ids: ['a', 'b', 'd'], many: true},
    {name: '--from-file -', flags: {ids: [], 'from-file': '-'}, sources: {stdin: 'x\ny\n'}, ids: ['x', 'y'], many: true},
    {name: '--csv with one id gives rows', flags: {ids: ['a'], csv: true}, ids: ['a'], many: true},
    {name: '--concurrency', flags: {ids: ['a', 'b'], concurrency: 9}, ids: ['a', 'b'], many: true, concurrency: 9},
  ])('$name', ({flags, sources, ids, many, concurrency}) => {
    const options = toLookupOptions(flags, sources ?? {})
    expect(options.targets.map((target) => target.id)).toEqual(ids)
    expect(options.many).toBe(many)
    expect(options.concurrency).toBe(concurrency ?? 4)
  })

  it('keeps a line that is not an id, with where it was and why, among good ones', () => {
    const options = toLookupOptions({ids: ['-']}, {stdin: 'good\nnot good\n\nalso?bad\n'})
    expect(options.targets).toEqual([
      {id: 'good', where: 'stdin line 1'},
      {id: 'not good', where: 'stdin line 2', problem: 'it contains whitespace (one id per line)'},
      {id: 'also?bad', where: 'stdin line 4', problem: 'it contains "?", which cannot be part of an id in the URL'},
    ])
  })

  it.each<{name: string; flags: LookupFlags; sources?: LookupSources; flag: string; message: RegExp}>([
    {name: 'no id at all', flags: {ids: []}, flag: 'id', message: /A transaction id is required/},
    {name: 'an empty list', flags: {ids: ['-']}, sources: {stdin: '# only\n\n'}, flag: 'id', message: /only blank lines and comments/},
    {name: 'one id that is not one', flags: {ids: ['a/b']}, flag: 'id', message: /"a\/b" \(the id argument\) is not a transaction id/},
    {name: 'only bad lines', flags: {ids: ['-']}, sources: {stdin: 'a b\n'.repeat(2)}, flag: 'id', message: /None of the 2 lines/},
    {name: 'stdin twice', flags: {ids: ['-'], 'from-file': '-'}, flag: '--from-file', message: /stdin can be read once/},
    {name: '--concurrency 0', flags: {ids: ['a', 'b'], concurrency: 0}, flag: '--concurrency', message: /from 1 to 32/},
    {name: '--concurrency 33', flags: {ids: ['a', 'b'], concurrency: 33}, flag: '--concurrency', message: /from 1 to 32/},
    {name: '--csv with --json', flags: {ids: ['a', 'b'], csv: true, json: true}, flag: '--csv', message: /cannot be used together/},
  ])('refuses $name', ({flags, sources, flag, message}) => {
    let caught: unknown
    try {
      toLookupOptions(flags, sources ?? {})
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(InputError)
    expect((caught as InputError).flag).toBe(flag)
    expect((caught as InputError).message).toMatch(message)
  })
})

describe('idShapeProblem', () => {
  it.each(['9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c', '65f1c0ffee0123456789abcd', 'tx_123', 'ümlaut-id', 'a%20b', 'x'.repeat(200)])('accepts %s', (id) => {
    expect(idShapeProblem(id)).toBeUndefined()
  })

  it.each([
    ['', /empty/],
    ['a b', /whitespace/],
    ['a\u0000b', /control character/],
    ['a/b', /"\/"/],
    ['a#b', /"#"/],
    ['a\\b', /"\\"/],
    ['x'.repeat(201), /longer than 200/],
  ])('rejects %j', (id, problem) => {
    expect(idShapeProblem(id)).toMatch(problem)
  })
})
