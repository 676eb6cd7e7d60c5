/** Aligned `label  value` lines; empty values are left out. */
export function table(rows: [string, string | undefined][]): string {
  const shown = rows.filter(([, value]) => value !== undefined && value !== '')
  const width = Math.max(...shown.map(([label]) => label.length))
  return shown.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n')
}
