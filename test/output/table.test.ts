import {describe, expect, it} from 'vitest'

import {ALIGNED_ROWS_HELD, type TableColumn, type TableFormat, createTableWriter, renderTable, tableFormatFor, terminalWidth, wrapText} from '../../src/output/table.js'

const COLUMNS: TableColumn[] = [{header: 'NAME'}, {header: 'NOTE', shrink: 'wrap', minWidth: 8}, {header: 'REF', shrink: 'truncate', minWidth: 6}]
const ROWS = [
  ['alpha', 'a short note', 'r-1'],
  ['beta', 'a much longer note that will not fit in a narrow terminal at all', 'reference-number-0042'],
]

describe('renderTable', () => {
  it('aligns columns and trims the last one when there is room', () => {
    expect(renderTable(COLUMNS, ROWS.slice(0, 1), {format: 'aligned', width: 80}).split('\n')).toEqual(['NAME   NOTE          REF', 'alpha  a short note  r-1'])
  })

  it('fits a narrow terminal: wraps the wrap column, cuts the truncate column', () => {
    const lines = renderTable(COLUMNS, ROWS, {format: 'aligned', width: 30}).split('\n')
    for (const line of lines) expect(line.length).toBeLessThan(30)
    expect(lines[0]).toMatch(/^NAME\s+NOTE\s+REF$/)
    expect(lines.join('\n')).toContain('…')
    const noteAt = lines[0].indexOf('NOTE')
    const note = lines.slice(lines.findIndex((line) => line.startsWith('beta'))).map((line) => line.slice(noteAt).split(/\s{2,}/)[0].trim()).join(' ')
    expect(note).toBe('a much longer note that will not fit in a narrow terminal at all')
  })

  it('shows one block per row when even shrunk columns cannot fit and blocks are asked for', () => {
    const columns: TableColumn[] = [{header: 'NAME'}, {header: 'NOTE', shrink: 'wrap', minWidth: 20}, {header: 'REF'}]
    const text = renderTable(columns, ROWS, {format: 'aligned', width: 30, tooNarrow: 'blocks'})
    expect(text.split('\n\n')).toHaveLength(2)
    expect(text.split('\n\n')[1].split('\n')).toEqual([
      'beta',
      '  note  a much longer note',
      '        that will not fit in',
      '        a narrow terminal at',
      '        all',
      '  ref   reference-number-0042',
    ])
    // Without blocks, the lines run past the edge rather than lose text.
    expect(renderTable(columns, ROWS, {format: 'aligned', width: 30})).toContain('reference-number-0042')
  })

  it('writes TSV with a header line, flattening tabs and newlines in cells', () => {
    expect(renderTable(COLUMNS, [['a\tb', 'line 1\nline 2', '']], {format: 'tsv'})).toBe('NAME\tNOTE\tREF\na b\tline 1 line 2\t')
  })

  it('writes CSV with quotes where needed', () => {
    expect(renderTable(COLUMNS, [['a,b', 'say "hi"', 'plain']], {format: 'csv'})).toBe('NAME,NOTE,REF\n"a,b","say ""hi""",plain')
  })

  it('paints cells of the aligned form only', () => {
    const paint = (_row: number, column: number, text: string) => (column === 0 ? `<${text}>` : text)
    expect(renderTable(COLUMNS, [['x', 'y', 'z']], {format: 'aligned', paint}).split('\n')[1]).toBe('<x   >  y     z')
    expect(renderTable(COLUMNS, [['x', 'y', 'z']], {format: 'tsv', paint})).not.toContain('<')
  })

  it('picks the format from the stream and the width from the terminal', () => {
    expect(tableFormatFor({isTTY: true})).toBe('aligned')
    expect(tableFormatFor({isTTY: false})).toBe('tsv')
    expect(tableFormatFor({isTTY: true}, true)).toBe('csv')
    expect(terminalWidth({columns: 0})).toBe(80)
    expect(terminalWidth({columns: 132})).toBe(132)
  })
})

describe('createTableWriter', () => {
  function written(format: TableFormat, rows: readonly (readonly string[])[], width = 80): {text: string; writes: string[]} {
    const writes: string[] = []
    const writer = createTableWriter(COLUMNS, {format, width}, (text) => writes.push(text))
    for (const row of rows) writer.row(row)
    writer.end()
    return {text: writes.join(''), writes}
  }

  it.each<TableFormat>(['aligned', 'tsv', 'csv'])('writes a short table in %s exactly as renderTable draws it', (format) => {
    for (const width of [80, 30]) expect(written(format, ROWS, width).text).toBe(`${renderTable(COLUMNS, ROWS, {format, width})}\n`)
  })

  it('writes TSV and CSV a row at a time, the header with the first row', () => {
    const writes: string[] = []
    const writer = createTableWriter(COLUMNS, {format: 'tsv'}, (text) => writes.push(text))
    writer.row(ROWS[0])
    expect(writes).toEqual(['NAME\tNOTE\tREF\n', 'alpha\ta short note\tr-1\n'])
  })

  it('writes the header of an empty table at the end', () => {
    expect(written('csv', []).text).toBe('NAME,NOTE,REF\n')
  })

  it('holds the first rows of the aligned form to fit the widths, then draws each row as it comes at those widths', () => {
    const writes: string[] = []
    const writer = createTableWriter(COLUMNS, {format: 'aligned', width: 80}, (text) => writes.push(text))
    for (let index = 0; index < ALIGNED_ROWS_HELD - 1; index++) writer.row([`n${index}`, 'note', 'r'])
    expect(writes).toEqual([])
    writer.row(['last-held', 'note', 'r'])
    expect(writes.join('').split('\n')[0]).toBe('NAME       NOTE  REF')
    const before = writes.length
    // A later, longer first cell is written whole: it pushes its row along rather than being cut.
    writer.row(['a-much-longer-name-than-any-held', 'note', 'r'])
    expect(writes.slice(before)).toEqual(['a-much-longer-name-than-any-held  note  r\n'])
  })
})

describe('wrapText', () => {
  it.each([
    ['a bb ccc dddd', 6, ['a bb', 'ccc', 'dddd']],
    ['abcdefghij', 4, ['abcd', 'efgh', 'ij']],
    ['', 5, ['']],
  ])('%j at %i', (text, width, lines) => {
    expect(wrapText(text, width)).toEqual(lines)
  })
})
