import {visibleText} from '../terminal/visible-text.js'

/** Aligned `label  value` lines; empty values are left out; values (often from outside) are shown with control characters escaped. */
export function table(rows: [string, string | undefined][]): string {
  const shown = rows.filter(([, value]) => value !== undefined && value !== '')
  const width = Math.max(...shown.map(([label]) => label.length))
  return shown.map(([label, value]) => `${label.padEnd(width)}  ${visibleText(value!)}`).join('\n')
}
