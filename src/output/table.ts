/**
 * The one table renderer of paytx, as gh draws its lists: on a terminal, aligned columns fitted
 * to its width (chosen columns wrap or are cut short); in a pipe, tab-separated lines under a
 * header line, one record per line; CSV where a spreadsheet is the reader.
 */

import {visibleText} from '../terminal/visible-text.js'

/** A cell: one line, or several (a list), each shown under the one before. */
export type TableValue = string | readonly string[] | undefined

/**
 * Aligned `label  value` lines; empty values are left out. Values (often from outside) are shown
 * with control characters escaped, so none can break a line or draw one of its own.
 */
export function table(rows: [string, TableValue][], options: {indent?: string} = {}): string {
  const shown = rows.filter((row): row is [string, string | readonly string[]] => row[1] !== undefined && row[1] !== '' && row[1].length > 0)
  const width = Math.max(...shown.map(([label]) => label.length))
  return shown
    .map(([label, value]) => {
      const lines = typeof value === 'string' ? [value] : value
      return lines.map((line, index) => `${options.indent ?? ''}${(index === 0 ? label : '').padEnd(width)}  ${visibleText(line)}`).join('\n')
    })
    .join('\n')
}

export type TableFormat = 'aligned' | 'tsv' | 'csv'

export interface TableColumn {
  header: string
  /** When the table is too wide: `wrap` breaks the cell over several lines, `truncate` cuts it with "…". */
  shrink?: 'wrap' | 'truncate'
  /** The narrowest this column gets when shrunk (default 10). */
  minWidth?: number
}

export interface TableOptions {
  format: TableFormat
  /** The terminal's width, for `aligned` (default 80). */
  width?: number
  /** Colours a cell of the aligned form after padding (e.g. a verdict); never used for TSV or CSV. */
  paint?: (row: number, column: number, text: string) => string
  /**
   * When the columns cannot fit even shrunk: `overflow` (default) lets lines run past the edge;
   * `blocks` shows one block per row instead, the first cell as its title and the others below it.
   */
  tooNarrow?: 'overflow' | 'blocks'
}

const GAP = '  '

/** The format for stdout: aligned on a terminal, TSV in a pipe, CSV when asked. */
export function tableFormatFor(stream: {isTTY?: boolean}, csv = false): TableFormat {
  if (csv) return 'csv'
  return stream.isTTY ? 'aligned' : 'tsv'
}

/** The width to fit a terminal's table to; a pseudo-terminal without a size counts as 80. */
export function terminalWidth(stream: {columns?: number}): number {
  return stream.columns && stream.columns > 0 ? stream.columns : 80
}

export function renderTable(columns: readonly TableColumn[], rows: readonly (readonly string[])[], options: TableOptions): string {
  if (options.format === 'csv') return [columns.map((column) => column.header), ...rows].map((row) => row.map(csvCell).join(',')).join('\n')
  if (options.format === 'tsv') return [columns.map((column) => column.header), ...rows].map((row) => row.map(flatCell).join('\t')).join('\n')
  return renderAligned(columns, rows, options)
}

/** A cell on one line: tabs and line breaks inside become spaces, other control characters escapes. */
function flatCell(text: string): string {
  return visibleText(text.replace(/[\t\r\n]+/g, ' '))
}

function csvCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

function renderAligned(columns: readonly TableColumn[], rows: readonly (readonly string[])[], options: TableOptions): string {
  const headers = columns.map((column) => column.header)
  const {widths, fits} = fitWidths(columns, [headers, ...rows], options.width ?? 80)
  if (!fits && options.tooNarrow === 'blocks') return renderBlocks(columns, rows, options)
  return [...drawAligned(columns, widths, headers, undefined, options), ...rows.flatMap((cells, row) => drawAligned(columns, widths, cells, row, options))].join('\n')
}

/** One row of the aligned form at the given widths: a line, or several where a cell wraps. */
function drawAligned(columns: readonly TableColumn[], widths: readonly number[], cells: readonly string[], row: number | undefined, options: TableOptions): string[] {
  const blocks = cells.map((cell, column) => cellLines(flatCell(cell), widths[column], columns[column].shrink))
  const height = Math.max(...blocks.map((block) => block.length))
  const lines: string[] = []
  for (let line = 0; line < height; line++) {
    const parts = blocks.map((block, column) => {
      const text = block[line] ?? ''
      const padded = column === blocks.length - 1 ? text : text.padEnd(widths[column])
      return row !== undefined && options.paint && text ? options.paint(row, column, padded) : padded
    })
    lines.push(parts.join(GAP).trimEnd())
  }
  return lines
}

/** A table written as its rows come, for lists too long to hold (see createTableWriter). */
export interface TableWriter {
  row(cells: readonly string[]): void
  /** Writes what is still held (a short table is all held until here) and the header of an empty one. */
  end(): void
}

/** Rows held to fit the aligned form's widths before the first is written. */
export const ALIGNED_ROWS_HELD = 50

