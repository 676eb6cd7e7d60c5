/**
 * What a terminal shows after some output: applies the cursor moves and erasures that paytx's
 * live displays write (CSI A B E F G J K, carriage return, line feed, backspace) and drops colours,
 * so a test can check what is left on the screen rather than every frame that was drawn.
 */
export function screenAfter(output: string): string[] {
  const lines: string[][] = [[]]
  let row = 0
  let column = 0
  const line = () => (lines[row] ??= [])
  for (let index = 0; index < output.length; index++) {
    const char = output[index]
    if (char === '\u001B' && output[index + 1] === '[') {
      const match = /^\u001B\[([?\d;]*)([A-Za-z])/.exec(output.slice(index))
      if (!match) continue
      index += match[0].length - 1
      const n = Number(match[1].replace('?', '').split(';')[0] || 0)
      switch (match[2]) {
        case 'A':
          row = Math.max(0, row - Math.max(1, n))
          break
        case 'B':
          row += Math.max(1, n)
          break
        case 'E':
          row += Math.max(1, n)
          column = 0
          break
        case 'F':
          row = Math.max(0, row - Math.max(1, n))
          column = 0
          break
        case 'G':
          column = Math.max(0, n - 1)
          break
        case 'J':
          line().length = Math.min(line().length, column)
          lines.length = row + 1
          break
        case 'K':
          if (n === 2) line().length = 0
          else line().length = Math.min(line().length, column)
          break
        default:
          break
      }
      continue
    }
    if (char === '\r') column = 0
    else if (char === '\n') {
      row++
      column = 0
    } else if (char === '\b') column = Math.max(0, column - 1)
    else if (char >= ' ') {
      const current = line()
      while (current.length < column) current.push(' ')
      current[column++] = char
    }
  }
  return Array.from({length: lines.length}, (_, index) => (lines[index] ?? []).join('').trimEnd())
}
