import {visibleText} from '../terminal/visible-text.js'

/** A cell: one line, or several (a list), each shown under the one before. */
export type TableValue = string | readonly string[] | undefined

/**
 * Aligned `label  value` lines; empty values are left out. Values (often from outside) are shown
 * with control characters escaped, so none can break a line or draw one of its own.
 */
export function table(rows: [string, TableValue][]): string {
  const shown = rows.filter((row): row is [string, string | readonly string[]] => row[1] !== undefined && row[1] !== '' && row[1].length > 0)
  const width = Math.max(...shown.map(([label]) => label.length))
  return shown
    .map(([label, value]) => {
      const lines = typeof value === 'string' ? [value] : value
      return lines.map((line, index) => `${(index === 0 ? label : '').padEnd(width)}  ${visibleText(line)}`).join('\n')
    })
    .join('\n')
}