/**
 * The table row by row through `write` (each call one or more whole lines, with their line
 * ends). TSV and CSV write each row as it comes. The aligned form holds the first
 * ALIGNED_ROWS_HELD rows, fits the widths to them as renderTable does (so a short table looks
 * the same either way), and draws every later row at those widths: a longer cell there pushes
 * the rest of its row along rather than being cut, unless its column shrinks.
 */
export function createTableWriter(columns: readonly TableColumn[], options: TableOptions, write: (text: string) => void): TableWriter {
  const headers = columns.map((column) => column.header)
  if (options.format !== 'aligned') {
    const line = options.format === 'csv' ? (cells: readonly string[]) => cells.map(csvCell).join(',') : (cells: readonly string[]) => cells.map(flatCell).join('\t')
    let started = false
    const start = () => {
      if (!started) write(`${line(headers)}\n`)
      started = true
    }
    return {
      row: (cells) => {
        start()
        write(`${line(cells)}\n`)
      },
      end: start,
    }
  }
  let held: (readonly string[])[] | undefined = []
  let widths: number[] = []
  let drawn = 0
  const draw = (cells: readonly string[]) => write(`${drawAligned(columns, widths, cells, drawn++, options).join('\n')}\n`)
  const flush = () => {
    if (!held) return
    widths = fitWidths(columns, [headers, ...held], options.width ?? 80).widths
    write(`${drawAligned(columns, widths, headers, undefined, options).join('\n')}\n`)
    const rows = held
    held = undefined
    for (const cells of rows) draw(cells)
  }
  return {
    row: (cells) => {
      if (!held) return draw(cells)
      held.push(cells)
      if (held.length >= ALIGNED_ROWS_HELD) flush()
    },
    end: flush,
  }
}

/**
 * Natural widths, then the shrinkable columns narrowed one character at a time, always the widest
 * of them, until the row fits the terminal (so they end up evenly narrowed). A wrapping column
 * keeps room for its longest word (up to 24 characters), so words are not broken when avoidable.
 */
function fitWidths(columns: readonly TableColumn[], rows: readonly (readonly string[])[], width: number): {widths: number[]; fits: boolean} {
  const widths = columns.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)))
  const minimums = columns.map((column, index) => {
    const longestWord = column.shrink === 'wrap' ? Math.max(...rows.slice(1).flatMap((row) => (row[index] ?? '').split(' ').map((word) => word.length))) : 0
    return Math.min(widths[index], Math.max(column.minWidth ?? 10, column.header.length, Math.min(longestWord, 24)))
  })
  let total = widths.reduce((sum, value) => sum + value, 0) + GAP.length * (columns.length - 1)
  // One column short of the edge: a line exactly as wide as the terminal wraps on some terminals.
  const room = Math.max(1, width - 1)
  while (total > room) {
    let widest = -1
    for (const [index, column] of columns.entries()) {
      if (column.shrink && widths[index] > minimums[index] && (widest === -1 || widths[index] > widths[widest])) widest = index
    }
    if (widest === -1) break
    widths[widest]--
    total--
  }
  return {widths, fits: total <= room}
}

/**
 * A row per block for a terminal too narrow for the columns: the first cell as a title, then
 * `header  value` lines, values wrapped under themselves; blocks apart by an empty line.
 */
function renderBlocks(columns: readonly TableColumn[], rows: readonly (readonly string[])[], options: TableOptions): string {
  const labels = columns.slice(1).map((column) => column.header.toLowerCase())
  const labelWidth = Math.max(...labels.map((label) => label.length))
  const indent = ' '.repeat(2 + labelWidth + GAP.length)
  const valueWidth = Math.max(10, (options.width ?? 80) - 1 - indent.length)
  const paint = (row: number, column: number, text: string) => (options.paint ? options.paint(row, column, text) : text)
  return rows
    .map((cells, row) => {
      const lines = [paint(row, 0, cells[0])]
      labels.forEach((label, index) => {
        const column = index + 1
        const [first, ...rest] = wrapText(flatCell(cells[column]), valueWidth)
        lines.push(`  ${label.padEnd(labelWidth)}${GAP}${paint(row, column, first)}`.trimEnd(), ...rest.map((line) => `${indent}${paint(row, column, line)}`))
      })
      return lines.join('\n')
    })
    .join('\n\n')
}

function cellLines(text: string, width: number, shrink: TableColumn['shrink']): string[] {
  if (text.length <= width || !shrink) return [text]
  if (shrink === 'truncate') return [`${text.slice(0, Math.max(0, width - 1))}…`]
  return wrapText(text, width)
}

/** Breaks at spaces where it can, inside a word only when the word alone is too long. */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = []
  let current = ''
  for (const word of text.split(' ')) {
    let rest = word
    while (rest.length > 0) {
      const candidate = current ? `${current} ${rest}` : rest
      if (candidate.length <= width) {
        current = candidate
        rest = ''
      } else if (current) {
        lines.push(current)
        current = ''
      } else {
        lines.push(rest.slice(0, width))
        rest = rest.slice(width)
      }
    }
  }
  if (current || lines.length === 0) lines.push(current)
  return lines
}
