import {describe, expect, it} from 'vitest'

import {InputError} from '../../src/errors.js'
import {MAX_XML_DEPTH, mergeJUnit} from '../../src/smoke/junit-merge.js'

describe('mergeJUnit with hostile input', () => {
  it('refuses XML nested a million deep with an input error instead of overflowing the stack', () => {
    const depth = 1_000_000
    const xml = `<testsuites><testsuite name="a">${'<x>'.repeat(depth)}${'</x>'.repeat(depth)}</testsuite></testsuites>`
    let error: unknown
    try {
      mergeJUnit([{name: 'deep.xml', xml}])
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(InputError)
    expect((error as InputError).message).toBe(
      `deep.xml is not well-formed XML: elements are nested more than ${MAX_XML_DEPTH} deep (at <x>), far deeper than any JUnit report.`,
    )
  })

  it('still merges a report nested as deep as JUnit reports go', () => {
    const xml = '<testsuites><testsuite name="a" tests="1"><testcase name="one"><failure message="m">why</failure></testcase></testsuite></testsuites>'
    expect(mergeJUnit([{name: 'ok.xml', xml}]).summary).toMatchObject({tests: 1})
  })
})
