import {describe, expect, it} from 'vitest'

import {UnresolvedReferenceError, findReferences, parseTemplate, resolveReferences} from '../../src/smoke/references.js'

describe('references', () => {
  it('parses references inside text, with names holding dots and dashes', () => {
    expect(parseTemplate('order ${cases.first-case.v2.transactionId}!')).toEqual({
      parts: ['order ', {caseName: 'first-case.v2', field: 'transactionId', text: '${cases.first-case.v2.transactionId}'}, '!'],
      problems: [],
    })
  })

  it('treats $${ as a literal ${ and plain text as one part', () => {
    expect(parseTemplate('cost $${5}')).toEqual({parts: ['cost ${5}'], problems: []})
    expect(parseTemplate('')).toEqual({parts: [''], problems: []})
  })

  it('finds references deep in objects and arrays, with their paths', () => {
    const {references} = findReferences({a: ['x', '${cases.one.customerId}'], b: {c: '${cases.two.cardId}'}}, ['extra_fields'])
    expect(references.map((r) => [r.caseName, r.field, r.path.join('.')])).toEqual([
      ['one', 'customerId', 'extra_fields.a.1'],
      ['two', 'cardId', 'extra_fields.b.c'],
    ])
  })

  it('resolves every reference and fails when a value is missing', () => {
    const values: Record<string, string> = {'one.customerId': 'cus_1'}
    const lookup = (r: {caseName: string; field: string}) => values[`${r.caseName}.${r.field}`]
    expect(resolveReferences({id: '${cases.one.customerId}', note: 'x $${y}', n: 3}, lookup)).toEqual({id: 'cus_1', note: 'x ${y}', n: 3})
    expect(() => resolveReferences('${cases.one.cardId}', lookup)).toThrow(UnresolvedReferenceError)
    expect(() => resolveReferences('${cases.one.cardId}', lookup)).toThrow('case "one" did not produce a cardId')
  })
})
