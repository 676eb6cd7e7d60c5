/** `--pan 4024…` and its kind: why there is no such flag, and what to type instead. */
import {describe, expect, it} from 'vitest'

import {secretFlagHint} from '../../src/input/secret-flags.js'
import {runCli} from '../helpers/cli.js'

describe('secretFlagHint', () => {
  it.each([
    ['--pan', ['--pan-stdin'], 'There is no --pan on purpose: a card number on the command line stays in your shell history and in the process list'],
    ['--pan=4024007108173153', ['--pan-stdin'], 'Pipe it in with --pan-stdin'],
    ['--cvv', ['--pan-stdin', '--cvv-stdin'], 'a CVV on the command line'],
    ['--api-key', ['--api-key-stdin'], "printf '%s\\n' \"$KEY\" | paytx profile add --api-key-stdin"],
  ])('%s: %s', (typed, known, hint) => {
    expect(secretFlagHint(typed, known, 'paytx profile add')).toContain(hint)
  })

  it.each([
    ['--pan', []],
    ['--amount', ['--amount-stdin']],
  ])('%s with %j: no such hint (the usual "did you mean" applies)', (typed, known) => {
    expect(secretFlagHint(typed, known, 'paytx x')).toBeUndefined()
  })

  it('card tokenize --pan: exit 2, the reason and --pan-stdin, the number never echoed', async () => {
    const result = await runCli(['card', 'tokenize', '--pan', '4024007108173153'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Hint: There is no --pan on purpose')
    expect(result.stderr).toContain('--pan-stdin')
    expect(result.stderr).not.toContain('4024007108173153')
  })
})
