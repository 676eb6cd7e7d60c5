/** What `emulator assumptions` shows people: the rule, then a block per assumption, fitted to the terminal. */
import type {Assumption} from '../emulator/index.js'
import {table} from './table.js'
import {wrapHanging} from './wrap.js'

/**
 * The rule and each assumption as `id`, `choice`, `why` and `switch` lines under its topic. On a
 * terminal (`width`) the text wraps between words, each value under itself; in a pipe every line
 * is whole.
 */
export function renderAssumptions(rule: string, assumptions: readonly Assumption[], width?: number): string {
  const blocks = assumptions.map((row) =>
    [
      ...wrapHanging(row.topic, width, 2),
      table([['id', row.id], ['choice', row.choice], ['why', row.why], ['switch', row.switch ?? 'none']], {indent: '  ', width}),
    ].join('\n'),
  )
  return [...wrapHanging(rule, width, 0), '', blocks.join('\n\n')].join('\n')
}
