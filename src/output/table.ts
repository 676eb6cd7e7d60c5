/**
 * The one table renderer of paytx, as gh draws its lists: on a terminal, aligned columns fitted
 * to its width so that no row runs past the edge (chosen columns wrap or are cut with "…", the
 * least needed are dropped, an id is never cut); in a pipe, tab-separated lines under a header
 * line, one whole record per line; CSV where a spreadsheet is the reader.
 */

import {visibleText} from '../terminal/visible-text.js'

/** A cell: one line, or several (a list), each shown under the one before. */
export type TableValue = string | readonly string[] | undefined

/**
 * Aligned `label  value` lines; empty values are left out. Values (often from outside) are shown
 * with control characters escaped, so none can break a line or draw one of its own.
 */
export function table(rows: [string, TableValue][], options: {indent?: string; width?: number} = {}): string {
  const shown = rows.filter((row): row is [string, string | readonly string[]] => row[1] !== undefined && row[1] !== '' && row[1].length > 0)
  const labelWidth = Math.max(...shown.map(([label]) => label.length))
  const indent = options.indent ?? ''
  const valueColumn = indent.length + labelWidth + 2
  // A word too long to stand at the value column (an id, an address) gets a line of its own, whole, further left.
  const tooLong = (line: string) => options.width !== undefined && valueColumn + line.length >= options.width
  return shown
    .map(([label, value]) => {
      const lines = (typeof value === 'string' ? [value] : value).flatMap((line) => fitToWidth(visibleText(line), valueColumn, options.width))
      return lines
        .map((line, index) => {
          if (tooLong(line)) return `${index === 0 ? `${indent}${label}\n` : ''}${indent}  ${line}`
          return `${indent}${(index === 0 ? label : '').padEnd(labelWidth)}  ${line}`
        })
        .join('\n')
    })
    .join('\n')
}

/**
 * A value that starts at `column`, broken at spaces so that no line passes the terminal's edge
 * (one column short of it); a single word too long (an address) keeps its own line whole. No
 * width (a pipe): one line.
 */
export function fitToWidth(text: string, column: number, width: number | undefined): string[] {
  if (width === undefined || column + text.length < width) return [text]
  return wrapWords(text, Math.max(20, width - 1 - column))
}

/** Breaks at spaces only: a word is never cut, a word longer than the width stands alone. */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = []
  let current = ''
  for (const word of text.split(' ')) {
    if (current && current.length + 1 + word.length > width) {
      lines.push(current.trimEnd())
      current = word
    } else current = current ? `${current} ${word}` : word
  }
  lines.push(current)
  return lines
}

export type TableFormat = 'aligned' | 'tsv' | 'csv'

export interface TableColumn {
  header: string
  /**
   * An id (a transaction id, a rule id, a profile name): people copy it, so it is never cut,
   * wrapped or dropped; the other columns give way around it.
   */
  id?: boolean
  /**
   * When the table is too wide: `wrap` breaks the cell between words over several lines,
   * `truncate` cuts it with "…", `url` cuts an address with "…" only inside its path (scheme,
   * host and port stay whole). Without it the cell is shown whole.
   */
  shrink?: 'wrap' | 'truncate' | 'url'
  /** The narrowest this column gets when shrunk (default 10; a wrapping column keeps room for its longest word). */
  minWidth?: number
  /**
   * Which columns go when even shrunk they cannot all fit: the highest number first (of equals,
   * the rightmost). 1, the default, is never dropped; nor is an id.
   */
  priority?: number
}

