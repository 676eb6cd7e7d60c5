import {describe, expect, it} from 'vitest'

import {maskLongDigitRuns} from '../../src/secrets/debug-output.js'
import {runCli} from '../helpers/cli.js'

describe('DEBUG=* and card numbers on the command line', () => {
  it.each(['4111111111111111', '4111 1111 1111 1111', '4111-1111-1111-1x11', '41111111111111l1', '4111.1111.1111.1112'])(
    'a mistyped --pan %j is never echoed by the debug logs',
    async (pan) => {
      const result = await runCli(['card', 'tokenize', '--pan', pan], {env: {DEBUG: '*'}})
      expect(result.code).toBe(2)
      // The logs ran (they print the command line), and the number is not in them.
      expect(result.stderr).toContain("'--pan'")
      expect(result.stderr).not.toContain(pan)
      expect(result.stderr).not.toMatch(/41111111|4111[ .-]1111[ .-]1111/)
    },
  )
})

describe('maskLongDigitRuns', () => {
  it('keeps what is not a card number: times, UUIDs, ports, short numbers', () => {
    const line = '2026-11-25T21:54:33.579Z oclif:config tx 9a2e4b7c-1d3f-4e5a-8b6c-7d8e9f0a1b2c on 127.0.0.1:4010 amount 1499'
    expect(maskLongDigitRuns(line)).toBe(line)
  })

  it('shows a number of 12 digits or more by its last four, Luhn or not', () => {
    expect(maskLongDigitRuns("argv: [ '--pan', '4111111111111112' ]")).toBe("argv: [ '--pan', '••••1112' ]")
  })
})
