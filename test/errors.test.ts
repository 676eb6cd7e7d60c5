import {describe, expect, it} from 'vitest'

import {EXIT, outcomeExitCode} from '../src/errors.js'

describe('outcomeExitCode: the one mapping from a payment outcome to an exit code', () => {
  it.each([
    [{conclusive: true, success: true}, EXIT.ok],
    [{conclusive: true, success: false}, EXIT.notSuccess],
    [{conclusive: false, success: false}, EXIT.notFinal],
    [{conclusive: false, success: true}, EXIT.notFinal],
  ])('%j exits %i', (verdict, code) => {
    expect(outcomeExitCode(verdict)).toBe(code)
  })
})