export interface TableOptions {
  format: TableFormat
  /** The terminal's width, for `aligned` (default 80). */
  width?: number
  /** Colours a cell of the aligned form after padding (e.g. a verdict); never used for TSV or CSV. */
  paint?: (row: number, column: number, text: string) => string
  /**
   * When the columns that cannot be dropped do not fit even shrunk: `overflow` (default) lets
   * lines run past the edge; `blocks` shows one block per row instead, the first cell as its
   * title and the others below it.
   */
  tooNarrow?: 'overflow' | 'blocks'
  /** The column whose cell is a block's title (default 0, the first): an id, never a marker. */
  blockTitle?: number
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

/** How the aligned form is drawn: the columns shown (indexes, in order), the width of each, and whether they fit. */
interface Layout {
  shown: number[]
  widths: number[]
  fits: boolean
}

function renderAligned(columns: readonly TableColumn[], rows: readonly (readonly string[])[], options: TableOptions): string {
  const headers = columns.map((column) => column.header)
  const layout = fitLayout(columns, [headers, ...rows], options.width ?? 80)
  if (asBlocks(layout, options, rows.length)) return rows.map((cells, row) => drawBlock(columns, cells, row, options)).join('\n\n')
  return [...drawAligned(columns, layout, headers, undefined, options), ...rows.flatMap((cells, row) => drawAligned(columns, layout, cells, row, options))].join('\n')
}

function asBlocks(layout: Layout, options: TableOptions, rows: number): boolean {
  return !layout.fits && options.tooNarrow === 'blocks' && rows > 0
}

/** One row of the aligned form in its layout: a line, or several where a cell wraps. */
function drawAligned(columns: readonly TableColumn[], layout: Layout, cells: readonly string[], row: number | undefined, options: TableOptions): string[] {
  const {shown, widths} = layout
  const blocks = shown.map((column) => cellLines(flatCell(cells[column] ?? ''), widths[column], columns[column]))
  const height = Math.max(...blocks.map((block) => block.length))
  const lines: string[] = []
  for (let line = 0; line < height; line++) {
    const parts = blocks.map((block, position) => {
      const column = shown[position]
      const text = block[line] ?? ''
      const padded = position === blocks.length - 1 ? text : text.padEnd(widths[column])
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
 * ALIGNED_ROWS_HELD rows, fits the layout to them as renderTable does (so a short table looks
 * the same either way), and draws every later row in that layout: a longer cell there pushes
 * the rest of its row along rather than being cut, unless its column shrinks.
 */
export function createTableWriter(columns: readonly TableColumn[], options: TableOptions, write: (text: string) => void): TableWriter {
  const headers = columns.map((column) => column.header)
  if (options.format !== 'aligned') return streamWriter(headers, options.format, write)
  let held: (readonly string[])[] | undefined = []
  let layout: Layout = {shown: [], widths: [], fits: true}
  let blocks = false
  let drawn = 0
  const draw = (cells: readonly string[]) => {
    const row = drawn++
    if (blocks) write(`${row === 0 ? '' : '\n'}${drawBlock(columns, cells, row, options)}\n`)
    else write(`${drawAligned(columns, layout, cells, row, options).join('\n')}\n`)
  }
  const flush = () => {
    if (!held) return
    layout = fitLayout(columns, [headers, ...held], options.width ?? 80)
    blocks = asBlocks(layout, options, held.length)
    if (!blocks) write(`${drawAligned(columns, layout, headers, undefined, options).join('\n')}\n`)
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

/** TSV or CSV a row at a time, the header with the first row (or at the end of an empty table). */
function streamWriter(headers: readonly string[], format: 'tsv' | 'csv', write: (text: string) => void): TableWriter {
  const line = format === 'csv' ? (cells: readonly string[]) => cells.map(csvCell).join(',') : (cells: readonly string[]) => cells.map(flatCell).join('\t')
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

/**
 * The layout for a terminal `width` wide, as gh fits its tables, one column short of the edge (a
 * line exactly as wide as the terminal wraps on some): when even the narrowest form of every
 * column cannot fit, columns are dropped by priority; then, from natural widths, the shrinkable
 * columns are narrowed one character at a time, always the widest of them, until the row fits
 * (so they end up evenly narrowed). An id column keeps its width; a wrapping column keeps room
 * for its longest word; an address keeps its scheme, host and port.
 */
function fitLayout(columns: readonly TableColumn[], rows: readonly (readonly string[])[], width: number): Layout {
  const flat = rows.map((row) => columns.map((_, column) => flatCell(row[column] ?? '')))
  const widths = columns.map((_, column) => Math.max(...flat.map((row) => row[column].length)))
  const minimums = columns.map((column, index) => Math.min(widths[index], narrowest(column, flat.slice(1).map((row) => row[index]))))
  const room = Math.max(1, width - 1)
  const spread = (shown: readonly number[], sizes: readonly number[]) => shown.reduce((sum, index) => sum + sizes[index], 0) + GAP.length * (shown.length - 1)
  let shown = columns.map((_, index) => index)
  while (spread(shown, minimums) > room) {
    const dropped = nextToDrop(columns, shown)
    if (dropped === undefined) break
    shown = shown.filter((index) => index !== dropped)
  }
  let total = spread(shown, widths)
  while (total > room) {
    let widest = -1
    for (const index of shown) {
      if (shrinks(columns[index]) && widths[index] > minimums[index] && (widest === -1 || widths[index] > widths[widest])) widest = index
    }
    if (widest === -1) break
    widths[widest]--
    total--
  }
  return {shown, widths, fits: total <= room}
}

function shrinks(column: TableColumn): boolean {
  return !column.id && column.shrink !== undefined
}

/** The narrowest a column may get for these cells (a column that does not shrink: its natural width). */
function narrowest(column: TableColumn, cells: readonly string[]): number {
  if (!shrinks(column)) return Number.POSITIVE_INFINITY
  if (column.shrink === 'url') return Math.max(column.header.length, column.minWidth ?? 0, ...cells.map((cell) => urlNarrowest(cell)))
  const floor = Math.max(column.minWidth ?? 10, column.header.length)
  if (column.shrink === 'wrap') return Math.max(floor, ...cells.flatMap((cell) => cell.split(' ').map((word) => word.length)))
  return floor
}

/** The column that goes next: the highest priority number above 1, of equals the rightmost; never an id. */
function nextToDrop(columns: readonly TableColumn[], shown: readonly number[]): number | undefined {
  let chosen: number | undefined
  for (const index of shown) {
    const priority = columns[index].priority ?? 1
    if (columns[index].id || priority <= 1) continue
    if (chosen === undefined || priority >= (columns[chosen].priority ?? 1)) chosen = index
  }
  return chosen
}

/**
 * A row as a block for a terminal too narrow for the columns: the first cell as a title, then
 * `header  value` lines for the cells that have a value, values wrapped under themselves.
 */
function drawBlock(columns: readonly TableColumn[], cells: readonly string[], row: number, options: TableOptions): string {
  const title = options.blockTitle ?? 0
  const others = columns.map((_, index) => index).filter((index) => index !== title)
  const labels = others.map((index) => columns[index].header.toLowerCase())
  const labelWidth = Math.max(...labels.map((label) => label.length))
  const indent = ' '.repeat(2 + labelWidth + GAP.length)
  const valueWidth = Math.max(10, (options.width ?? 80) - 1 - indent.length)
  const paint = (column: number, text: string) => (options.paint ? options.paint(row, column, text) : text)
  const lines = [paint(title, flatCell(cells[title] ?? ''))]
  labels.forEach((label, index) => {
    const column = others[index]
    const text = flatCell(cells[column] ?? '')
    if (!text) return
    const spec = columns[column]
    if ((spec.id || spec.shrink === 'url') && text.length > valueWidth && cellLines(text, valueWidth, spec)[0].length > valueWidth) {
      // An id, or an address that cannot be cut, too long for the value column gets a line of its own, whole.
      const pad = [4, 2].find((spaces) => spaces + text.length < (options.width ?? 80)) ?? 0
      lines.push(`  ${label}`, `${' '.repeat(pad)}${paint(column, text)}`)
      return
    }
    const [first, ...rest] = cellLines(text, valueWidth, spec.id || spec.shrink ? spec : {...spec, shrink: 'wrap'})
    lines.push(`  ${label.padEnd(labelWidth)}${GAP}${paint(column, first)}`.trimEnd(), ...rest.map((line) => `${indent}${paint(column, line)}`))
  })
  return lines.join('\n')
}

function cellLines(text: string, width: number, column: TableColumn): string[] {
  if (text.length <= width || !shrinks(column)) return [text]
  if (column.shrink === 'truncate') return [`${text.slice(0, Math.max(0, width - 1))}…`]
  if (column.shrink === 'url') return [cutUrl(text, width)]
  return wrapText(text, width)
}

/** Scheme, user, host and port of an address, and the character after them (`/`, `?` or `#`); the whole text when it is not an address. */
function urlHead(text: string): string {
  const origin = /^[a-z][a-z\d+.-]*:\/\/[^/?#\s]*/i.exec(text)?.[0]
  return origin === undefined ? text : text.slice(0, origin.length + 1)
}

/** The narrowest an address can be shown: up to the first character of its path and "…", or whole. */
function urlNarrowest(text: string): number {
  const head = urlHead(text)
  return head.length >= text.length ? text.length : head.length + 1
}

/** An address cut to `width` with "…" inside its path only; one that cannot be cut there is shown whole. */
function cutUrl(text: string, width: number): string {
  if (text.length <= width || width < urlNarrowest(text)) return text
  return `${text.slice(0, width - 1)}…`
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
