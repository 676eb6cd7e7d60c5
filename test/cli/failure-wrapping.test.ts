/**
 * Every Error: and Hint: line fits the stderr terminal's width, broken at spaces with the
 * continuation under the text (issue 37, item 1); in a pipe each stays one line. Commands run
 * in-process with a pretend terminal of 40, 60, 80, 120 and 200 columns.
 */
import {describe, expect, it} from 'vitest'

import {hangOf, wrapFailureText} from '../../src/output/failure-text.js'
import {runCommand} from '../helpers/run-command.js'

const WIDTHS = [40, 60, 80, 120, 200]

/** The words of a text, in order: wrapping moves line breaks, never a word or a letter. */
const words = (text: string) => text.split(/\s+/).filter(Boolean)

/** Each line of `wrapped` that continues a line of `whole`, with its indent. */
function expectFitted(wrapped: string, whole: string, width: number): void {
  const lines = wrapped.trimEnd().split('\n')
  for (const line of lines) expect(line.length, `"${line}" at ${width} columns`).toBeLessThan(width)
  expect(words(wrapped)).toEqual(words(whole))
  const starts = whole.trimEnd().split('\n')
  // Every line that is not the start of one of the whole lines continues the one before it, indented under its text.
  let current = ''
  for (const line of lines) {
    if (starts.some((start) => start.startsWith(line.trimEnd()) && line.startsWith(start.slice(0, 7)))) current = line
    else expect(line.startsWith(' '.repeat(hangOf(current))), `"${line}" continues "${current}" at ${width} columns`).toBe(true)
  }
}

describe('errors and hints at the terminal width', () => {
  it.each(WIDTHS)('an error with a long hint (profile use sandbx) at %i columns', async (width) => {
    const piped = await runCommand(['profile', 'use', 'sandbx'])
    const shown = await runCommand(['profile', 'use', 'sandbx'], {terminalColumns: width})
    expect(shown.exitCode).toBe(2)
    expect(piped.stderr.split('\n')).toEqual([
      'Error: No profile named "sandbx". Known profiles: local.',
      'Hint: did you mean "sandbox"? There is no such profile yet: create it with `paytx profile add sandbox`.',
      '',
    ])
    expectFitted(shown.stderr, piped.stderr, width)
    if (width === 200) expect(shown.stderr).toBe(piped.stderr)
    if (width === 40) expect(shown.stderr.split('\n')).toEqual([
      'Error: No profile named "sandbx". Known',
      '       profiles: local.',
      'Hint: did you mean "sandbox"? There is',
      '      no such profile yet: create it',
      '      with `paytx profile add sandbox`.',
      '',
    ])
  })

  it.each(WIDTHS)('the missing-flag list (flow --no-input) at %i columns: each purpose continues under the purposes', async (width) => {
    const piped = await runCommand(['flow', '--no-input'])
    const shown = await runCommand(['flow', '--no-input'], {terminalColumns: width})
    expect(shown.exitCode).toBe(2)
    expectFitted(shown.stderr, piped.stderr, width)
    if (width === 40) {
      expect(shown.stderr.split('\n').slice(1, 5)).toEqual(['  --product  Payment product; one of', '             card, sofort, dummy.', '  --amount   Amount in minor units:', '             1499 for 14.99 EUR.'])
    }
  })

  it('no word is cut, even one longer than the line (an address stays whole on a line of its own)', () => {
    const text = 'Hint: check https://payments.example.com/v1/transaction/9a2e0000-0000-4000-8000-000000000001 and retry.'
    const wrapped = wrapFailureText(text, 40)
    expect(wrapped.split('\n')).toEqual(['Hint: check', '      https://payments.example.com/v1/transaction/9a2e0000-0000-4000-8000-000000000001', '      and retry.'])
  })

  it.each(WIDTHS)('a command in backticks is never broken across lines at %i columns, so it can be pasted', (width) => {
    const text = 'Hint: did you mean "sandbox"? There is no such profile yet: create it with `./bin/run.js profile add sandbox --env sandbox`.'
    const lines = wrapFailureText(text, width).split('\n')
    expect(lines.filter((line) => line.includes('`./bin/run.js profile add sandbox --env sandbox`'))).toHaveLength(1)
    expect(words(lines.join('\n'))).toEqual(words(text))
  })

  it('in a pipe every line stays whole', () => {
    const text = `Error: ${'long '.repeat(40).trim()}\nHint: ${'word '.repeat(40).trim()}`
    expect(wrapFailureText(text, undefined)).toBe(text)
  })
})
